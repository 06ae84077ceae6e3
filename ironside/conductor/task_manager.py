"""Tasks: a node, its lock, its interfaces, and the work done on them.

Every operation on a node runs inside a task::

    with task_manager.acquire(ctx, node_id, purpose='power on') as task:
        task.driver.power.set_power_state(task, states.POWER_ON)

An exclusive task holds the node's lock: its ``reservation`` column, set
by one atomic UPDATE that only succeeds if nobody holds it. The lock is
released when the block ends, however it ends. A task may hand itself to
a worker thread (``spawn_after``); the lock then travels with it and the
worker releases it when it finishes, however it finishes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any
from typing import Protocol
from typing import cast

from ironside.common import exception
from ironside.common import metrics
from ironside.common import states
from ironside.common.conf import CONF
from ironside.common.context import RequestContext
from ironside.conductor import caps
from ironside.conductor import utils as conductor_utils
from ironside.db import history as history_db
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import portgroups as portgroups_db
from ironside.db import ports as ports_db
from ironside.db import session as db_session
from ironside.db import volume as volume_db
from ironside.drivers import base
from ironside.drivers import factory

LOG = logging.getLogger(__name__)


class ConductorServices(Protocol):
    """What a task needs from the conductor that runs it."""

    host: str
    # Its row in the conductors table, once registered (a node deployed
    # by it records it as its conductor_affinity).
    conductor_id: int | None

    def spawn_worker(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the worker pool; NoFreeConductorWorker if full."""

    def schedule_poll(self, node_uuid: str, delay: float) -> None:
        """Poll the asynchronous step of a node after ``delay`` seconds."""

    def watch_step(self, node_uuid: str,
                   watch: Callable[[float], bool]) -> None:
        """Call ``watch`` outside the lock until it says the waiting step
        may have ended, then poll the node at once."""


class TaskDriver(Protocol):
    """A node's interface objects, by type, as a task holds them.

    The factory (:class:`~ironside.drivers.factory.NodeDriver`) loads each
    from the entry points of its type's namespace, whose implementations
    subclass that type's base class; this names those classes. An
    interface the node has none of raises AttributeError, as before.
    """

    hardware_type_name: str
    hardware_type: base.HardwareType
    interfaces: dict[str, base.BaseInterface]

    @property
    def bios(self) -> base.BIOSInterface: ...

    @property
    def boot(self) -> base.BootInterface: ...

    @property
    def console(self) -> base.ConsoleInterface: ...

    @property
    def deploy(self) -> base.DeployInterface: ...

    @property
    def firmware(self) -> base.FirmwareInterface: ...

    @property
    def inspect(self) -> base.InspectInterface: ...

    @property
    def management(self) -> base.ManagementInterface: ...

    @property
    def network(self) -> base.NetworkInterface: ...

    @property
    def power(self) -> base.PowerInterface: ...

    @property
    def raid(self) -> base.RAIDInterface: ...

    @property
    def rescue(self) -> base.RescueInterface: ...

    @property
    def storage(self) -> base.StorageInterface: ...

    @property
    def vendor(self) -> base.VendorInterface: ...

    def all_interfaces(self) -> dict[str, base.BaseInterface]: ...


# What a worker runs: fn(task, *args, **kwargs).
Work = Callable[..., None]


class TaskManager:
    """A task on a node given by id, UUID or name.

    A shared task may be given a node loaded already (by a job that loads
    many nodes at once); it takes no lock, so nothing needs reloading.
    """

    def __init__(self, context: RequestContext,
                 node_id: int | str | models.Node,
                 conductor: ConductorServices, shared: bool = False,
                 purpose: str = 'unspecified action', patient: bool = False,
                 retry: bool = True) -> None:
        self.context = context
        self.conductor = conductor
        self.host = conductor.host
        self.shared = shared
        self.purpose = purpose
        self._patient = patient
        self._retry = retry
        self._spawn: tuple[Work, tuple[Any, ...], dict[str, Any]] | None = \
            None
        self._on_spawn_error: Callable[[TaskManager], None] | None = None
        self._history: list[dict[str, Any]] = []
        self._save_on_release = False
        self._on_release: list[Callable[[], None]] = []
        self.node: models.Node = self._load(node_id)
        # Kept apart: the lock must be released even if a failed save
        # left the node object unreadable.
        self._lock_key = (self.node.id, self.node.uuid)
        self.fsm = states.NodeStateMachine(self.node.provision_state)
        try:
            self.driver = cast(TaskDriver,
                               factory.get_factory().driver_for(self.node))
        except Exception:
            self.release_resources()
            raise

    # Locking

    def _load(self, node_id: int | str | models.Node) -> models.Node:
        if isinstance(node_id, models.Node):
            if not self.shared:
                raise ValueError('an exclusive task loads its own node')
            return node_id
        if self.shared:
            return nodes_db.get_node(node_id)
        return self._reserve(node_id)

    def _reserve(self, node_id: int | str) -> models.Node:
        attempts = CONF.conductor.node_locked_retry_attempts + 1 \
            if self._retry else 1
        interval = CONF.conductor.node_locked_retry_interval
        attempt = 0
        started = time.monotonic()
        while True:
            attempt += 1
            try:
                node = nodes_db.reserve_node(self.host, node_id)
                metrics.lock_acquired(time.monotonic() - started)
                LOG.debug('Node %s locked by %s for %s', node.uuid,
                          self.host, self.purpose)
                return node
            except exception.NodeLocked:
                refused = not self._patient and attempt >= attempts
                metrics.lock_conflict(refused)
                if refused:
                    raise
                time.sleep(interval or 0.05)

    def upgrade_lock(self, purpose: str | None = None) -> None:
        """Turn a shared task into an exclusive one, reloading the node."""
        if not self.shared:
            return
        if purpose:
            self.purpose = purpose
        node = self._reserve(self.node.id)
        self.shared = False
        self.node = node
        self._lock_key = (node.id, node.uuid)
        self.fsm = states.NodeStateMachine(node.provision_state)

    @property
    def volume_targets(self) -> list[dict[str, Any]]:
        """The node's volume targets, by boot index (as Ironic's task)."""
        return volume_db.of_node('targets', self.node.id,
                                 sort_key='boot_index')

    @property
    def volume_connectors(self) -> list[dict[str, Any]]:
        return volume_db.of_node('connectors', self.node.id)

    @property
    def ports(self) -> list[dict[str, Any]]:
        """The node's ports (what a network interface may read)."""
        return ports_db.PORTS.of_node(self.node.id)

    @property
    def portgroups(self) -> list[dict[str, Any]]:
        return portgroups_db.PORTGROUPS.of_node(self.node.id)

    def update_port(self, kind: str, port_id: int,
                    values: dict[str, Any]) -> None:
        """Write fields of one of the node's ports (``kind`` 'port') or
        port groups ('portgroup'): how a network interface records VIFs.
        The node's lock covers its ports."""
        self._require_exclusive('update a %s' % kind)
        resource = portgroups_db if kind == 'portgroup' else ports_db
        resource.update(port_id, values)

    def when_released(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` once the node's lock is given back (at once if this
        task holds none): for what must find the node free, such as the
        next poll of a step, which would otherwise find it still locked
        and wait for a retry."""
        if self.shared:
            fn()
        else:
            self._on_release.append(fn)

    def release_resources(self) -> None:
        if self.shared or self.node is None:
            return
        try:
            self._release()
        finally:
            waiting, self._on_release = self._on_release, []
            for fn in waiting:
                try:
                    fn()
                except Exception:
                    LOG.exception('After releasing node %s',
                                  self._lock_key[1])

    def _release(self) -> None:
        node_id, node_uuid = self._lock_key
        try:
            if self._save_on_release:
                self._save_and_release()
            else:
                db_session.through_outage(
                    lambda: nodes_db.release_node(self.host, node_id),
                    'release node %s' % node_uuid)
        except exception.NodeNotFound:
            pass  # deleted while we held it (node delete does this)
        except exception.NodeNotLocked:
            LOG.warning('Node %s was not locked by %s when %s finished',
                        node_uuid, self.host, self.purpose)
        else:
            LOG.debug('Node %s released by %s after %s', node_uuid,
                      self.host, self.purpose)
        self.shared = True

    def _save_and_release(self) -> None:
        """Write the change left for the release and free the node at once.

        If that write fails, the node is still freed (without the change).
        """
        history, self._history = self._history, []
        self._save_on_release = False
        node_id, node_uuid = self._lock_key
        try:
            db_session.through_outage(
                lambda: nodes_db.save_node(self.node, history,
                                           release=self.host),
                'save and release node %s' % node_uuid)
        except (exception.NodeNotFound, exception.NodeNotLocked):
            raise
        except Exception:
            LOG.exception('Saving node %s when %s finished failed',
                          node_uuid, self.purpose)
            db_session.through_outage(
                lambda: nodes_db.release_node(self.host, node_id),
                'release node %s' % node_uuid)

    # Changes to the node

    def record(self, event: str, event_type: str,
               severity: str = history_db.INFO) -> None:
        """Add a history record; it is written with the next save."""
        self._history.append(history_db.new_row(
            event, event_type, severity, conductor=self.host,
            user=getattr(self.context, 'user_id', None)))

    def save(self) -> None:
        """Write the node's changes and pending history in one commit."""
        self._require_exclusive('save the node')
        history, self._history = self._history, []
        self._save_on_release = False
        db_session.through_outage(
            lambda: nodes_db.save_node(self.node, history),
            'save node %s' % self.node.uuid)

    def process_event(self, event: str, callback: Work | None = None,
                      call_args: tuple[Any, ...] = (),
                      err_handler: Callable[[TaskManager], None]
                      | None = None,
                      target_state: str | None = None,
                      verb: str | None = None, save: bool = True,
                      cap: caps.Cap | None = None) -> None:
        """Move the node along the state machine and save it.

        ``save=False`` leaves the write to the next save, or to the
        release of the lock (one commit for both): for a move followed at
        once by more changes, or that ends the task.

        With ``cap``, the save happens only if the fleet is under that
        cap (:mod:`.caps`); if not, ConcurrentActionLimit, and the node
        is as it was.

        With ``callback``, the work of the new state is handed to a worker
        thread when the task ends; if no worker is free, ``err_handler``
        (by default: restore the previous state) runs and the request is
        refused with NoFreeConductorWorker.
        """
        self._require_exclusive('change provision state')
        previous = (self.node.provision_state,
                    self.node.target_provision_state)
        try:
            new_state = self.fsm.process(event)
        except exception.InvalidTransition:
            raise exception.InvalidStateRequested(
                action=verb or event, node=self.node.name or self.node.uuid,
                state=self.node.provision_state) from None
        if target_state is None:
            target_state = states.TARGETS.get(new_state)
            # Moving within one operation (cleaning → clean wait → cleaning)
            # keeps the target it was started with, e.g. manageable for
            # manual cleaning.
            if target_state is not None and previous[1] is not None and \
                    previous[0] is not None and \
                    states.TARGETS.get(previous[0]) == target_state:
                target_state = previous[1]
        self.node.provision_state = new_state
        self.node.target_provision_state = target_state
        self.node.provision_updated_at = models.utcnow()
        LOG.info('Node %s (%s) provision state %s -> %s (target %s, '
                 'event %s)', self.node.uuid, self.node.name, previous[0],
                 new_state, target_state, event)
        metrics.provision_transition(previous[0], new_state)
        if callback is not None:
            self.spawn_after(callback, *call_args)
            self._on_spawn_error = err_handler or \
                (lambda task: task._restore_state(*previous))
        if cap is not None:
            try:
                cap.admit(self.save)
            except exception.ConcurrentActionLimit:
                self._spawn = self._on_spawn_error = None
                self.node.provision_state = previous[0]
                self.node.target_provision_state = previous[1]
                self.fsm = states.NodeStateMachine(previous[0])
                raise
        elif save:
            self.save()
        else:
            self._save_on_release = True

    def check_transition(self, event: str, verb: str | None = None) -> None:
        """InvalidStateRequested unless ``event`` is allowed now."""
        if not self.fsm.can(event):
            raise exception.InvalidStateRequested(
                action=verb or event, node=self.node.name or self.node.uuid,
                state=self.node.provision_state)

    def _restore_state(self, state: str | None, target: str | None) -> None:
        self.node.provision_state = state
        self.node.target_provision_state = target
        self.fsm = states.NodeStateMachine(state)
        self.save()

    def _require_exclusive(self, what: str) -> None:
        if self.shared:
            raise exception.IronsideException(
                'Cannot %s of node %s with a shared lock (%s)'
                % (what, self.node.uuid, self.purpose))

    # Background work

    def spawn_after(self, func: Work, *args: Any, **kwargs: Any) -> None:
        """Run ``func(task, *args)`` in a worker when the block ends.

        The lock travels with the task to the worker. If the conductor's
        pool is full, the block raises NoFreeConductorWorker instead.
        """
        self._spawn = (func, args, kwargs)

    def _run_in_worker(self, func: Work, args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> None:
        try:
            func(self, *args, **kwargs)
        except Exception as exc:
            conductor_utils.fail_unexpectedly(self, exc)
        finally:
            self.release_resources()

    def on_spawn_error(self, handler: Callable[[TaskManager], None]
                       ) -> None:
        """Undo changes made for a worker that could not be spawned."""
        self._on_spawn_error = handler

    def __enter__(self) -> TaskManager:
        return self

    def __exit__(self, exc_type: type[BaseException] | None,
                 exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc_type is None and self._spawn is not None:
            func, args, kwargs = self._spawn
            self._spawn = None
            try:
                self.conductor.spawn_worker(
                    lambda: self._run_in_worker(func, args, kwargs))
            except Exception:
                try:
                    if self._on_spawn_error is not None:
                        self._on_spawn_error(self)
                finally:
                    self.release_resources()
                raise
            return
        self.release_resources()


def acquire(context: RequestContext, node_id: int | str | models.Node,
            conductor: ConductorServices, shared: bool = False,
            purpose: str = 'unspecified action',
            patient: bool = False, retry: bool = True) -> TaskManager:
    """A task on ``node_id``; see the module docstring."""
    return TaskManager(context, node_id, conductor, shared=shared,
                       purpose=purpose, patient=patient, retry=retry)
