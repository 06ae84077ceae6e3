"""The SSH task runner: Fuel's node tasks on deployed nodes, over SSH.

Runs ``shell``, ``upload_file``, ``rsync`` and ``puppet`` tasks (Fuel's
parameters, :mod:`ironside.strategy.tasks.parameters`) on the node a
:class:`TaskTarget` names, logging in with the target's private key and,
when the target gives one, checking the node's host key. Entry point
``ssh`` of ``ironside.site.task_runners``; options in ``[ssh_tasks]``.

Why asyncssh and not paramiko: both were measured (2 cores, 200 local
sshd, every node connecting then running ten ``true`` one after the
other, all nodes at once): asyncssh 361-374 tasks/s, 1.2 ms of client
CPU a task, 51 MiB; paramiko with a thread per node 395 tasks/s,
1.1-1.2 ms, 57-59 MiB. The sshd side, forking a shell per task, is the
bottleneck for both. What decides is the shape: asyncssh serves every
connection from one event loop thread, where paramiko needs a transport
thread per connection besides the callers' (400 threads for 200 nodes);
asyncio gives timeouts and cancellation of a running task for free
(paramiko's blocking reads need polling); asyncssh reports stdout and
stderr in arrival order on one callback (the tail keeps them
interleaved), and its SFTP client copies trees and checks host keys
against a key given as text.

How it runs: one event loop in one daemon thread serves every node.
:meth:`SSHTaskRunner.run` is synchronous for the site layer's worker
threads: it hands the task to the loop (``run_coroutine_threadsafe``)
and waits for its result. One connection per node is reused by all its
tasks (:mod:`.ssh_connections`); commands are in :mod:`.ssh_commands`,
file copies in :mod:`.ssh_files`.

Results: ``success``; ``failed`` with the exit status (or the signal),
the reason and the output tail; ``timeout`` after the task's timeout,
its processes killed; ``unreachable`` when the node cannot be connected
or logged in to. The runner never raises for what happens on a node.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any
from typing import TypeVar

import asyncssh

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.strategy.tasks import parameters
from ironside.strategy.tasks import ssh_commands
from ironside.strategy.tasks import ssh_files
from ironside.strategy.tasks.base import FAILED
from ironside.strategy.tasks.base import SUCCESS
from ironside.strategy.tasks.base import TIMEOUT
from ironside.strategy.tasks.base import UNREACHABLE
from ironside.strategy.tasks.base import TaskResult
from ironside.strategy.tasks.base import TaskSpec
from ironside.strategy.tasks.base import TaskTarget
from ironside.strategy.tasks.ssh_connections import ConnectionPool
from ironside.strategy.tasks.ssh_connections import Unreachable

LOG = logging.getLogger(__name__)
T = TypeVar('T')


class _SessionTimeout(Exception):
    """A kept connection gave no session in time: hung, as good as dead."""


# Errors that mean the connection died under us, not that the task failed.
_CONNECTION_ERRORS = (asyncssh.ChannelOpenError, asyncssh.ConnectionLost,
                      asyncssh.DisconnectError, ConnectionError,
                      BrokenPipeError, EOFError, _SessionTimeout)

# puppet apply --detailed-exitcodes: 0 nothing to change, 2 changes
# applied (both success, as Fuel judged them); the rest fail.
_PUPPET_SUCCESS = (0, 2)
# By exit status (None: the command reported none).
_PUPPET_REASONS: dict[int | None, str] = {
    1: 'puppet apply failed (exit status 1)',
    4: 'puppet apply: some resources failed (exit status 4)',
    6: 'puppet apply: changes applied and some resources failed '
       '(exit status 6)',
}


class SSHTaskRunner:
    """Runs node tasks over SSH. Thread-safe; one instance per process."""

    types = frozenset({parameters.SHELL, parameters.UPLOAD_FILE,
                       parameters.RSYNC, parameters.PUPPET})

    def __init__(self, connect_timeout: float | None = None,
                 max_concurrent_connects: int | None = None,
                 keepalive_interval: float | None = None,
                 idle_timeout: float | None = None,
                 kill_grace: float | None = None) -> None:
        conf = CONF.ssh_tasks

        def pick(value: T | None, default: T) -> T:
            return default if value is None else value

        self.connect_timeout = pick(connect_timeout, conf.connect_timeout)
        self.max_concurrent_connects = pick(max_concurrent_connects,
                                            conf.max_concurrent_connects)
        self.keepalive_interval = pick(keepalive_interval,
                                       conf.keepalive_interval)
        self.idle_timeout = pick(idle_timeout, conf.idle_timeout)
        self.kill_grace = pick(kill_grace, conf.kill_grace)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pool: ConnectionPool | None = None

    # The TaskRunner protocol.

    def run(self, target: TaskTarget, task: TaskSpec) -> TaskResult:
        started = time.monotonic()
        loop = self._running_loop()
        future = asyncio.run_coroutine_threadsafe(
            self._run(target, task, started), loop)
        try:
            return future.result()
        except Exception as exc:
            # A fault of the runner itself; still the node's result only.
            LOG.exception('SSH task runner error running %s on %s',
                          task.id, target.node_name)
            return _result(target, task, started, FAILED,
                           reason='internal error of the SSH task runner: '
                                  '%s' % type(exc).__name__)

    def close(self) -> None:
        with self._lock:
            loop, thread, pool = self._loop, self._thread, self._pool
            self._loop = self._thread = self._pool = None
        if loop is None or thread is None or pool is None:
            return  # never started (all three are set together)
        try:
            asyncio.run_coroutine_threadsafe(pool.close(), loop).result(30)
        except Exception:
            LOG.warning('SSH connections did not close cleanly',
                        exc_info=True)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()

    @property
    def connections_opened(self) -> int:
        """SSH connections made since start (one per node, plus any
        reconnects)."""
        pool = self._pool
        return pool.opened if pool is not None else 0

    # In the event loop.

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._pool = ConnectionPool(
                    self.connect_timeout, self.max_concurrent_connects,
                    self.keepalive_interval, self.idle_timeout)
                self._thread = threading.Thread(
                    target=loop.run_forever, name='ssh-task-runner',
                    daemon=True)
                self._thread.start()
                self._loop = loop
            return self._loop

    @property
    def _connections(self) -> ConnectionPool:
        """The pool of the running loop (run() starts both)."""
        pool = self._pool
        if pool is None:
            raise RuntimeError('the SSH task runner is closed')
        return pool

    async def _run(self, target: TaskTarget, task: TaskSpec,
                   started: float) -> TaskResult:
        if task.type not in self.types:
            return _result(target, task, started, FAILED,
                           reason='the ssh task runner does not run tasks '
                                  'of type %r' % task.type)
        try:
            params = parameters.resolve(task.type, task.parameters)
        except exception.InvalidParameterValue as exc:
            return _result(target, task, started, FAILED, reason=str(exc))
        timeout = parameters.timeout_of(task.type, params, task.timeout)
        try:
            async with self._connections.lease(target.node_name):
                if task.type in ssh_files.TRANSFERS:
                    result = await self._transfer(target, task, params,
                                                  timeout, started)
                else:
                    result = await self._command(target, task, params,
                                                 timeout, started)
        except Unreachable as exc:
            result = _result(target, task, started, UNREACHABLE,
                             reason=str(exc))
        _log_result(result)
        return result

    async def _open(self, target: TaskTarget,
                    opener: Callable[[asyncssh.SSHClientConnection],
                                     Awaitable[Any]]
                    ) -> tuple[asyncssh.SSHClientConnection, Any]:
        """``opener(connection)`` on the node's connection; once more on
        a new connection when the kept one turns out dead or hung (no
        session within ``connect_timeout``)."""
        connection = await self._connections.connection(target)
        try:
            return connection, await self._opened(connection, opener)
        except _CONNECTION_ERRORS as exc:
            LOG.debug('SSH connection to %s unusable (%s); reconnecting',
                      target.node_name, _why(exc, self.connect_timeout))
        connection = await self._connections.connection(
            target, failed=connection)
        try:
            return connection, await self._opened(connection, opener)
        except _CONNECTION_ERRORS as exc:
            raise Unreachable('%s:%d accepted the login but no session: '
                              '%s' % (target.address, target.port,
                                      _why(exc, self.connect_timeout))
                              ) from None

    async def _opened(self, connection: asyncssh.SSHClientConnection,
                      opener: Callable[[asyncssh.SSHClientConnection],
                                       Awaitable[Any]]) -> Any:
        try:
            return await asyncio.wait_for(opener(connection),
                                          self.connect_timeout)
        except (asyncio.TimeoutError, TimeoutError):
            raise _SessionTimeout() from None

    async def _command(self, target: TaskTarget, task: TaskSpec,
                       params: dict[str, Any], timeout: float,
                       started: float) -> TaskResult:
        if task.type == parameters.SHELL:
            command = ssh_commands.shell_command(params['cmd'], params['cwd'])
        else:
            command = ssh_commands.puppet_command(
                params['puppet_manifest'], params['puppet_modules'],
                params['cwd'])
        connection, (channel, session) = await self._open(
            target, lambda conn: ssh_commands.open_command(conn, command))
        outcome = await ssh_commands.wait_command(
            connection, channel, session, timeout, self.kill_grace)

        def result(status: str, reason: str | None = None) -> TaskResult:
            return _result(target, task, started, status, reason=reason,
                           exit_status=outcome.exit_status,
                           output_tail=outcome.output_tail)

        if outcome.timed_out:
            return result(TIMEOUT, 'did not finish within %gs; its '
                                   'processes were killed' % timeout)
        if outcome.lost:
            return result(FAILED, 'the SSH connection to the node was lost '
                                  'while the task ran')
        if outcome.exit_signal is not None:
            return result(FAILED, 'killed by signal %s' % outcome.exit_signal)
        status = outcome.exit_status
        if task.type == parameters.PUPPET:
            if status in _PUPPET_SUCCESS:
                return result(SUCCESS)
            return result(FAILED, _PUPPET_REASONS.get(
                status, 'puppet apply exited with status %s' % status))
        if status == 0:
            return result(SUCCESS)
        return result(FAILED, 'exited with status %s' % status)

    async def _transfer(self, target: TaskTarget, task: TaskSpec,
                        params: dict[str, Any], timeout: float,
                        started: float) -> TaskResult:
        _connection, sftp = await self._open(
            target, lambda conn: conn.start_sftp_client())
        try:
            summary = await asyncio.wait_for(
                ssh_files.TRANSFERS[task.type](sftp, params), timeout)
        except (asyncio.TimeoutError, TimeoutError):
            return _result(target, task, started, TIMEOUT,
                           reason='did not finish within %gs' % timeout)
        except ssh_files.TransferError as exc:
            return _result(target, task, started, FAILED, reason=str(exc))
        except (*_CONNECTION_ERRORS, asyncssh.SFTPError) as exc:
            return _result(target, task, started, FAILED,
                           reason='the SSH connection to the node failed '
                                  'during the copy: %s' % exc)
        finally:
            sftp.exit()
        return _result(target, task, started, SUCCESS, output_tail=summary)


def _result(target: TaskTarget, task: TaskSpec, started: float, status: str,
            **values: Any) -> TaskResult:
    return TaskResult(task=task.id, node=target.node_name, status=status,
                      duration=time.monotonic() - started, **values)


def _why(exc: Exception, timeout: float) -> str:
    if isinstance(exc, _SessionTimeout):
        return 'no session within %gs' % timeout
    return str(exc) or type(exc).__name__


def _log_result(result: TaskResult) -> None:
    if result.succeeded:
        LOG.debug('task %s on %s: success in %.3fs', result.task,
                  result.node, result.duration)
    else:
        LOG.info('task %s on %s: %s in %.3fs: %s', result.task, result.node,
                 result.status, result.duration, result.reason)
