"""The process that owns one BMC's pyghmi session (forked by
``session_forker`` for ``sessions``).

pyghmi keeps every session of a process, their timers and its socket loop
in process-wide state behind process-wide locks, and a thread waiting on
one BMC also runs the other sessions' timeouts and retries. In one
process, a BMC that did not answer, or refused a login, held the other
BMCs' calls and the exit with it (issue 26). So each BMC's session lives
in a process of its own, used by one thread, one call at a time: whatever
pyghmi does there can only hold up that BMC. The conductor bounds each
call by killing the process when the call's time is up.

A session that broke (no answer, credentials refused) ends its process
once the answer is sent, so the next call starts with pyghmi's state
clean. An idle process keeps its session alive (pyghmi's keepalive) and
logs out after ``idle_timeout`` seconds without a call.

Messages over the pipe, pickled:

- conductor to here: ``(operation, args)``, an operation of
  ``operations`` with its arguments; or None: log out and end.
- here to conductor: ``(outcome, value, ending)``: ``OK`` and the
  operation's answer; ``REJECTED``, ``NO_ANSWER`` or ``FAILED`` and what
  went wrong; or ``IDLE``, sent when the process ends for idleness: a
  request found behind it was never read, and may be sent to a new
  process. ``ending``: the process ends after this answer.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from multiprocessing import connection
from typing import Any

from pyghmi import exceptions as pyghmi_exc
from pyghmi.ipmi import command as ipmi_command
from pyghmi.ipmi.private import session as ipmi_session

from ironside.drivers.modules.ipmi.session_outcomes import FAILED
from ironside.drivers.modules.ipmi.session_outcomes import IDLE
from ironside.drivers.modules.ipmi.session_outcomes import NO_ANSWER
from ironside.drivers.modules.ipmi.session_outcomes import OK
from ironside.drivers.modules.ipmi.session_outcomes import REJECTED

# Seconds between turns of pyghmi's loop while idle (its keepalives).
IDLE_TICK = 1.0

# pyghmi reports a BMC that stopped answering with these messages...
_UNREACHABLE = ('session no longer connected', 'timeout',
                'session failed to initialize', 'unable to transmit')
# ... and credentials the BMC refused with these (its RAKP status codes).
_REJECTED = ('incorrect password', 'unauthorized name',
             'invalid integrity check', 'insufficient privilege',
             'unauthorized role', 'invalid role', 'invalid username',
             'unauthorized guid')


def classify(exc: Exception) -> tuple[str, str]:
    """(outcome, text) of what pyghmi raised."""
    text = str(exc)
    if text in ('', 'None'):
        # pyghmi raises IpmiException(None) when a login times out.
        return NO_ANSWER, 'no answer'
    lowered = text.lower()
    if any(marker in lowered for marker in _REJECTED):
        return REJECTED, text
    if any(marker in lowered for marker in _UNREACHABLE):
        return NO_ANSWER, text
    return FAILED, text


class _Session:
    """The BMC's pyghmi Command, opened at the first call."""

    def __init__(self, address: str, port: int, username: str,
                 password: str) -> None:
        self._login = dict(bmc=address, port=port, userid=username,
                           password=password)
        self.command: ipmi_command.Command | None = None

    @property
    def broken(self) -> bool:
        return self.command is not None and bool(
            getattr(self.command.ipmi_session, 'broken', False))

    def run(self, operation: Callable[..., Any], args: tuple[object, ...]
            ) -> tuple[str, Any, bool]:
        """(outcome, value, whether this process must end after it)."""
        if self.broken:
            return NO_ANSWER, 'the session to the BMC broke while idle', True
        try:
            if self.command is None:
                self.command = ipmi_command.Command(**self._login)
            return OK, operation(self.command, *args), self.broken
        except pyghmi_exc.IpmiException as exc:
            outcome, text = classify(exc)
            return outcome, text, outcome != FAILED or self.broken
        except OSError as exc:  # e.g. a host name that does not resolve
            return NO_ANSWER, str(exc), True
        except Exception as exc:  # not pyghmi's: its state is unknown
            return FAILED, '%s: %s' % (type(exc).__name__, exc), True

    def idle(self) -> None:
        """One turn of pyghmi's loop: keepalives, late answers."""
        if self.command is not None and not self.broken:
            ipmi_session.Session.wait_for_rsp(timeout=0)

    def log_out(self) -> None:
        if self.command is None or self.broken:
            return
        try:
            self.command.ipmi_session.logout()
        except Exception:  # a dying BMC must not keep this process
            pass


def serve(conn: connection.Connection, address: str, port: int,
          username: str, password: str, idle_timeout: float) -> None:
    """The process's life: answer calls until told to end, the session
    broke, the conductor went away, or nobody called for a while."""
    # ^C in a terminal reaches the whole process group; the conductor
    # decides when this ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    session = _Session(address, port, username, password)
    idle_since = time.monotonic()
    while True:
        if not conn.poll(IDLE_TICK):
            if time.monotonic() - idle_since > idle_timeout or \
                    session.broken:
                _send(conn, (IDLE, None, True))
                session.log_out()
                return
            session.idle()
            continue
        try:
            request = conn.recv()
        except (EOFError, OSError):
            request = None  # the conductor is gone
        if request is None:
            session.log_out()
            return
        operation, args = request
        answer = session.run(operation, args)
        if not _send(conn, answer) or answer[2]:
            return
        idle_since = time.monotonic()


def _send(conn: connection.Connection, answer: tuple[object, ...]) -> bool:
    """Send ``answer``; False when the conductor is gone."""
    try:
        conn.send(answer)
    except OSError:
        return False
    return True
