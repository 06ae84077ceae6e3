"""Commands on a node over SSH: ``shell`` and ``puppet`` tasks.

A command runs in a session channel of the node's connection, through
the user's login shell (sshd runs ``$SHELL -c``), in its ``cwd``. The
shell first reports its process id on stderr (one line the runner takes
out of the output): sshd makes each session's shell the leader of a
process group of its own, so on a timeout the runner kills that whole
group — SIGTERM, then SIGKILL after ``kill_grace`` — through a second
channel, then closes the first. OpenSSH's own "signal" channel request
cannot do it: sshd 9.x refuses it ("session signalling requires
privilege separation") for commands as opposed to subsystems.

After that line the shell sends its stderr to its stdout (``exec 2>&1``),
so the tail has both in the order the task wrote them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shlex

import asyncssh

from ironside.strategy.tasks.output import OutputTail

_PID_MARKER = b'ironside-task-pid '
# A line of stderr this long without an end is not the marker line.
_MARKER_LIMIT = 4096


@dataclasses.dataclass
class CommandOutcome:
    exit_status: int | None
    exit_signal: str | None
    timed_out: bool
    output_tail: str
    # The channel closed without an exit status: the connection dropped.
    lost: bool = False


def shell_command(cmd: str, cwd: str) -> str:
    """The text sshd hands to the login shell for a shell task."""
    return _wrapped('cd -- %s && eval %s' % (shlex.quote(cwd),
                                             shlex.quote(cmd)))


def puppet_command(manifest: str, modules: str, cwd: str) -> str:
    """``puppet apply`` with detailed exit codes (0 nothing to do, 2
    changes applied, 4 failures, 6 changes and failures, 1 error)."""
    return _wrapped('cd -- %s && puppet apply --detailed-exitcodes '
                    '--modulepath=%s %s' % (shlex.quote(cwd),
                                            shlex.quote(modules),
                                            shlex.quote(manifest)))


def _wrapped(command: str) -> str:
    # After the marker, stderr joins stdout: one pipe keeps the order in
    # which the task wrote its lines.
    return "printf '%s%%s\\n' \"$$\" >&2; exec 2>&1; %s" % (
        _PID_MARKER.decode(), command)


class _Session(asyncssh.SSHClientSession[bytes]):
    """Collects a command's output and waits for its exit."""

    def __init__(self) -> None:
        self.tail = OutputTail()
        self.pid: int | None = None
        self._stderr_start = b''
        self._marker_done = False
        self.exit_status: int | None = None
        self.exit_signal: str | None = None
        self.closed = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes,
                      datatype: asyncssh.DataType) -> None:
        if datatype == asyncssh.EXTENDED_DATA_STDERR and \
                not self._marker_done:
            self._take_marker(data)
            return
        self.tail.append(data)

    def _take_marker(self, data: bytes) -> None:
        """Find the pid line in stderr; anything the login shell wrote
        there before it (a noisy rc file) stays in the output."""
        self._stderr_start += data
        while not self._marker_done:
            line, newline, rest = self._stderr_start.partition(b'\n')
            if not newline:
                if len(self._stderr_start) > _MARKER_LIMIT:
                    self.tail.append(self._stderr_start)
                    self._stderr_start = b''
                return
            self._stderr_start = rest
            if line.startswith(_PID_MARKER) and \
                    line[len(_PID_MARKER):].isdigit():
                self.pid = int(line[len(_PID_MARKER):])
                self._marker_done = True
            else:
                self.tail.append(line + newline)
        if self._stderr_start:
            self.tail.append(self._stderr_start)
            self._stderr_start = b''

    def exit_status_received(self, status: int) -> None:
        self.exit_status = status

    def exit_signal_received(self, signal: str, core_dumped: bool,
                             msg: str, lang: str) -> None:
        self.exit_signal = signal

    def connection_lost(self, exc: Exception | None) -> None:
        if self._stderr_start:
            self.tail.append(self._stderr_start)
            self._stderr_start = b''
        if not self.closed.done():
            self.closed.set_result(exc)


async def open_command(connection: asyncssh.SSHClientConnection,
                       command: str
                       ) -> tuple[asyncssh.SSHClientChannel[bytes], _Session]:
    """Start ``command``; raises asyncssh.ChannelOpenError or
    ConnectionError when the connection cannot open a channel (then the
    command did not start)."""
    session = _Session()
    channel, _ = await connection.create_session(lambda: session, command,
                                                 encoding=None)
    return channel, session


async def wait_command(connection: asyncssh.SSHClientConnection,
                       channel: asyncssh.SSHClientChannel[bytes],
                       session: _Session,
                       timeout: float, kill_grace: float) -> CommandOutcome:
    """Wait for the command to end, or kill it after ``timeout``."""
    try:
        await asyncio.wait_for(asyncio.shield(session.closed), timeout)
        timed_out = False
    except (asyncio.TimeoutError, TimeoutError):
        timed_out = True
        await _kill(connection, session.pid, kill_grace)
        channel.close()
        try:
            await asyncio.wait_for(asyncio.shield(session.closed),
                                   kill_grace + 5)
        except (asyncio.TimeoutError, TimeoutError):
            channel.abort()
    lost = (not timed_out and session.exit_status is None
            and session.exit_signal is None)
    return CommandOutcome(session.exit_status, session.exit_signal,
                          timed_out, session.tail.text(), lost)


async def _kill(connection: asyncssh.SSHClientConnection, pid: int | None,
                grace: float) -> None:
    """SIGTERM the command's process group, SIGKILL what is left after
    ``grace`` seconds."""
    if pid is None or connection.is_closed():
        return
    group = '-%d' % pid
    steps = max(int(grace / 0.1), 1)
    script = ('kill -TERM -- {g} 2>/dev/null || exit 0; i=0; '
              'while [ "$i" -lt {n} ] && kill -0 -- {g} 2>/dev/null; '
              'do sleep 0.1; i=$((i+1)); done; '
              'kill -KILL -- {g} 2>/dev/null; exit 0'
              ).format(g=group, n=steps)
    try:
        await asyncio.wait_for(connection.run(script, check=False),
                               grace + 10)
    except (asyncio.TimeoutError, TimeoutError, asyncssh.Error, OSError):
        # The channel close that follows still ends a command that
        # reads or writes; nothing more can be done from here.
        pass
