"""A task runner without a network: each node is a directory here.

It runs ``shell`` and ``puppet`` tasks as processes of this machine, and
``upload_file`` and ``rsync`` as copies, inside the node's own directory
(``<base>/<node name>``: a node's ``/etc/x`` is ``<base>/<node>/etc/x``,
its ``cwd /`` is the directory itself). Commands get ``NODE_NAME``,
``NODE_ROOT`` (and ``HOME``) set to the node's name and directory.

It is the task transport of the in-memory site (:mod:`.memory_nodes`):
the site layer's tests and benchmarks run real processes through it,
with real exit statuses, timeouts and output, without an SSH server.
It lives with the tests, never in the product: it would run a design's
commands on the conductor itself. ``down`` makes a node unreachable, as
a node whose SSH server does not answer.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from collections.abc import Sequence

from ironside.common import exception
from ironside.strategy.tasks import parameters
from ironside.strategy.tasks.base import FAILED
from ironside.strategy.tasks.base import SUCCESS
from ironside.strategy.tasks.base import TIMEOUT
from ironside.strategy.tasks.base import UNREACHABLE
from ironside.strategy.tasks.base import TaskResult
from ironside.strategy.tasks.base import TaskSpec
from ironside.strategy.tasks.base import TaskTarget
from ironside.strategy.tasks.output import OutputTail

# puppet apply --detailed-exitcodes: 0 nothing to do, 2 changes applied.
PUPPET_SUCCESS = (0, 2)
KILL_GRACE = 1.0


class LocalTaskRunner:
    types = frozenset({parameters.SHELL, parameters.PUPPET,
                       parameters.UPLOAD_FILE, parameters.RSYNC})

    def __init__(self, base_dir: str | os.PathLike,
                 env: Mapping[str, str] | None = None,
                 path: Sequence[str] = ()) -> None:
        self.base_dir = pathlib.Path(base_dir)
        self.env = dict(env or {})
        self.path = list(path)
        # Node names whose "SSH" does not answer.
        self.down: set[str] = set()

    def root(self, node: str) -> pathlib.Path:
        return self.base_dir / node

    def file(self, node: str, path: str) -> pathlib.Path:
        return self.root(node) / path.lstrip('/')

    def run(self, target: TaskTarget, task: TaskSpec) -> TaskResult:
        started = time.monotonic()

        def result(status: str, **values) -> TaskResult:
            return TaskResult(task=task.id, node=target.node_name,
                              status=status,
                              duration=time.monotonic() - started, **values)

        if target.node_name in self.down:
            return result(UNREACHABLE, reason='%s:%d refused the connection'
                          % (target.address, target.port))
        try:
            params = parameters.resolve(task.type, task.parameters)
        except exception.InvalidParameterValue as exc:
            return result(FAILED, reason=str(exc))
        timeout = parameters.timeout_of(task.type, params, task.timeout)
        root = self.root(target.node_name)
        root.mkdir(parents=True, exist_ok=True)
        if task.type == parameters.UPLOAD_FILE:
            path = self.file(target.node_name, params['path'])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(params['data'])
            path.chmod(int(params['permissions'], 8))
            return result(SUCCESS, output_tail='wrote %s' % params['path'])
        if task.type == parameters.RSYNC:
            shutil.copytree(params['src'], self.file(target.node_name,
                                                     params['dst']),
                            dirs_exist_ok=True)
            return result(SUCCESS, output_tail='copied %s to %s' % (
                params['src'], params['dst']))
        if task.type == parameters.SHELL:
            argv = ['/bin/sh', '-c', params['cmd']]
        else:
            argv = ['puppet', 'apply', '--detailed-exitcodes',
                    '--modulepath=%s' % params['puppet_modules'],
                    params['puppet_manifest']]
        cwd = self.file(target.node_name, params['cwd'])
        cwd.mkdir(parents=True, exist_ok=True)
        code, output, timed_out = self._command(argv, cwd, target.node_name,
                                                timeout)
        if timed_out:
            return result(TIMEOUT, output_tail=output, reason=(
                'did not finish within %gs; its processes were killed'
                % timeout))
        good = PUPPET_SUCCESS if task.type == parameters.PUPPET else (0,)
        if code in good:
            return result(SUCCESS, exit_status=code, output_tail=output)
        return result(FAILED, exit_status=code, output_tail=output,
                      reason='exited with status %s' % code)

    def _command(self, argv: list[str], cwd: pathlib.Path, node: str,
                 timeout: float) -> tuple[int | None, str, bool]:
        env = dict(os.environ, **self.env)
        env.update(NODE_NAME=node, NODE_ROOT=str(self.root(node)),
                   HOME=str(self.root(node)),
                   PATH=os.pathsep.join(self.path + [env.get('PATH', '')]))
        tail = OutputTail()
        try:
            process = subprocess.Popen(
                argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                start_new_session=True)
        except OSError as exc:
            return 127, str(exc), False
        try:
            output, _ = process.communicate(timeout=timeout)
            tail.append(output)
            return process.returncode, tail.text(), False
        except subprocess.TimeoutExpired:
            _kill(process)
            output, _ = process.communicate()
            tail.append(output or b'')
            return None, tail.text(), True

    def close(self) -> None:
        """Nothing is kept open."""


def _kill(process: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(KILL_GRACE)
            return
        except subprocess.TimeoutExpired:
            continue
