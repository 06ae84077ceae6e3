"""The SSH task runner against real OpenSSH servers, one per test node.

Every task type runs on a node and leaves its effect in the node's own
directory; failures, timeouts and unreachable nodes give the statuses and
reasons the report shows; connections are reused and the private key is
never shown.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import pwd
import signal
import stat
import time
import uuid

import asyncssh
import pytest
from stevedore import driver

from ironside.strategy.tasks import base
from ironside.strategy.tasks.base import TaskSpec
from ironside.strategy.tasks.ssh import SSHTaskRunner
from tests.functional.fixtures import sshd
from tests.utils import wait_for


@pytest.fixture
def runner():
    runner = SSHTaskRunner(connect_timeout=5, kill_grace=0.5)
    yield runner
    runner.close()


def shell(cmd: str, **parameters) -> TaskSpec:
    return TaskSpec(id='task-%s' % uuid.uuid4().hex[:6], type='shell',
                    parameters=dict(parameters, cmd=cmd))


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % entry, 'rb') as cmdline:
                if marker.encode() in cmdline.read():
                    found.append(int(entry))
        except OSError:
            pass
    return found


# shell


def test_shell_runs_on_its_node_in_the_login_shell(ssh_nodes, runner):
    nodes = ssh_nodes(2)
    node = nodes['node-2']
    result = runner.run(node.target(), shell(
        'echo "ran on $NODE_NAME" > "$NODE_ROOT/hello"; echo out; '
        'echo err >&2; echo "shell=$0"; pwd', cwd=str(node.root)))
    assert result.status == base.SUCCESS, result
    assert result.exit_status == 0
    assert result.node == 'node-2'
    assert result.reason is None
    assert node.file('hello').read_text() == 'ran on node-2\n'
    assert not nodes['node-1'].file('hello').exists()
    # stdout and stderr in the order written; the login shell; the cwd.
    login_shell = os.path.basename(pwd.getpwuid(os.getuid()).pw_shell)
    assert result.output_tail.splitlines() == [
        'out', 'err', 'shell=%s' % login_shell, str(node.root)]
    assert result.duration > 0


def test_shell_default_cwd_is_root(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    result = runner.run(node.target(), shell('pwd'))
    assert (result.status, result.output_tail) == (base.SUCCESS, '/')


def test_nonzero_exit_fails_with_status_and_tail(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    result = runner.run(node.target(), shell(
        'for i in $(seq 1 200); do echo "line $i"; done; '
        'echo "the end" >&2; exit 3'))
    assert result.status == base.FAILED
    assert result.exit_status == 3
    assert result.reason == 'exited with status 3'
    lines = result.output_tail.splitlines()
    assert len(lines) == 50
    assert lines[0] == 'line 152'
    assert lines[-2:] == ['line 200', 'the end']


def test_output_tail_is_at_most_4_kib(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    result = runner.run(node.target(), shell(
        "python3 -c \"print('x' * 100000); print('last')\""))
    assert result.status == base.SUCCESS
    assert len(result.output_tail.encode()) <= 4096
    assert result.output_tail.startswith('…xxxx')
    assert result.output_tail.endswith('x\nlast')


def test_missing_cwd_fails(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    result = runner.run(node.target(), shell('true', cwd='/nonexistent/dir'))
    assert result.status == base.FAILED
    assert 'nonexistent' in result.output_tail


def test_timeout_kills_the_remote_processes(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    marker = '61.%d' % (uuid.uuid4().int % 10000)
    # A background child, and every process ignoring SIGTERM (ignored
    # signals are inherited): only the SIGKILL after kill_grace ends them.
    cmd = ('trap "" TERM; sleep %s & sleep %s; echo never' % (marker, marker))
    started = time.monotonic()
    result = runner.run(node.target(), shell(cmd, timeout=1))
    elapsed = time.monotonic() - started
    assert result.status == base.TIMEOUT, result
    assert result.reason == ('did not finish within 1s; its processes were '
                             'killed')
    assert result.exit_status is None
    assert 1 <= elapsed < 5
    wait_for(lambda: not _processes_with('sleep\x00%s' % marker), timeout=5,
             what='the timed-out task\'s processes to be gone')
    # The node's connection still serves the next task.
    assert runner.run(node.target(), shell('true')).succeeded
    assert node.connections() == 1


def test_a_noisy_login_shell_neither_hides_nor_breaks(ssh_nodes, runner):
    # bash run by sshd reads ~/.bashrc (HOME is the node's directory);
    # what it writes on stderr comes before the runner's pid line.
    node = ssh_nodes(1)[0]
    node.file('.bashrc').write_text('echo rc-noise >&2\n')
    marker = '62.%d' % (uuid.uuid4().int % 10000)
    result = runner.run(node.target(), shell('echo started; sleep %s'
                                             % marker, timeout=0.5))
    assert result.status == base.TIMEOUT
    # Written before stderr joined stdout: either order.
    assert sorted(result.output_tail.splitlines()) == ['rc-noise', 'started']
    wait_for(lambda: not _processes_with('sleep\x00%s' % marker),
             timeout=5, what='the task to be killed')


def test_task_timeout_field_wins_over_parameters(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    task = TaskSpec('t', 'shell', {'cmd': 'sleep 5', 'timeout': 600},
                    timeout=0.5)
    result = runner.run(node.target(), task)
    assert result.status == base.TIMEOUT
    assert result.reason.startswith('did not finish within 0.5s')


# upload_file


def test_upload_file_makes_parents_and_sets_modes(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    path = node.file('etc/ironside/deep/settings.yaml')
    task = TaskSpec('upload', 'upload_file',
                    {'path': str(path), 'data': 'a: 1\nb: é\n'})
    result = runner.run(node.target(), task)
    assert result.status == base.SUCCESS, result
    assert path.read_text() == 'a: 1\nb: é\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    for directory in (path.parent, path.parent.parent):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o755
    # Again, with other data and Fuel's permissions parameter: replaced.
    task = TaskSpec('upload', 'upload_file',
                    {'path': str(path), 'data': 'secret', 'permissions':
                     '0600'})
    assert runner.run(node.target(), task).succeeded
    assert path.read_text() == 'secret'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # Nothing else was left beside it.
    assert sorted(os.listdir(path.parent)) == ['settings.yaml']


def test_upload_file_into_a_file_fails_clearly(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    node.file('plain').write_text('x')
    task = TaskSpec('upload', 'upload_file',
                    {'path': str(node.file('plain/sub/file')), 'data': ''})
    result = runner.run(node.target(), task)
    assert result.status == base.FAILED
    assert result.reason == '%s on the node is not a directory' % (
        node.file('plain'))


# rsync


def _tree(root) -> dict[str, str]:
    found = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found[os.path.relpath(path, root)] = '-> ' + os.readlink(path)
            elif os.path.isfile(path):
                found[os.path.relpath(path, root)] = open(path).read()
    return found


def test_rsync_copies_a_directory_as_rsync_would(ssh_nodes, runner,
                                                 tmp_path):
    node = ssh_nodes(1)[0]
    src = tmp_path / 'modules'
    (src / 'ntp' / 'manifests').mkdir(parents=True)
    (src / 'ntp' / 'manifests' / 'init.pp').write_text('class ntp {}\n')
    (src / 'README').write_text('modules\n')
    (src / 'latest').symlink_to('ntp')
    (src / 'tool.sh').write_text('#!/bin/sh\n')
    (src / 'tool.sh').chmod(0o750)
    dst = node.file('etc/puppet')

    # No trailing slash: the directory itself lands in dst.
    task = TaskSpec('rsync', 'rsync', {'src': str(src), 'dst': str(dst)})
    result = runner.run(node.target(), task)
    assert result.status == base.SUCCESS, result
    assert _tree(dst) == {'modules/README': 'modules\n',
                          'modules/ntp/manifests/init.pp': 'class ntp {}\n',
                          'modules/latest': '-> ntp',
                          'modules/tool.sh': '#!/bin/sh\n'}
    assert stat.S_IMODE((dst / 'modules' / 'tool.sh').stat().st_mode) \
        == 0o750
    assert result.output_tail.endswith('4 copied, 0 unchanged, 0 deleted')

    # Again: nothing to send. Then a change, a removal, an addition.
    assert runner.run(node.target(), task).output_tail.endswith(
        '0 copied, 4 unchanged, 0 deleted')
    (src / 'README').write_text('modules, changed\n')
    (src / 'tool.sh').unlink()
    (src / 'ntp' / 'templates').mkdir()
    (src / 'ntp' / 'templates' / 'ntp.conf.erb').write_text('server\n')
    (dst / 'modules' / 'stray.pp').write_text('left on the node\n')
    result = runner.run(node.target(), task)
    assert result.status == base.SUCCESS, result
    assert _tree(dst / 'modules') == {
        'README': 'modules, changed\n', 'latest': '-> ntp',
        'ntp/manifests/init.pp': 'class ntp {}\n',
        'ntp/templates/ntp.conf.erb': 'server\n'}


def test_rsync_trailing_slash_copies_the_contents(ssh_nodes, runner,
                                                  tmp_path):
    node = ssh_nodes(1)[0]
    src = tmp_path / 'v1'
    (src / 'a').mkdir(parents=True)
    (src / 'a' / 'one').write_text('1')
    dst = node.file('etc/puppet/modules')
    dst.mkdir(parents=True)
    (dst / 'old').write_text('removed: dst mirrors src/')
    result = runner.run(node.target(), TaskSpec(
        'rsync', 'rsync', {'src': str(src) + '/', 'dst': str(dst)}))
    assert result.status == base.SUCCESS, result
    assert _tree(dst) == {'a/one': '1'}


def test_rsync_a_file(ssh_nodes, runner, tmp_path):
    node = ssh_nodes(1)[0]
    src = tmp_path / 'hosts'
    src.write_text('127.0.0.1 localhost\n')
    dst = node.file('etc')
    result = runner.run(node.target(), TaskSpec(
        'rsync', 'rsync', {'src': str(src), 'dst': str(dst)}))
    assert result.status == base.SUCCESS, result
    assert (dst / 'hosts').read_text() == '127.0.0.1 localhost\n'


def test_rsync_of_a_missing_src_fails(ssh_nodes, runner, tmp_path):
    node = ssh_nodes(1)[0]
    result = runner.run(node.target(), TaskSpec(
        'rsync', 'rsync', {'src': str(tmp_path / 'nope'),
                           'dst': str(node.root)}))
    assert result.status == base.FAILED
    assert result.reason == ("src %s does not exist on the conductor's "
                             "machine" % (tmp_path / 'nope'))


# puppet


def test_puppet_apply_with_changes_succeeds(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    node.set_puppet(exit_code=2, output='Notice: Applied catalog\n')
    task = TaskSpec('setup_services', 'puppet', {
        'puppet_manifest': '/etc/puppet/manifests/controller.pp',
        'puppet_modules': '/etc/puppet/modules', 'timeout': 360,
        'cwd': str(node.root)})
    result = runner.run(node.target(), task)
    assert result.status == base.SUCCESS, result
    assert result.exit_status == 2
    assert result.output_tail == 'Notice: Applied catalog'
    [run] = node.puppet_runs()
    assert run['manifest'] == '/etc/puppet/manifests/controller.pp'
    assert run['modulepath'] == '/etc/puppet/modules'
    assert run['cwd'] == str(node.root)
    assert run['args'][:2] == ['apply', '--detailed-exitcodes']


@pytest.mark.parametrize('code,reason', [
    (4, 'puppet apply: some resources failed (exit status 4)'),
    (6, 'puppet apply: changes applied and some resources failed '
        '(exit status 6)'),
    (1, 'puppet apply failed (exit status 1)'),
])
def test_puppet_failures(ssh_nodes, runner, code, reason):
    node = ssh_nodes(1)[0]
    node.set_puppet(exit_code=code, output='Error: Could not apply\n')
    result = runner.run(node.target(), TaskSpec('p', 'puppet', {}))
    assert (result.status, result.exit_status, result.reason) == (
        base.FAILED, code, reason)
    assert result.output_tail == 'Error: Could not apply'


def test_puppet_defaults_and_the_specs_spelling(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    assert runner.run(node.target(), TaskSpec('p', 'puppet', {})).succeeded
    # The spec's example writes puppet_manifests.
    assert runner.run(node.target(), TaskSpec('p', 'puppet', {
        'puppet_manifests': '/etc/puppet/manifests/controller.pp'})
    ).succeeded
    runs = node.puppet_runs()
    assert [(run['manifest'], run['modulepath'], run['cwd'])
            for run in runs] == [
        ('/etc/puppet/manifests/site.pp', '/etc/puppet/modules', '/'),
        ('/etc/puppet/manifests/controller.pp', '/etc/puppet/modules', '/')]


def test_puppet_timeout(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    node.set_puppet(sleep=30)
    result = runner.run(node.target(), TaskSpec('p', 'puppet',
                                                {'timeout': 0.5}))
    assert result.status == base.TIMEOUT
    wait_for(lambda: not _processes_with(str(node.run.bin_dir / 'puppet')),
             timeout=5, what='puppet to be killed')


# Unreachable nodes.


def test_sshd_down_is_unreachable_quickly(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    node.stop()
    started = time.monotonic()
    result = runner.run(node.target(), shell('true'))
    assert time.monotonic() - started < 2
    assert result.status == base.UNREACHABLE
    assert result.reason == 'connection refused by 127.0.0.1:%d' % node.port


def test_wrong_key_is_unreachable(ssh_nodes, runner, tmp_path):
    node = ssh_nodes(1)[0]
    other = sshd.make_key_pair(tmp_path / 'other').read_text()
    result = runner.run(node.target(private_key=other), shell('true'))
    assert result.status == base.UNREACHABLE
    assert result.reason == ("authentication failed: 127.0.0.1:%d refused "
                             "the key for user %r" % (node.port,
                                                      node.run.user))


def test_host_key_mismatch_is_unreachable(ssh_nodes, runner):
    nodes = ssh_nodes(2)
    result = runner.run(nodes[0].target(host_key=nodes[1].host_key),
                        shell('touch "$NODE_ROOT/ran"'))
    assert result.status == base.UNREACHABLE
    assert result.reason == (
        'host key mismatch: 127.0.0.1:%d did not present the host key the '
        'design gives for node-1' % nodes[0].port)
    assert not nodes[0].file('ran').exists()
    # Without a host key, the first one seen is accepted.
    assert runner.run(nodes[0].target(host_key=None),
                      shell('true')).succeeded


def test_hung_sshd_times_out_connecting(ssh_nodes):
    node = ssh_nodes(1)[0]
    node.freeze()
    runner = SSHTaskRunner(connect_timeout=1)
    try:
        started = time.monotonic()
        result = runner.run(node.target(), shell('true'))
        assert time.monotonic() - started < 3
    finally:
        node.thaw()
        runner.close()
    assert result.status == base.UNREACHABLE
    assert result.reason == ('timed out connecting to 127.0.0.1:%d after 1s'
                             % node.port)


def test_a_bad_key_text_is_unreachable_without_showing_it(ssh_nodes,
                                                          runner):
    node = ssh_nodes(1)[0]
    bad = node.run.client_key.replace('\n', '\nXX', 3)
    result = runner.run(node.target(private_key=bad), shell('true'))
    assert result.status == base.UNREACHABLE
    assert result.reason == ('the private key for node-1 could not be read: '
                             'it must be an unencrypted PEM or OpenSSH '
                             'private key')


# Secrets.


def test_private_key_never_shown(ssh_nodes, runner, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    asyncssh.set_debug_level(2)
    try:
        nodes = ssh_nodes(2)
        key = nodes.client_key
        key_file = nodes[0].file('id_ed25519')
        key_file.write_text(key)
        down = nodes[1]
        down.stop()
        results = [
            runner.run(nodes[0].target(), shell('cat %s' % key_file)),
            runner.run(nodes[0].target(), shell('cat %s; exit 1'
                                                % key_file)),
            runner.run(nodes[0].target(), shell('sleep 5', timeout=0.3)),
            runner.run(down.target(), shell('true')),
            runner.run(nodes[0].target(host_key=down.host_key),
                       shell('true')),
            runner.run(nodes[0].target(private_key=key.replace(
                'A', 'B', 1)), shell('true')),
        ]
    finally:
        asyncssh.set_debug_level(1)
    assert [r.status for r in results] == [
        base.SUCCESS, base.FAILED, base.TIMEOUT, base.UNREACHABLE,
        base.UNREACHABLE, base.UNREACHABLE]
    assert results[0].output_tail == '******'
    body = [line for line in key.splitlines() if '-----' not in line]
    shown = ' '.join([repr(r) for r in results] +
                     [str(r.as_dict()) for r in results] +
                     [caplog.text, repr(nodes[0].target()), repr(runner)])
    assert len(caplog.records) > 10  # asyncssh's debug log was captured
    for line in body:
        assert line not in shown
        assert line[10:40] not in shown


# Connections.


def test_one_connection_per_node_for_many_tasks(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    for i in range(20):
        task = (shell('echo %d >> "$NODE_ROOT/count"' % i) if i % 2 else
                TaskSpec('u', 'upload_file', {
                    'path': str(node.file('up/%d' % i)), 'data': str(i)}))
        assert runner.run(node.target(), task).succeeded
    assert len(node.file('count').read_text().split()) == 10
    assert node.connections() == 1
    assert node.logins() == 1
    assert runner.connections_opened == 1


def test_reconnects_after_the_node_restarts(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    assert runner.run(node.target(), shell('true')).succeeded
    node.stop()             # drops the open connection too
    assert runner.run(node.target(), shell('true')).status == \
        base.UNREACHABLE
    node.start()
    result = runner.run(node.target(), shell('echo back'))
    assert (result.status, result.output_tail) == (base.SUCCESS, 'back')
    assert node.logins() == 2


def test_a_hung_connection_is_replaced(ssh_nodes):
    node = ssh_nodes(1)[0]
    runner = SSHTaskRunner(connect_timeout=1)
    try:
        assert runner.run(node.target(), shell('true')).succeeded
        # The node's side of the open connection stops answering, as
        # after a network partition; its sshd still takes new ones.
        hung = sshd.descendants(node.process.pid)
        for pid in hung:
            os.kill(pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            result = runner.run(node.target(), shell('echo again'))
            elapsed = time.monotonic() - started
        finally:
            for pid in hung:
                os.kill(pid, signal.SIGCONT)
        assert runner.connections_opened == 2
    finally:
        runner.close()
    assert (result.status, result.output_tail) == (base.SUCCESS, 'again')
    assert 1 <= elapsed < 4
    assert node.logins() == 2


def test_idle_connections_are_closed(ssh_nodes):
    node = ssh_nodes(1)[0]
    runner = SSHTaskRunner(idle_timeout=1)
    try:
        assert runner.run(node.target(), shell('true')).succeeded
        wait_for(lambda: 'Disconnected from user' in node.log(), timeout=10,
                 what='the idle connection to be closed')
        assert runner.run(node.target(), shell('true')).succeeded
    finally:
        runner.close()
    assert node.logins() == 2


def test_many_nodes_at_once(ssh_nodes):
    nodes = ssh_nodes(30)
    # Thirty key exchanges at once with sshd, on two cores busy with the
    # other test workers, took longer than the other tests' 5 s.
    runner = SSHTaskRunner(connect_timeout=30, kill_grace=0.5)
    try:
        _run_five_tasks_on_each(runner, nodes)
    finally:
        runner.close()


def _run_five_tasks_on_each(runner, nodes) -> None:
    def work(node):
        return [runner.run(node.target(), shell(
            'echo "%s $NODE_NAME" >> "$NODE_ROOT/ran"' % i))
            for i in range(5)]

    with concurrent.futures.ThreadPoolExecutor(30) as pool:
        results = [r for rs in pool.map(work, nodes) for r in rs]
    assert [r.status for r in results] == [base.SUCCESS] * 150
    for node in nodes:
        assert node.file('ran').read_text().splitlines() == [
            '%d %s' % (i, node.name) for i in range(5)]
        assert node.connections() == 1
    assert runner.connections_opened == 30


# Contract.


def test_loaded_by_its_entry_point():
    manager = driver.DriverManager(base.ENTRY_POINT_GROUP, 'ssh',
                                   invoke_on_load=True)
    try:
        assert isinstance(manager.driver, SSHTaskRunner)
        assert manager.driver.types == {'shell', 'upload_file', 'rsync',
                                        'puppet'}
    finally:
        manager.driver.close()


def test_bad_tasks_fail_without_connecting(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    results = [runner.run(node.target(), TaskSpec('x', 'shell', {})),
               runner.run(node.target(), TaskSpec('x', 'reboot', {})),
               runner.run(node.target(), TaskSpec(
                   'x', 'upload_file', {'path': 'relative', 'data': ''}))]
    assert [(r.status, r.reason) for r in results] == [
        (base.FAILED, "shell task needs parameter 'cmd'"),
        (base.FAILED, "the ssh task runner does not run tasks of type "
                      "'reboot'"),
        (base.FAILED, "upload_file task parameter 'path': must be an "
                      "absolute path on the node")]
    assert node.connections() == 0


def test_close_then_run_again(ssh_nodes, runner):
    node = ssh_nodes(1)[0]
    assert runner.run(node.target(), shell('true')).succeeded
    runner.close()
    assert runner.run(node.target(), shell('true')).succeeded
    assert node.logins() == 2


def test_the_fixture_journal_shows_what_ran_where_in_order(ssh_nodes,
                                                           runner):
    nodes = ssh_nodes(2)
    nodes.install_script('run_setup_network.sh',
                         '#!/bin/sh\nrecord setup_network "$@"\n')
    for node in nodes:
        assert runner.run(node.target(), shell(
            'run_setup_network.sh --fast')).succeeded
        assert runner.run(node.target(), TaskSpec('setup_services', 'puppet', {
            'puppet_manifest': '/etc/puppet/manifests/controller.pp'})
        ).succeeded
    assert [(entry.node, entry.what) for entry in nodes.journal()] == [
        ('node-1', 'setup_network --fast'),
        ('node-1', 'puppet /etc/puppet/manifests/controller.pp'),
        ('node-2', 'setup_network --fast'),
        ('node-2', 'puppet /etc/puppet/manifests/controller.pp')]
    times = [entry.time for entry in nodes.journal()]
    assert times == sorted(times) and times[0] > time.time() - 60
