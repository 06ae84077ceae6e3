"""Periodic jobs of a conductor, and recovery of other conductors' nodes.

Each job looks only at nodes this conductor owns on the hash ring, and
reads only the columns it needs, so its cost grows with the nodes a
conductor owns, not with the whole fleet.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import threading
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

import futurist
import sqlalchemy as sa

from ironside.common import exception
from ironside.common import hash_ring
from ironside.common import metrics
from ironside.common import process_identity
from ironside.common import states
from ironside.common.conf import CONF
from ironside.common.context import RequestContext
from ironside.conductor import async_poller
from ironside.conductor import inspection
from ironside.conductor import power
from ironside.conductor import rescue
from ironside.conductor import step_flow
from ironside.conductor import utils
from ironside.db import conductors as conductors_db
from ironside.db import history as history_db
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from ironside.drivers import factory

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)


class ConductorHost(Protocol):
    """The conductor manager as its periodic jobs use it. The manager
    starts them; naming its class here would import it back."""

    @property
    def host(self) -> str: ...

    @property
    def ring(self) -> hash_ring.HashRingManager: ...

    @property
    def drivers(self) -> factory.DriverFactory: ...

    @property
    def poller(self) -> async_poller.AsyncStepPoller: ...

    @property
    def power_failures(self) -> power.SyncFailures: ...

    def acquire(self, context: RequestContext,
                node_id: int | str | models.Node,
                **kwargs: Any) -> TaskManager: ...

    def owns(self, node_uuid: str, driver: str, conductor_group: str
             ) -> bool: ...

    def schedule_poll(self, node_uuid: str, delay: float) -> None: ...

    @property
    def admin_context(self) -> RequestContext: ...

_ROUTING_COLUMNS = ('id', 'uuid', 'driver', 'conductor_group')


def jobs(manager: ConductorHost
        ) -> list[tuple[float, Callable[[], None]]]:
    conf = CONF.conductor
    return [
        (conf.heartbeat_interval, lambda: heartbeat(manager)),
        (conf.takeover_interval, lambda: take_over(manager)),
        (conf.check_provision_state_interval,
         lambda: check_wait_timeouts(manager)),
        (conf.sync_power_state_interval, lambda: sync_power_states(manager)),
        (3600, lambda: history_db.prune(conf.node_history_max_entries)),
    ]


def _owned(manager: ConductorHost, rows: Iterable[sa.Row[Any]]
           ) -> list[sa.Row[Any]]:
    return [row for row in rows
            if manager.owns(row.uuid, row.driver, row.conductor_group)]


def heartbeat(manager: ConductorHost) -> None:
    try:
        conductors_db.touch_conductor(manager.host)
    except exception.ConductorNotFound:
        LOG.warning('Conductor %s was unregistered; registering again',
                    manager.host)
        conductors_db.register_conductor(
            manager.host, CONF.conductor.conductor_group,
            manager.drivers.hardware_types, manager.drivers.registration(),
            heartbeat_timeout=0, instance=process_identity.this_process())


def _fail_abandoned(task: TaskManager, dead_host: str | None) -> None:
    """A node's worker died with its conductor: fail the operation."""
    node = task.node
    state = node.provision_state or ''
    flow = step_flow.working_states().get(state)
    step = step_flow.current_step(task, flow) if flow else {}
    where = ' during step %s.%s' % (step.get('interface'), step.get('step')) \
        if step else ''
    who = 'conductor %s stopped' % dead_host if dead_host else \
        'no conductor was working on it'
    message = ('%s was interrupted%s: %s. Its outcome is unknown; retry '
               'the operation.' % (state.capitalize(), where,
                                   who))
    if flow is not None:
        flow.on_fail(task, message, utils.CONDUCTOR_DIED)
    else:
        utils.fail_node(task, message, utils.CONDUCTOR_DIED)


def _recover(manager: ConductorHost, node_id: int, dead_host: str | None
            ) -> None:
    """Take over one node: fail interrupted work, resume waiting."""
    try:
        with manager.acquire(manager.admin_context, node_id,
                             purpose='take over', retry=False) as task:
            node = task.node
            if node.provision_state in states.WORKING_STATES:
                _fail_abandoned(task, dead_host)
            elif node.provision_state in step_flow.wait_states():
                _adopt_waiting(manager, task)
            else:
                try:
                    task.driver.deploy.take_over(task)
                except Exception as exc:
                    LOG.warning('Take over of node %s by its deploy '
                                'interface failed: %s', node.uuid, exc)
    except (exception.NodeLocked, exception.NodeNotFound):
        pass


def _adopt_waiting(manager: ConductorHost, task: TaskManager) -> None:
    flow = step_flow.wait_states()[task.node.provision_state or '']
    if step_flow.state_of(task.node, flow).polling and \
            not manager.poller.is_scheduled(task.node.uuid):
        step_flow.poll_once_free(task, 0)


def recover_nodes_of(manager: ConductorHost, hosts: list[str],
                     only_owned: bool = True) -> None:
    """Release locks held by ``hosts`` (dead or restarted) and recover.

    With ``only_owned`` (dead conductors' nodes), only nodes this
    conductor owns on the ring; without (this host's own locks from
    before a restart), all of them.
    """
    rows = nodes_db.select_node_columns(
        _ROUTING_COLUMNS + ('reservation',), {'reserved_by': hosts})
    if only_owned:
        rows = _owned(manager, rows)
    for row in rows:
        if nodes_db.release_reservations_of([row.reservation], [row.id]):
            LOG.warning('Released lock of node %s held by %s', row.uuid,
                        row.reservation)
            _recover(manager, row.id, row.reservation)


def take_over(manager: ConductorHost) -> None:
    """Find dead conductors' nodes and waiting nodes this conductor owns."""
    timeout = CONF.conductor.heartbeat_timeout
    if conductors_db.mark_dead_offline(timeout):
        manager.ring.reset()
    dead = conductors_db.dead_conductor_hosts(timeout)
    dead = [host for host in dead if host != manager.host]
    if dead:
        recover_nodes_of(manager, dead)
    # Waiting nodes whose poller is gone (its conductor died or the ring
    # moved them here), and working nodes nobody holds.
    waiting = list(step_flow.wait_states())
    rows = nodes_db.select_node_columns(
        _ROUTING_COLUMNS + ('provision_state', 'provision_updated_at'),
        {'provision_state': waiting + sorted(states.WORKING_STATES),
         'reserved': False})
    stale = models.utcnow() - datetime.timedelta(seconds=timeout)
    for row in _owned(manager, rows):
        if row.provision_state in waiting:
            if not manager.poller.is_scheduled(row.uuid):
                _recover(manager, row.id, None)
        elif row.provision_updated_at and row.provision_updated_at < stale:
            _recover(manager, row.id, None)


def _flow_timed_out(flow: step_flow.StepFlow
                    ) -> Callable[[TaskManager, int], None]:
    def timed_out(task: TaskManager, timeout: int) -> None:
        step_flow.timed_out(task, flow, timeout)
    return timed_out


def _waits() -> list[tuple[str, int, Callable[[TaskManager, int], None]]]:
    """(wait state, its timeout, what fails a node past it)."""
    found: list[tuple[str, int, Callable[[TaskManager, int], None]]] = [
        (state, flow.callback_timeout(), _flow_timed_out(flow))
        for state, flow in step_flow.wait_states().items()]
    found.append((states.INSPECTWAIT, CONF.conductor.inspect_wait_timeout,
                  inspection.inspect_wait_timed_out))
    found.append((states.RESCUEWAIT, CONF.conductor.rescue_callback_timeout,
                  rescue.rescue_wait_timed_out))
    return found


def check_wait_timeouts(manager: ConductorHost) -> None:
    """Fail nodes that waited for their asynchronous step (or agent) too
    long."""
    for state, timeout, on_timeout in _waits():
        if not timeout:
            continue
        deadline = models.utcnow() - datetime.timedelta(seconds=timeout)
        rows = nodes_db.select_stale_nodes([state], deadline, _ROUTING_COLUMNS)
        for row in _owned(manager, rows):
            try:
                with manager.acquire(manager.admin_context, row.id,
                                     purpose='wait timeout',
                                     retry=False) as task:
                    if task.node.provision_state != state:
                        continue
                    on_timeout(task, timeout)
            except (exception.NodeLocked, exception.NodeNotFound):
                continue


# Seconds before polling a waiting node again after the database was away.
OUTAGE_POLL_DELAY = 1.0


def poll_waiting_node(manager: ConductorHost, node_uuid: str) -> None:
    """Worker: poll one node's asynchronous step, resume if it finished."""
    try:
        task = manager.acquire(manager.admin_context, node_uuid,
                               purpose='poll asynchronous step',
                               retry=False)
    except exception.NodeLocked:
        manager.schedule_poll(node_uuid, 0.1)
        return
    except exception.NodeNotFound:
        return
    except Exception as exc:
        if not db_session.is_outage(exc):
            raise
        # The step goes on waiting; ask again once the database is back.
        LOG.warning('The database cannot be reached to poll node %s; '
                    'polling again', node_uuid)
        manager.schedule_poll(node_uuid, OUTAGE_POLL_DELAY)
        return
    with task:
        node = task.node
        flow = step_flow.wait_states().get(node.provision_state or '')
        if flow is None or not step_flow.state_of(node, flow).polling:
            return
        step_flow.poll_and_resume(task, flow)


SYNC_EXCLUDED_STATES = sorted(states.WORKING_STATES | states.WAIT_STATES |
                              {states.ENROLL})


_SYNC_BATCH = 100


@metrics.timed_power_sync
def sync_power_states(manager: ConductorHost) -> None:
    """Read the power state of this conductor's nodes, a few at a time.

    At most [conductor]sync_power_state_workers reads run at once, and at
    most [conductor]sync_power_state_per_bmc_workers against one BMC
    endpoint; nodes whose reads keep failing are skipped until their
    backoff ends (see power.SyncFailures). Nodes in maintenance are
    skipped, but for those the sync itself put there (a fault it clears
    when the cause is gone, see power.RECOVERABLE_FAULTS).
    """
    rows = nodes_db.select_node_columns(
        _ROUTING_COLUMNS + ('provision_state', 'maintenance', 'fault'),
        {'reserved': False})
    now = time.monotonic()
    rows = [r for r in _owned(manager, rows)
            if r.provision_state not in SYNC_EXCLUDED_STATES and
            (not r.maintenance or r.fault in power.RECOVERABLE_FAULTS) and
            manager.power_failures.due(r.uuid, now)]
    if not rows:
        return
    per_bmc = _PerKeyLimit(CONF.conductor.sync_power_state_per_bmc_workers)
    workers = CONF.conductor.sync_power_state_workers
    # Nodes are loaded a batch per query; at most a few batches wait in
    # the pool's queue, so memory stays flat at any number of nodes.
    queued = threading.BoundedSemaphore(workers + _SYNC_BATCH)

    def _sync(node: models.Node) -> None:
        try:
            with manager.acquire(manager.admin_context, node, shared=True,
                                 purpose='power state sync') as task:
                with per_bmc.slot(_bmc_endpoint(task)):
                    power.sync_power_state(task, manager.power_failures)
        except (exception.NodeLocked, exception.NodeNotFound):
            pass
        except Exception:
            LOG.exception('Power state sync of node %s failed', node.uuid)
        finally:
            queued.release()

    ids = [row.id for row in rows]
    with futurist.ThreadPoolExecutor(max_workers=workers) as pool:
        for start in range(0, len(ids), _SYNC_BATCH):
            for node in nodes_db.get_nodes_by_ids(
                    ids[start:start + _SYNC_BATCH]):
                queued.acquire()
                pool.submit(_sync, node)


def _bmc_endpoint(task: TaskManager) -> str | None:
    """The BMC a node's power reads go to, if its interface says."""
    endpoint = getattr(task.driver.power, 'bmc_endpoint', None)
    if endpoint is None:
        return None
    try:
        found: str | None = endpoint(task)
        return found
    except exception.IronsideException:
        return None  # bad driver_info: the read itself will say so


class _PerKeyLimit:
    """A semaphore per key (None means unlimited)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._semaphores: dict[str, threading.Semaphore] = {}

    @contextlib.contextmanager
    def slot(self, key: str | None) -> Iterator[None]:
        if key is None:
            yield
            return
        with self._lock:
            semaphore = self._semaphores.setdefault(
                key, threading.Semaphore(self._limit))
        with semaphore:
            yield
