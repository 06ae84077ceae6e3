"""driver_info of redfish nodes, and the sushy connections kept per BMC.

One ``sushy.Sushy`` root per BMC address and credentials is kept (least
recently used ones are dropped past [redfish]connection_cache_size) and
shared by every node behind that BMC. A connection the BMC stops
accepting (HTTP 401) is replaced by a fresh one once; if the new one is
refused too, the credentials are wrong.

How long a call spends on a BMC that does not answer is bounded (the
budget the [redfish] options document):

- a BMC that cannot be reached (refused, no route, no TCP connection
  within [redfish]connect_timeout) is tried [redfish]connection_attempts
  times, [redfish]connection_retry_interval apart: the request never
  left, so sending it again is safe. With the defaults a refused
  connection fails a call in 2 s, an unreachable address in 17 s;
- a BMC that took the connection and gave no answer within
  [redfish]read_timeout (or dropped it) is not asked again: it may have
  acted on the request.

sushy's own connector would retry both itself, [redfish]server_side_
retries times each, inside every request and every attempt above (that
multiplied a refused connection into 75 s): it is given one try per
request, and the retries are this module's.

Within one exclusive task (one locked unit of work on the node) the
System read by one call is handed to the next instead of being read
again (see :class:`TaskSystem`), as long as no call of the task wrote
to the BMC since; a power-on after a power read is then one POST, not a
GET and a POST. Reads that confirm the power state always go to the
BMC.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import re
import threading
import time
import weakref
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import TypeVar
from urllib import parse

import requests
import sushy
from requests import adapters as requests_adapters
from sushy import connector as sushy_connector
from sushy import exceptions as sushy_exc
from sushy import utils as sushy_utils
from sushy.resources.system.system import System
from urllib3 import exceptions as urllib3_exc

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import bmc_common

LOG = logging.getLogger(__name__)
T = TypeVar('T')

SYSTEMS_PREFIX = '/redfish/v1/Systems/'
AUTH_TYPES = ('basic', 'session', 'auto')

PROPERTIES = {
    'redfish_address': 'URL of the BMC (https:// assumed when no scheme '
                       'is given). Required.',
    'redfish_system_id': 'The system on that BMC: its path '
                         '(/redfish/v1/Systems/<id>) or Id. Optional when '
                         'the BMC has exactly one system.',
    'redfish_username': 'User name on the BMC. Required.',
    'redfish_password': 'Password of that user. Required.',
    'redfish_verify_ca': 'Verify the BMC\'s TLS certificate: true, false, '
                         'or a path to a CA bundle. Optional; default true.',
    'redfish_auth_type': 'basic, session or auto. Optional; default '
                         '[redfish]auth_type.',
}


# A BMC and the credentials a connection to it is made with.
ConnectionKey = tuple[str, str, str, bool | str, str]


@dataclasses.dataclass(frozen=True)
class RedfishInfo:
    address: str
    system_id: str | None
    username: str
    password: str = dataclasses.field(repr=False)
    verify_ca: bool | str
    auth_type: str

    @property
    def bmc(self) -> str:
        """How errors and logs name the BMC (and the system on it)."""
        return self.address + (self.system_id or '')

    @property
    def key(self) -> ConnectionKey:
        return (self.address, self.username, self.password, self.verify_ca,
                self.auth_type)


def _address(info: Mapping[str, Any], uuid: str) -> str:
    address = bmc_common.required_str(info, 'redfish_address', uuid)
    if '://' not in address:
        address = 'https://' + address
    parsed = parse.urlparse(address)
    if parsed.scheme not in ('http', 'https') or not parsed.hostname:
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info redfish_address must be an http(s) '
                'URL or a host name, not %r' % (uuid, address))
    return address.rstrip('/')


def _system_id(info: Mapping[str, Any], uuid: str) -> str | None:
    value = bmc_common.optional_str(info, 'redfish_system_id', uuid)
    if value is None or not value.strip():
        return None
    value = value.strip().rstrip('/')
    if not value.startswith('/'):
        value = SYSTEMS_PREFIX + value
    return value


def parse_driver_info(node: Any) -> RedfishInfo:
    """Typed driver_info; a clear 400 naming the key if it is wrong."""
    info = node.driver_info or {}
    uuid = node.uuid
    return RedfishInfo(
        address=_address(info, uuid),
        system_id=_system_id(info, uuid),
        username=bmc_common.required_str(info, 'redfish_username', uuid),
        password=bmc_common.required_str(info, 'redfish_password', uuid),
        verify_ca=bmc_common.bool_or_path(info, 'redfish_verify_ca', uuid),
        auth_type=bmc_common.choice(info, 'redfish_auth_type', uuid,
                                    AUTH_TYPES, CONF.redfish.auth_type))


# Defined in the one exceptions module, whose classes cross RPC as
# themselves (a class defined here reached the API as a 500).
CredentialsRejected = exception.RedfishCredentialsRejected
SystemNotFound = exception.RedfishSystemNotFound


def _auth(info: RedfishInfo) -> sushy.auth.AuthBase:
    cls = {'basic': sushy.auth.BasicAuth, 'session': sushy.auth.SessionAuth,
           'auto': sushy.auth.SessionOrBasicAuth}[info.auth_type]
    return cls(username=info.username, password=info.password)


class NotReached(requests.exceptions.RequestException):
    """No connection to the BMC could be made; the request never left."""


class NotAnswered(requests.exceptions.RequestException):
    """The BMC took the connection but did not answer in time, or
    dropped it; the request may have been acted on."""


def _cause(exc: Exception) -> str:
    """What went wrong, in a few words ("Connection refused")."""
    text = str(exc)
    # "[Errno 111] Connection refused", "ConnectionResetError(104,
    # 'Connection reset by peer')": the operating system's words.
    errno = re.search(r'\[Errno -?\d+\] ([^\'")]+)', text) or \
        re.search(r'Error\(-?\d+, \'([^\']+)\'\)', text)
    if errno:
        return errno.group(1).strip()
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return 'no TCP connection within %ss' % CONF.redfish.connect_timeout
    if isinstance(exc, requests.exceptions.ReadTimeout):
        return 'no answer within %ss' % CONF.redfish.read_timeout
    return _short(text)


def _never_connected(exc: Exception) -> bool:
    reason = getattr(exc.args[0], 'reason', None) if exc.args else None
    return isinstance(exc, requests.exceptions.ConnectTimeout) or \
        isinstance(reason, urllib3_exc.ConnectTimeoutError)


class OneTryAdapter(requests_adapters.HTTPAdapter):
    """requests' adapter, raising what sushy's connector does not retry.

    sushy's connector sends a request again when requests raises a
    ConnectionError or a Timeout; NotReached and NotAnswered it hands
    straight back (wrapped in sushy's ConnectionError), so each request
    is sent once and :func:`call_with_info` decides what to retry.
    """

    def send(self, request: requests.PreparedRequest, stream: bool = False,
             timeout: (float | tuple[float, float] | tuple[float, None]
                       | None) = None,
             verify: bool | str = True,
             cert: bytes | str | tuple[bytes | str, bytes | str] | None = None,
             proxies: Mapping[str, str] | None = None) -> requests.Response:
        if request.method not in ('GET', 'HEAD') and \
                '/SessionService/' not in (request.url or ''):
            # Counted before it leaves: one that fails may have landed.
            _SENT.writes = writes_sent() + 1
        try:
            return super().send(request, stream=stream, timeout=timeout,
                                verify=verify, cert=cert, proxies=proxies)
        except requests.exceptions.SSLError:
            raise  # not retried by sushy either: a TLS setup problem
        except (requests.exceptions.ConnectionError,
                requests.exceptions.Timeout) as exc:
            failure = NotReached if _never_connected(exc) else NotAnswered
            raise failure(_cause(exc), request=request) from exc


# Requests that may change something on a BMC (any but GET and HEAD;
# logging in is not one), counted per thread: a call's requests are sent
# by the thread making it, whichever root they go through.
_SENT = threading.local()


def writes_sent() -> int:
    """How many writing requests this thread has sent to any BMC."""
    count: int = getattr(_SENT, 'writes', 0)
    return count


def _connector(info: RedfishInfo) -> sushy_connector.Connector:
    connector = sushy_connector.Connector(
        info.address, verify=info.verify_ca,
        server_side_retries=CONF.redfish.server_side_retries,
        server_side_retries_delay=CONF.redfish.server_side_retries_delay,
        default_request_timeout=CONF.redfish.read_timeout,
        connect_timeout=CONF.redfish.connect_timeout)
    # The connector's requests session: sushy offers no other way in.
    adapter = OneTryAdapter()
    connector._session.mount('http://', adapter)
    connector._session.mount('https://', adapter)
    return connector


def _transport_failure(exc: BaseException
                       ) -> requests.RequestException | None:
    """The NotReached or NotAnswered behind ``exc`` (sushy raises its
    ConnectionError while handling ours); None for a TLS failure."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (NotReached, NotAnswered)):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


class ConnectionCache:
    """sushy roots by BMC and credentials, least recently used dropped."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roots: collections.OrderedDict[ConnectionKey, sushy.Sushy] = \
            collections.OrderedDict()

    def get(self, info: RedfishInfo) -> sushy.Sushy:
        with self._lock:
            root = self._roots.get(info.key)
            if root is not None:
                self._roots.move_to_end(info.key)
                return root
        root = sushy.Sushy(info.address, auth=_auth(info),
                           connector=_connector(info))
        with self._lock:
            self._roots[info.key] = root
            while len(self._roots) > CONF.redfish.connection_cache_size:
                self._roots.popitem(last=False)
        return root

    def drop(self, info: RedfishInfo) -> None:
        with self._lock:
            self._roots.pop(info.key, None)

    def clear(self) -> None:
        with self._lock:
            self._roots.clear()


CONNECTIONS = ConnectionCache()


def _get_system(root: sushy.Sushy, info: RedfishInfo) -> Any:
    if info.system_id is not None:
        return root.get_system(info.system_id)
    members = root.get_system_collection().get_members()
    if len(members) != 1:
        raise exception.InvalidParameterValue(
            err='Redfish BMC %s has %d systems; set driver_info '
                'redfish_system_id to one of %s'
                % (info.address, len(members),
                   ', '.join(m.path for m in members)))
    return members[0]


# How long a System read stays reusable within a task: the task holds
# the node's lock, but a machine's power button does not ask for it.
REUSE_WITHIN = 30.0


@dataclasses.dataclass
class TaskSystem:
    """The System an exclusive task last read, and what it did since.

    The next call of the same task is handed this System instead of a
    new GET, if it was read through the same connection and driver_info
    less than REUSE_WITHIN seconds ago, unless

    - the call confirms the power state (``confirm``): read again;
    - a call of the task wrote to the BMC since (``changed``): read
      again, except by a call that uses only the power state and the
      reset action (``power_only``) when none of those writes may have
      changed the power (``power_changed``; the ones declared
      ``keeps_power`` do not: boot device and mode, virtual media).

    Only the System itself is reused: what sushy cached under it
    (storage, BIOS, ...) is read again when a later call touches it.
    """

    info: RedfishInfo
    root: sushy.Sushy
    system: System
    read_at: float
    changed: bool = False
    power_changed: bool = False


class TaskSystems:
    """The TaskSystem of each exclusive task, dropped with the task."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._of: weakref.WeakKeyDictionary[base.Task, TaskSystem] = \
            weakref.WeakKeyDictionary()

    def get(self, task: base.Task) -> TaskSystem | None:
        with self._lock:
            return self._of.get(task)

    def put(self, task: base.Task, entry: TaskSystem) -> None:
        with self._lock:
            self._of[task] = entry

    def forget(self, task: base.Task) -> None:
        with self._lock:
            self._of.pop(task, None)


TASK_SYSTEMS = TaskSystems()


@dataclasses.dataclass(frozen=True)
class _TaskUse:
    """How one call of a task may use the System the task read before."""

    task: base.Task
    confirm: bool = False
    power_only: bool = False
    keeps_power: bool = False

    def system(self, root: sushy.Sushy, info: RedfishInfo) -> System:
        entry = TASK_SYSTEMS.get(self.task)
        now = time.monotonic()
        if entry is None or entry.info != info or entry.root is not root \
                or now - entry.read_at > REUSE_WITHIN:
            system: System = _get_system(root, info)
            TASK_SYSTEMS.put(self.task, TaskSystem(info, root, system, now))
            return system
        if not self.confirm and (not entry.changed or (
                self.power_only and not entry.power_changed)):
            # Nothing under it is reused (it is read again if touched).
            sushy_utils.cache_clear(entry.system, force_refresh=False)
            return entry.system
        entry.system.invalidate()
        entry.system.refresh(force=False)
        entry.read_at = now
        entry.changed = entry.power_changed = False
        return entry.system

    def run(self, root: sushy.Sushy, info: RedfishInfo,
            func: Callable[[System], T]) -> T:
        before = writes_sent()
        try:
            result = func(self.system(root, info))
        except BaseException:
            # A failed call may have left anything behind.
            TASK_SYSTEMS.forget(self.task)
            raise
        entry = TASK_SYSTEMS.get(self.task)
        if entry is not None and writes_sent() != before:
            entry.changed = True
            entry.power_changed |= not self.keeps_power
        return result


def call_with_info(info: RedfishInfo, action: str,
                   func: Callable[[System], T] | Callable[[sushy.Sushy], T],
                   on_root: bool = False, use: _TaskUse | None = None) -> T:
    """``func(system)`` (``func(root)``, the service root, with
    ``on_root``) with a cached connection, retried as it should be.
    ``use``: the System may be the one the task read before.

    401: the connection is replaced once, then CredentialsRejected.
    Not reached: tried [redfish]connection_attempts times, then
    BMCNotReached naming the BMC. No answer: BMCConnectionFailed at once.
    Other error answers: RedfishError.
    """
    attempts = CONF.redfish.connection_attempts
    started = time.monotonic()
    refreshed = False
    attempt = 0
    while True:
        attempt += 1
        try:
            root = CONNECTIONS.get(info)
            if on_root:
                return func(root)
            if use is not None:
                return use.run(root, info, func)
            return func(_get_system(root, info))
        except sushy_exc.AccessError as exc:
            CONNECTIONS.drop(info)
            if exc.status_code == 401 and not refreshed:
                refreshed = True
                LOG.info('BMC %s refused a cached connection; opening a '
                         'new one', info.address)
                continue
            if exc.status_code == 401:
                raise CredentialsRejected(bmc=info.address,
                                          user=info.username) from None
            raise exception.RedfishError(
                bmc=info.bmc, reason='%s: access denied (HTTP %s)'
                                     % (action, exc.status_code)) from None
        except sushy_exc.ResourceNotFoundError as exc:
            if info.system_id and exc.url.rstrip('/').endswith(
                    info.system_id):
                raise SystemNotFound(bmc=info.address,
                                     system=info.system_id) from None
            raise exception.RedfishError(
                bmc=info.bmc, reason='%s: %s' % (action, exc)) from None
        except (sushy_exc.ConnectionError, NotReached, NotAnswered) as exc:
            CONNECTIONS.drop(info)
            failure = _transport_failure(exc)
            if failure is None:
                raise exception.RedfishError(
                    bmc=info.bmc,
                    reason='%s: %s' % (action, _short(str(exc)))) from None
            if isinstance(failure, NotAnswered):
                raise exception.BMCConnectionFailed(
                    bmc=info.address,
                    reason='%s: %s' % (action, failure)) from None
            if attempt >= attempts:
                raise exception.BMCNotReached(
                    bmc=info.address,
                    reason='%s: %s (%d attempt(s) in %.1fs)' % (
                        action, failure, attempt,
                        time.monotonic() - started)) from None
            LOG.info('BMC %s cannot be reached for %s (attempt %d of %d): '
                     '%s', info.address, action, attempt, attempts, failure)
            time.sleep(CONF.redfish.connection_retry_interval)
        except sushy_exc.SushyError as exc:
            raise exception.RedfishError(
                bmc=info.bmc, reason='%s: %s' % (action, exc)) from None


def _short(text: str) -> str:
    return text if len(text) <= 300 else text[:300] + '...'


def call(task: base.Task, action: str, func: Callable[[System], T], *,
         confirm: bool = False, power_only: bool = False,
         keeps_power: bool = False) -> T:
    """Run ``func(system)`` against the system of ``task.node``.

    In an exclusive task the System may be the one an earlier call of the
    task read (see :class:`TaskSystem`): ``confirm`` reads it from the
    BMC whatever was read before (power state reads); ``power_only``
    says ``func`` uses only its power state and reset action;
    ``keeps_power`` that what ``func`` writes does not change the power.
    """
    info = parse_driver_info(task.node)
    return call_with_info(info, action, func, use=_task_use(
        task, confirm, power_only, keeps_power))


def _task_use(task: base.Task, confirm: bool, power_only: bool,
              keeps_power: bool) -> _TaskUse | None:
    """None (read the System afresh) for a shared task, whose node others
    may change meanwhile, or a task that cannot key a weak mapping."""
    if getattr(task, 'shared', True):
        return None
    try:
        hash(task)
        weakref.ref(task)
    except TypeError:
        return None
    return _TaskUse(task, confirm, power_only, keeps_power)


def call_root(task: base.Task, action: str, func: Callable[[sushy.Sushy], T]
              ) -> T:
    """Run ``func(root)`` against the service root of ``task.node``'s BMC
    (for its services: events, ...)."""
    return call_with_info(parse_driver_info(task.node), action, func,
                          on_root=True)


def validate(task: base.Task) -> RedfishInfo:
    """Check driver_info, without asking the BMC.

    Validation runs before an action is accepted (the API's 202 waits
    for it), so it must not wait on a BMC: wrong credentials or a BMC
    that cannot be reached fail the action itself, in its worker, and
    the node's last_error names the BMC, as in Ironic.
    """
    return parse_driver_info(task.node)


def running_tasks(system: Any, uris: list[str], what: str) -> list[str]:
    """The BMC task monitors among ``uris`` still running; raises
    RedfishError naming ``what`` if one of them failed."""
    root = system.root
    running = []
    for uri in uris:
        try:
            monitor = root.get_task_monitor(uri)
        except sushy_exc.ResourceNotFoundError:
            continue  # a finished task some BMCs forget at once
        if monitor.is_processing:
            running.append(uri)
            continue
        body = monitor.response.json() if monitor.response.content else {}
        task_state = body.get('TaskState')
        if task_state in ('Exception', 'Killed', 'Cancelled') or \
                body.get('TaskStatus') in ('Critical',):
            messages = '; '.join(m.get('Message', '')
                                 for m in body.get('Messages') or [])
            raise exception.RedfishError(
                bmc=uri, reason='%s ended %s: %s'
                                % (what, task_state,
                                     messages or 'no message'))
    return running


def tasks_done(task: base.Task, key: str, what: str) -> bool:
    """Whether the BMC tasks listed in ``driver_internal_info[key]`` are
    all done (the key is then dropped); raises if one failed."""
    info = task.node.driver_internal_info
    uris = info.get(key) or []
    running = call(task, 'poll %ss' % what,
                   lambda system: running_tasks(system, uris, what))
    if running:
        info[key] = running
        return False
    info.pop(key, None)
    return True
