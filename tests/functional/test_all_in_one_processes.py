"""The all-in-one in one process, its ``--api-process`` form (the API
in a process of its own, calling the conductor over JSON-RPC on
loopback), and ironside-api with an ironside-conductor over JSON-RPC,
without a broker."""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import socket
import time

import pytest

from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import processes
from tests.functional.fixtures import services
from tests.functional.test_metrics_split import _transitions
from tests.functional.test_metrics_split import scrape
from tests.utils import wait_for

pytestmark = pytest.mark.functional


def children(pid: int) -> list[int]:
    found = []
    for entry in pathlib.Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / 'stat').read_text()
        except OSError:
            continue
        # The parent PID is the second field after the command's ")".
        if int(stat.rsplit(')', 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def manage(server, name: str) -> None:
    status, body = server.api('PUT', '/v1/nodes/%s/states/provision' % name,
                              {'target': 'manage'})
    assert status == 202, body
    wait_for(lambda: server.api('GET', '/v1/nodes/%s' % name)[1][
        'provision_state'] == 'manageable', timeout=30)


def api_process(server: ironside_process.AllInOne
                ) -> ironside_process.AllInOne:
    server.process.args += ('--api-process',)
    return server


def test_api_and_conductor_run_in_two_processes(tmp_path):
    with api_process(ironside_process.AllInOne(
            tmp_path, enroll_fake_nodes=1,
            options={'metrics': {'enabled': True}})) as server:
        parent = server.process.process.pid
        (api_pid,) = children(parent)
        manage(server, 'fake-0')
        # A refusal raised in the conductor process reaches the client
        # as Ironic's 400, with its message.
        status, error = server.api('PUT', '/v1/nodes/fake-0/states/'
                                   'provision', {'target': 'active'})
        assert status == 400
        assert 'while it is in state "manageable"' in json.loads(
            error['error_message'])['faultstring']
        # /metrics is the service's: the conductor process counted the
        # transitions, the API process the requests.
        samples = scrape(server.endpoint + '/metrics')
        assert _transitions(samples, 'enroll', 'verifying') == 1
        assert _transitions(samples, 'verifying', 'manageable') == 1
        assert ('ironside_api_requests_total', (
            ('method', 'PUT'),
            ('route', '/v1/nodes/{node_ident}/states/provision'),
            ('status', '202'))) in samples['ironside_api_requests']
        # The conductor process killed: the API process ends too.
        os.kill(parent, signal.SIGKILL)
        wait_for(lambda: not pathlib.Path('/proc/%d' % api_pid).exists()
                 or _zombie(api_pid), timeout=10,
                 what='the API process to end with its conductor process')


def _zombie(pid: int) -> bool:
    try:
        return ') Z ' in pathlib.Path('/proc/%d/stat' % pid).read_text()
    except OSError:
        return True


def test_the_api_process_failing_stops_the_service(tmp_path):
    with api_process(ironside_process.AllInOne(tmp_path)) as server:
        parent = server.process.process.pid
        (api_pid,) = children(parent)
        os.kill(api_pid, signal.SIGKILL)
        wait_for(lambda: not server.process.running, timeout=30,
                 what='ironside to stop once its API process died')
        assert server.process.process.returncode != 0
        assert 'the API process ended (signal 9); stopping' in server.log()


def test_one_process_serves_alone(tmp_path):
    """The default; ``--single-process``, which said so before, is
    still taken."""
    for name, args in (('default', ()), ('single', ('--single-process',))):
        server = ironside_process.AllInOne(tmp_path / name,
                                           enroll_fake_nodes=1)
        server.process.args += args
        with server:
            assert children(server.process.process.pid) == []
            manage(server, 'fake-0')
        assert server.process.process.returncode == 0


def test_a_server_whose_port_was_taken_meanwhile_moves_to_another(
        tmp_path):
    """A port from free_port() can be bound by a parallel test's server
    before this one's: the fixture must not take that server's answers
    for its own (a test then drove another test's API), and chooses
    again."""
    server = ironside_process.AllInOne(tmp_path)
    taken = server.port
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(('127.0.0.1', taken))
        squatter.listen()
        with server:
            assert server.port != taken
            assert server.process.listens_on(server.port)
            assert server.api('GET', '/v1/drivers')[0] == 200
        # A port the test chose itself is not changed behind its back.
        fixed = ironside_process.AllInOne(tmp_path / 'fixed', port=taken)
        with pytest.raises(processes.PortTaken):
            fixed.start()
        fixed.stop()


def test_host_and_port_on_the_command_line(tmp_path):
    """``ironside --host H --port P`` listens there, whatever the
    configuration file says; with ``--fake-nodes-available`` the fake
    nodes are available once it serves."""
    server = ironside_process.AllInOne(tmp_path, enroll_fake_nodes=3)
    configured = services.free_port()
    server.sections['api'] = {'host_ip': '127.0.0.2', 'port': configured}
    server.process.args += ('--host', '127.0.0.1', '--port',
                            str(server.port), '--fake-nodes-available')
    with server:
        status, body = server.api('GET', '/v1/nodes?fields=name,'
                                  'provision_state,power_state')
        assert status == 200, body
        assert [(n['name'], n['provision_state'], n['power_state'])
                for n in body['nodes']] == [
            ('fake-%d' % index, 'available', 'power off')
            for index in range(3)]
        with pytest.raises(OSError):
            socket.create_connection(('127.0.0.2', configured), timeout=2)
    assert server.process.process.returncode == 0


def _timed(api, path):
    started = time.monotonic()
    status, answer = api.api('GET', path)
    return status, answer, time.monotonic() - started


def test_api_and_conductor_over_json_rpc_without_a_broker(tmp_path):
    """ironside-api and ironside-conductor sharing a SQLite file, the API
    calling the conductor at its host name on [json_rpc]port."""
    port = services.free_port()
    sections = {
        'DEFAULT': {'rpc_transport': 'json-rpc',
                    'enabled_hardware_types': 'fake-hardware'},
        'database': {'connection': 'sqlite:///%s' % (tmp_path / 'db')},
        'json_rpc': {'host_ip': '127.0.0.1', 'port': port},
        # The conductor, stopped and then killed below, stays "alive" in
        # the database long enough for the API to try it (with 4 s, a
        # loaded machine found no live conductor instead).
        'conductor': dict(ironside_process.FAST_CONDUCTOR,
                          heartbeat_timeout=60),
        'api': {'rpc_response_timeout': 1, 'rpc_bmc_response_timeout': 2},
    }
    ironside_process.upgrade_database(tmp_path, sections)
    conductor = processes.IronsideProcess(
        'ironside-conductor',
        ironside_process.host_config(tmp_path, sections, 'localhost'),
        tmp_path, 'conductor').start()
    api = ironside_process.SplitApi(tmp_path, sections)
    try:
        api.start()
        wait_for(lambda: [c['hostname'] for c in api.api(
            'GET', '/v1/conductors')[1]['conductors'] if c['alive']] ==
            ['localhost'], timeout=60, what='the conductor to register')
        status, node = api.api('POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 'over-json-rpc'})
        assert status == 201, node
        assert node['conductor'] == 'localhost'
        status, error = api.api('POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 'over-json-rpc'})
        assert status == 409
        assert json.loads(error['error_message'])['faultstring'] == \
            'A node with name over-json-rpc already exists.'
        manage(api, 'over-json-rpc')
        # The conductor hung (it takes connections, answers nothing):
        # 503 after [api]rpc_response_timeout, or for a call that waits
        # on a BMC [api]rpc_bmc_response_timeout, naming it.
        conductor.process.send_signal(signal.SIGSTOP)
        try:
            answers = [(waited, _timed(api, path)) for waited, path in (
                (1, '/v1/drivers/fake-hardware/properties'),
                (2, '/v1/nodes/over-json-rpc/management/boot_device'))]
        finally:
            conductor.process.send_signal(signal.SIGCONT)
        for waited, (status, error, took) in answers:
            assert status == 503, error
            assert re.fullmatch(
                r'Conductor localhost can not be reached at localhost:%d '
                r'\(no answer within %d\.\ds\); please retry\.'
                % (port, waited),
                json.loads(error['error_message'])['faultstring']), error
            # Bounded (it was 60 s); a loaded machine may add a little.
            assert waited <= took < waited + 5
        # The conductor gone: 503, and Ironic's error format.
        conductor.kill()
        conductor.process.wait(timeout=30)
        status, error = api.api('PUT', '/v1/nodes/over-json-rpc/states/'
                                'provision', {'target': 'provide'})
        assert status == 503, error
        assert 'Conductor localhost can not be reached at localhost:%d' \
            % port in json.loads(error['error_message'])['faultstring']
    finally:
        processes.stop_all([api.process, conductor])
