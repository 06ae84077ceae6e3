"""driver_info of ipmi nodes, and the pyghmi sessions kept per BMC.

pyghmi keeps one IPMI session per BMC address, port and credentials in
the process and reuses it; Ironside keeps one ``Command`` object per such
session (so pyghmi's per-command OEM probe runs once), and serialises the
commands sent to one BMC. A session that stops answering is dropped and a
new one is opened on the next attempt, until the node's retry budget is
spent. Sessions are logged out when the process exits.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from typing import TypeVar

from pyghmi import exceptions as pyghmi_exc
from pyghmi.ipmi import command as ipmi_command
from pyghmi.ipmi.private import session as ipmi_session

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import bmc_common

LOG = logging.getLogger(__name__)
T = TypeVar('T')

PROPERTIES = {
    'ipmi_address': 'IP address or host name of the BMC. Required.',
    'ipmi_port': 'UDP port of the BMC. Optional; default 623.',
    'ipmi_username': 'User name on the BMC. Optional; default none.',
    'ipmi_password': 'Password of that user. Optional; default none.',
    'ipmi_retry_timeout': 'Seconds to keep retrying a command to a BMC '
                          'that does not answer. Optional; default '
                          '[ipmi]command_retry_timeout.',
}

# pyghmi reports a BMC that stopped answering with these messages.
_UNREACHABLE = ('session no longer connected', 'timeout',
                'session failed to initialize', 'unable to transmit')
# ... and credentials the BMC refused with these.
_REJECTED = ('incorrect password', 'unauthorized name',
             'invalid integrity check', 'insufficient privilege')


@dataclasses.dataclass(frozen=True)
class IPMIInfo:
    address: str
    port: int
    username: str
    password: str = dataclasses.field(repr=False)
    retry_timeout: float

    @property
    def bmc(self) -> str:
        """How errors and logs name the BMC."""
        return '%s:%d' % (self.address, self.port)

    @property
    def key(self) -> tuple:
        return (self.address, self.port, self.username, self.password)


def parse_driver_info(node: Any) -> IPMIInfo:
    """Typed driver_info; a clear 400 naming the key if it is wrong."""
    info = node.driver_info or {}
    uuid = node.uuid
    return IPMIInfo(
        address=bmc_common.required_str(info, 'ipmi_address', uuid),
        port=bmc_common.port(info, 'ipmi_port', uuid, 623),
        username=bmc_common.optional_str(info, 'ipmi_username', uuid, ''),
        password=bmc_common.optional_str(info, 'ipmi_password', uuid, ''),
        retry_timeout=bmc_common.positive_number(
            info, 'ipmi_retry_timeout', uuid,
            CONF.ipmi.command_retry_timeout))


NO_ANSWER = 'no answer'


def _text(exc: Exception) -> str:
    # pyghmi raises IpmiException(None) when a login times out.
    text = str(exc)
    return NO_ANSWER if text in ('', 'None') else text


def is_unreachable(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(marker in text for marker in _UNREACHABLE)


def is_rejected(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(marker in text for marker in _REJECTED)


# In the one exceptions module, so that it crosses RPC as itself.
CredentialsRejected = exception.IPMICredentialsRejected


@dataclasses.dataclass
class _Entry:
    # Held while a command (or the login) runs against the BMC, and
    # released by the thread that runs it, when pyghmi returns.
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    command: ipmi_command.Command | None = None
    # Callers waiting for the BMC: past [ipmi]max_waiting_calls, refused.
    waiting: int = 0


class SessionCache:
    """One pyghmi Command per BMC and credentials, used one call at a time.

    The BMC's own lock also serialises opening its session, so concurrent
    callers never open two sessions to one BMC.

    A BMC that never answers (pyghmi's login to an unknown user can wait
    for ever) must only hold up its own node: every call runs in a thread
    of its own that keeps the BMC's lock until pyghmi returns, while the
    caller waits at most the node's retry budget; later callers wait for
    the lock within their own budget, and only a few may wait at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple, _Entry] = {}

    def _entry(self, info: IPMIInfo) -> _Entry:
        with self._lock:
            return self._entries.setdefault(info.key, _Entry())

    def _open(self, info: IPMIInfo) -> ipmi_command.Command:
        try:
            return ipmi_command.Command(
                bmc=info.address, userid=info.username,
                password=info.password, port=info.port)
        except pyghmi_exc.IpmiException as exc:
            _forget_failed_login(info)
            if is_rejected(exc):
                raise CredentialsRejected(bmc=info.bmc, user=info.username,
                                          reason=exc) from None
            raise

    def call(self, info: IPMIInfo, action: str,
             func: Callable[[ipmi_command.Command], T]) -> T:
        """Run ``func(command)`` against the BMC, retrying within budget.

        A BMC that does not answer is retried until ``info.retry_timeout``
        is spent, then BMCConnectionFailed names it. An error answer
        (completion code) is not retried: IPMIFailure says what it was.
        """
        deadline = time.monotonic() + info.retry_timeout
        attempt = 0
        entry = self._entry(info)
        while True:
            attempt += 1
            try:
                return self._bounded(entry, info, action, func,
                                     deadline - time.monotonic())
            except pyghmi_exc.IpmiException as exc:
                if not is_unreachable(exc) and _text(exc) != NO_ANSWER:
                    raise exception.IPMIFailure(
                        bmc=info.bmc, reason='%s: %s' % (action, exc)
                    ) from None
                self.drop(info)
                remaining = deadline - time.monotonic()
                if remaining <= CONF.ipmi.retry_interval:
                    raise exception.BMCConnectionFailed(
                        bmc=info.bmc,
                        reason='%s failed after %d attempt(s) in %ss: %s'
                               % (action, attempt,
                                  bmc_common._seconds(info.retry_timeout),
                                  _text(exc))) from None
                LOG.info('BMC %s did not answer %s (attempt %d): %s; '
                         'retrying', info.bmc, action, attempt, exc)
                time.sleep(CONF.ipmi.retry_interval)

    def _bounded(self, entry: _Entry, info: IPMIInfo, action: str,
                 func: Callable[[ipmi_command.Command], T],
                 timeout: float) -> T:
        """Run ``func`` on the BMC's session, waiting at most ``timeout``
        for the BMC to be free and for its answer."""
        with self._lock:
            if entry.waiting >= CONF.ipmi.max_waiting_calls:
                raise exception.BMCBusy(bmc=info.bmc, action=action)
            entry.waiting += 1
        try:
            if not entry.lock.acquire(timeout=max(timeout, 0)):
                raise exception.BMCConnectionFailed(
                    bmc=info.bmc, reason='%s: an earlier command to this '
                    'BMC has not returned' % action)
        finally:
            with self._lock:
                entry.waiting -= 1
        answer: concurrent.futures.Future = concurrent.futures.Future()

        def _run() -> None:
            try:
                if entry.command is None:
                    entry.command = self._open(info)
                answer.set_result(func(entry.command))
            except BaseException as exc:  # handed to the caller
                if isinstance(exc, pyghmi_exc.IpmiException):
                    # The caller may have stopped waiting long ago.
                    self._drop_if_broken(entry, info)
                answer.set_exception(exc)
            finally:
                entry.lock.release()

        threading.Thread(target=_run, daemon=True,
                         name='ipmi %s' % info.bmc).start()
        try:
            return answer.result(timeout=max(timeout, 0.01))
        except concurrent.futures.TimeoutError:
            raise exception.BMCConnectionFailed(
                bmc=info.bmc, reason='%s: no answer within %ss' % (
                    action, bmc_common._seconds(info.retry_timeout))
            ) from None

    def drop(self, info: IPMIInfo) -> None:
        """Forget the BMC's session if pyghmi gave up on it.

        A session pyghmi still considers alive is kept: asking pyghmi for
        a new Command to a BMC it has a live session with blocks forever.
        A BMC still busy with a call is left to that call.
        """
        entry = self._entry(info)
        if not entry.lock.acquire(blocking=False):
            return
        try:
            self._drop_if_broken(entry, info)
        finally:
            entry.lock.release()

    @staticmethod
    def _drop_if_broken(entry: _Entry, info: IPMIInfo) -> None:
        """With the BMC's lock held: forget its session if pyghmi gave up
        on it (see drop)."""
        command = entry.command
        if command is not None and \
                not getattr(command.ipmi_session, 'broken', True):
            return
        entry.command = None
        _forget_failed_login(info)

    def check_credentials(self, info: IPMIInfo, timeout: float) -> None:
        """Open (or reuse) the BMC's session, waiting at most ``timeout``.

        Raises CredentialsRejected when the BMC refuses the credentials.
        A BMC that does not answer in time is not a validation failure:
        the session goes on opening in the background.
        """
        entry = self._entry(info)
        if entry.command is not None:
            return
        try:
            self._bounded(entry, info, 'log in', lambda command: None,
                          timeout)
        except (exception.BMCConnectionFailed, exception.BMCBusy):
            LOG.info('BMC %s did not answer within %ss while validating; '
                     'not a credentials problem', info.bmc, timeout)
        except pyghmi_exc.IpmiException as exc:
            LOG.info('BMC %s could not be reached while validating: %s',
                     info.bmc, exc)

    def close_all(self) -> None:
        """Log out every session (at process exit)."""
        with self._lock:
            entries, self._entries = list(self._entries.items()), {}
        for key, entry in entries:
            command = entry.command
            entry.command = None
            if command is None:
                continue
            if getattr(command.ipmi_session, 'broken', False):
                # Nobody answers there: a logout would wait for a timeout.
                _forget_session(*key)
                continue
            try:
                command.ipmi_session.logout()
            except Exception as exc:  # a dying BMC must not block exit
                LOG.debug('Logout from BMC %s failed: %s', command.bmc, exc)
            _forget_session(*key, broken_only=False)


def _forget_session(address: str, port: int, username: str, password: str,
                    broken_only: bool = True) -> None:
    """Drop pyghmi's record of a session that failed or was logged out.

    pyghmi files a session that is logging in under the credentials as
    given (str) but removes it under the encoded ones (bytes) when it
    breaks or logs out, so the dead session stays there and every later
    ``Command`` for that BMC is handed it. Removing it lets the next
    attempt open a fresh session.
    """
    key = (address, username, password, port, None)
    stale = ipmi_session.Session.initting_sessions.get(key)
    if stale is not None and (not broken_only or
                              getattr(stale, 'broken', False)):
        ipmi_session.Session.initting_sessions.pop(key, None)


def _forget_failed_login(info: IPMIInfo) -> None:
    _forget_session(*info.key)


SESSIONS = SessionCache()
atexit.register(SESSIONS.close_all)


def call(task: base.Task, action: str, func: Callable[[Any], T]) -> T:
    """Run ``func(command)`` on the BMC of ``task.node``."""
    return SESSIONS.call(parse_driver_info(task.node), action, func)


def validate(task: base.Task) -> IPMIInfo:
    """Check driver_info, and the credentials when the BMC answers."""
    info = parse_driver_info(task.node)
    SESSIONS.check_credentials(info, CONF.ipmi.validate_timeout)
    return info
