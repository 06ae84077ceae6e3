"""The conductor's IPMI sessions: one process per BMC, one call at a time.

Each BMC (address, port and credentials) gets a process of its own that
owns its pyghmi session (``session_process`` says why), forked by
``session_forker``, which has pyghmi loaded: about 20 ms and 7 MB
each. Calls to one BMC take turns on its process; a few may wait for
their turn (``[ipmi]max_waiting_calls``), more are refused at once.
Every call is bounded by its node's retry budget: a BMC that does not
answer is asked again in a fresh process until the budget is spent, and
a process still busy when it is spent is killed. A BMC that refuses the
credentials is remembered (``[ipmi]rejected_credentials_interval``), and
calls with those credentials are refused at once without asking it
again.

At most ``[ipmi]max_session_processes`` processes are kept: past that,
the least recently used idle one logs out to make room. When the process
begins to stop (``stopping.begin``), calls give up within
``STOP_GRACE`` seconds; at exit every session is logged out, and
processes still busy are killed.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any
from typing import TypeVar

from ironside.common import exception
from ironside.common import stopping
from ironside.common.conf import CONF
from ironside.drivers.modules import bmc_common
from ironside.drivers.modules.ipmi import session_forker
from ironside.drivers.modules.ipmi import session_outcomes

LOG = logging.getLogger(__name__)
T = TypeVar('T')
# What a session process is asked: an operation and its arguments.
Request = tuple[Callable[..., Any], tuple[Any, ...]]

# Seconds a call may still wait for its BMC once the process is stopping.
STOP_GRACE = 0.5
# Seconds between looks at whether the process is stopping while waiting.
_WAIT_SLICE = 0.2

_FORKER = session_forker.Forker()


@dataclasses.dataclass(frozen=True)
class BMC:
    """A BMC and the credentials a call uses on it."""

    address: str
    port: int
    username: str
    password: str = dataclasses.field(repr=False)

    @property
    def name(self) -> str:
        """How errors and logs name the BMC."""
        return '%s:%d' % (self.address, self.port)


class _NoAnswer(Exception):
    """One attempt got no answer from the BMC."""


class _Unread(Exception):
    """The process ended idle before reading the request: send it again."""


class _SessionProcess:
    """The process holding one BMC's session, seen from the conductor."""

    def __init__(self, bmc: BMC, deadline: float) -> None:
        self._conn, self.pid = _FORKER.fork(
            (bmc.address, bmc.port, bmc.username, bmc.password,
             CONF.ipmi.session_idle_timeout),
            wait=_deadline(deadline) - time.monotonic())
        self.alive = True

    def ask(self, request: Request, deadline: float) -> tuple[str, Any]:
        """Send ``request`` and wait for the answer until ``deadline``
        (earlier once the process is stopping).

        Raises _NoAnswer when time is up (the process is killed: it may
        be stuck in pyghmi) or the process ended without answering, and
        _Unread when it ended idle without reading the request.
        """
        try:
            self._conn.send(request)
            while not self._conn.poll(min(_WAIT_SLICE, max(
                    0.0, _deadline(deadline) - time.monotonic()))):
                if time.monotonic() >= _deadline(deadline):
                    self.kill()
                    self.close()
                    raise _NoAnswer('no answer in time')
            outcome, value, ending = self._conn.recv()
        except (EOFError, OSError):
            self.close()
            raise _NoAnswer('its session process ended') from None
        if ending:
            self.close()
        if outcome == session_outcomes.IDLE:
            raise _Unread()
        return outcome, value

    def retire(self) -> None:
        """Ask it to log out and end; do not wait."""
        if self.alive:
            try:
                self._conn.send(None)
            except OSError:
                pass
        self.close()

    def kill(self) -> None:
        """End it now (the thread waiting on it, if any, sees it end)."""
        self.alive = False
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        self.alive = False
        self._conn.close()


def _deadline(deadline: float) -> float:
    """``deadline``, or earlier once the process began to stop."""
    since = stopping.since()
    if since is None:
        return deadline
    return min(deadline, since + STOP_GRACE)


@dataclasses.dataclass
class _Turns:
    """What the conductor keeps for one BMC and credentials."""

    # Held by the call that uses the BMC's process.
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    process: _SessionProcess | None = None
    # Calls waiting for their turn: past [ipmi]max_waiting_calls, refused.
    waiting: int = 0
    last_used: float = 0.0
    # When the BMC last refused these credentials, and what it said.
    rejected: tuple[float, str] | None = None
    # Since when the BMC has not answered (None: it answered last time).
    silent_since: float | None = None


class Sessions:
    """Every BMC's session process of this conductor."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._turns: dict[BMC, _Turns] = {}

    def call(self, bmc: BMC, action: str, budget: float,
             operation: Callable[..., T], *args: Any,
             exclusive: bool = False) -> T:
        """Run ``operation(command, *args)`` on the BMC within ``budget``
        seconds, asking again while it does not answer.

        ``exclusive``: the caller holds its node's exclusive lock (an
        action: verification, a power change, a step). There is at most
        one such caller per node, so it waits its turn even when
        [ipmi]max_waiting_calls calls wait already; that limit is for the
        reads, which any number of callers may make at once.

        Raises IPMICredentialsRejected (400) when the BMC refuses the
        credentials, now or within [ipmi]rejected_credentials_interval;
        BMCConnectionFailed when it did not answer within the budget;
        BMCBusy when too many calls wait for it; IPMIFailure when it
        answered with an error.
        """
        deadline = time.monotonic() + budget
        if _deadline(deadline) <= time.monotonic():
            raise exception.BMCConnectionFailed(
                bmc=bmc.name, reason='%s: not asked: the conductor is '
                'stopping' % action)
        attempt = 0
        while True:
            attempt += 1
            try:
                with self._turn(bmc, action, deadline,
                                exclusive) as turns:
                    # What the operation returned, from the session
                    # process.
                    value: T = self._attempt(turns, bmc, action, deadline,
                                             (operation, args))
                    return value
            except _NoAnswer as exc:
                remaining = _deadline(deadline) - time.monotonic()
                if stopping.since() is not None:
                    raise exception.BMCConnectionFailed(
                        bmc=bmc.name, reason='%s: %s; not asked again: the '
                        'conductor is stopping' % (action, exc)) from None
                if remaining <= CONF.ipmi.retry_interval:
                    raise exception.BMCConnectionFailed(
                        bmc=bmc.name,
                        reason='%s failed after %d attempt(s) in %ss: %s'
                               % (action, attempt,
                                  bmc_common.format_seconds(budget), exc)
                    ) from None
                LOG.info('BMC %s did not answer %s (attempt %d): %s; '
                         'retrying', bmc.name, action, attempt, exc)
                time.sleep(CONF.ipmi.retry_interval)

    @contextlib.contextmanager
    def _turn(self, bmc: BMC, action: str, deadline: float,
              exclusive: bool) -> Iterator[_Turns]:
        """Wait for the BMC's turn until ``deadline``; refuse at once when
        its credentials were refused, or (unless ``exclusive``) too many
        calls wait already."""
        with self._lock:
            turns = self._turns.setdefault(bmc, _Turns())
            _refuse_if_rejected(turns, bmc)
            if turns.waiting >= CONF.ipmi.max_waiting_calls and \
                    not exclusive:
                raise _too_many(turns, bmc, action)
            turns.waiting += 1
        try:
            while not turns.lock.acquire(timeout=_WAIT_SLICE):
                if time.monotonic() >= _deadline(deadline):
                    raise exception.BMCConnectionFailed(
                        bmc=bmc.name, reason='%s: an earlier command to '
                        'this BMC has not returned' % action)
        finally:
            with self._lock:
                turns.waiting -= 1
        try:
            yield turns
        finally:
            turns.lock.release()

    def _attempt(self, turns: _Turns, bmc: BMC, action: str,
                 deadline: float, request: Request) -> Any:
        """One try, in the BMC's turn."""
        _refuse_if_rejected(turns, bmc)
        try:
            outcome, value = self._ask(turns, bmc, request, deadline)
        except _NoAnswer:
            turns.silent_since = turns.silent_since or time.monotonic()
            raise
        if outcome == session_outcomes.OK:
            turns.silent_since = None
            return value
        if outcome == session_outcomes.FAILED:
            turns.silent_since = None
            raise exception.IPMIFailure(bmc=bmc.name,
                                        reason='%s: %s' % (action, value))
        if outcome == session_outcomes.REJECTED:
            turns.silent_since = None
            turns.rejected = (time.monotonic(), value)
            LOG.warning('BMC %s rejected the credentials of user "%s": %s',
                        bmc.name, bmc.username, value)
            raise exception.IPMICredentialsRejected(
                bmc=bmc.name, user=bmc.username, reason=value)
        turns.silent_since = turns.silent_since or time.monotonic()
        raise _NoAnswer(value)

    def _ask(self, turns: _Turns, bmc: BMC, request: Request,
             deadline: float) -> tuple[str, Any]:
        """The BMC's process answers ``request`` (one started if needed)."""
        for _ in range(2):
            process = _live_process(turns)
            if process is None:
                try:
                    process = turns.process = self._start(bmc, deadline)
                except TimeoutError:
                    raise _NoAnswer('no session process could be started '
                                    'for it in time') from None
                except OSError as exc:
                    raise exception.IPMIFailure(
                        bmc=bmc.name, reason='no session process could be '
                        'started for it: %s' % exc) from None
            turns.last_used = time.monotonic()
            try:
                return process.ask(request, deadline)
            except _Unread:
                continue
        raise _NoAnswer('its session processes ended before reading')

    def _start(self, bmc: BMC, deadline: float) -> _SessionProcess:
        """A new process for ``bmc``, making room first if needed; BMCs
        with neither a process nor a caller are forgotten meanwhile."""
        now = time.monotonic()
        with self._lock:
            for key, turns in list(self._turns.items()):
                if not _has_process(turns) and turns.waiting == 0 and \
                        not turns.lock.locked() and key != bmc and (
                            turns.rejected is None or now - turns.rejected[0]
                            >= CONF.ipmi.rejected_credentials_interval):
                    del self._turns[key]
            idle = sorted((turns for key, turns in self._turns.items()
                           if _has_process(turns) and key != bmc),
                          key=lambda turns: turns.last_used)
        excess = len(idle) + 1 - CONF.ipmi.max_session_processes
        for turns in idle:
            if excess <= 0:
                break
            if not turns.lock.acquire(blocking=False):
                continue  # busy: not idle after all
            try:
                process = _live_process(turns)
                if process is not None:
                    process.retire()
                    turns.process = None
                    excess -= 1
            finally:
                turns.lock.release()
        return _SessionProcess(bmc, deadline)

    def is_open(self, bmc: BMC) -> bool:
        """Whether a live process holds a session to the BMC."""
        turns = self._turns.get(bmc)
        return turns is not None and _has_process(turns)

    def close_all(self) -> None:
        """Log out every session; kill the processes still busy (stuck in
        pyghmi, perhaps). Nothing waits for the logouts."""
        with self._lock:
            everything = list(self._turns.values())
            self._turns = {}
        for turns in everything:
            process, turns.process = turns.process, None
            if process is None:
                continue
            if turns.lock.acquire(blocking=False):
                process.retire()
                turns.lock.release()
            else:
                process.kill()
        _FORKER.close()


def _live_process(turns: _Turns) -> _SessionProcess | None:
    process = turns.process
    return process if process is not None and process.alive else None


def _has_process(turns: _Turns) -> bool:
    return _live_process(turns) is not None


def _refuse_if_rejected(turns: _Turns, bmc: BMC) -> None:
    """IPMICredentialsRejected while the BMC's refusal is remembered."""
    if turns.rejected is None:
        return
    when, reason = turns.rejected
    if time.monotonic() - when < CONF.ipmi.rejected_credentials_interval:
        raise exception.IPMICredentialsRejected(
            bmc=bmc.name, user=bmc.username, reason=reason)
    turns.rejected = None


def _too_many(turns: _Turns, bmc: BMC, action: str
              ) -> exception.IronsideException:
    """BMCBusy; or, for a BMC that stopped answering, say that."""
    if turns.silent_since is None:
        return exception.BMCBusy(bmc=bmc.name, action=action)
    return exception.BMCConnectionFailed(
        bmc=bmc.name, reason='%s refused: it did not answer the last call, '
        'and %d calls already wait for it' % (action, turns.waiting))


def _at_exit() -> None:
    """The interpreter is ending: calls still running give up, and every
    session is logged out."""
    stopping.begin()
    SESSIONS.close_all()


SESSIONS = Sessions()
atexit.register(_at_exit)
