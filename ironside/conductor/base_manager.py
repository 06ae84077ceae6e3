"""A conductor's life: registration, worker pool, heartbeat, periodic jobs.

The RPC methods are in :mod:`ironside.conductor.manager`; this module has
what they run on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from typing import TypeVar

import futurist
from futurist import periodics

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import hash_ring
from ironside.common import process_identity
from ironside.common.conf import CONF
from ironside.common.context import RequestContext
from ironside.conductor import async_poller
from ironside.conductor import periodics as conductor_periodics
from ironside.conductor import power as conductor_power
from ironside.conductor import step_watchers
from ironside.conductor import task_manager
from ironside.db import conductors as conductors_db
from ironside.db import models
from ironside.drivers import factory

LOG = logging.getLogger(__name__)

_Part = TypeVar('_Part')


def _prepared(part: _Part | None, what: str) -> _Part:
    """A part of the conductor that prepare_host makes."""
    if part is None:
        raise exception.IronsideException(
            'The conductor has no %s before prepare_host' % what)
    return part


class BaseConductorManager:
    def __init__(self, host: str | None = None) -> None:
        self.host = host or CONF.host
        self.conductor_id: int | None = None
        self.ring = hash_ring.HashRingManager(
            conductors_db.live_conductors)
        self._drivers: factory.DriverFactory | None = None
        self._executor: futurist.ThreadPoolExecutor | None = None
        self._slots: threading.BoundedSemaphore | None = None
        self._periodic_worker: periodics.PeriodicWorker | None = None
        self._periodic_thread: threading.Thread | None = None
        self._poller: async_poller.AsyncStepPoller | None = None
        self._watchers: step_watchers.StepWatchers | None = None
        self.power_failures = conductor_power.SyncFailures()
        self._started = False

    @property
    def drivers(self) -> factory.DriverFactory:
        return _prepared(self._drivers, 'drivers')

    @property
    def poller(self) -> async_poller.AsyncStepPoller:
        return _prepared(self._poller, 'step poller')

    @property
    def watchers(self) -> step_watchers.StepWatchers:
        return _prepared(self._watchers, 'step watchers')

    # Lifecycle

    def init_host(self) -> None:
        """Prepare and register: the conductor then owns its nodes."""
        self.prepare_host()
        self.register_and_start()

    def prepare_host(self) -> None:
        """Load drivers and start the worker pool; invisible to others.

        An RPC server may start between this and register_and_start, so
        that whoever sees this conductor in the database can reach it.
        """
        self._drivers = factory.get_factory()
        pool_size = CONF.conductor.workers_pool_size
        self._executor = futurist.ThreadPoolExecutor(max_workers=pool_size)
        self._slots = threading.BoundedSemaphore(
            pool_size + CONF.conductor.workers_pool_backlog)
        self._poller = async_poller.AsyncStepPoller(self.spawn_worker,
                                                    self.poll_node)
        self._poller.start()
        self._watchers = step_watchers.StepWatchers(
            lambda node_uuid: self.schedule_poll(node_uuid, 0),
            CONF.conductor.step_watchers)

    def register_and_start(self) -> None:
        """Join the hash ring, recover after a crash, start periodics."""
        conductor = conductors_db.register_conductor(
            self.host, CONF.conductor.conductor_group,
            self.drivers.hardware_types, self.drivers.registration(),
            CONF.conductor.heartbeat_timeout,
            instance=process_identity.this_process())
        self.conductor_id = conductor.id
        self.ring.reset()
        # Nodes this host held when it last stopped (or crashed).
        conductor_periodics.recover_nodes_of(self, [self.host],
                                             only_owned=False)
        self._start_periodics()
        self._started = True
        LOG.info('Conductor %s started with hardware types %s', self.host,
                 ', '.join(sorted(self.drivers.hardware_types)))

    def del_host(self, deregister: bool = True) -> None:
        """Stop background work and wait for running workers."""
        if not self._started:
            return
        self._started = False
        if self._periodic_worker is not None:
            self._periodic_worker.stop()
            self._periodic_worker.wait()
        if self._periodic_thread is not None:
            self._periodic_thread.join(timeout=10)
        if self._poller is not None:
            self._poller.stop()
        if self._watchers is not None:
            self._watchers.stop()
        if self._executor is not None:
            self._wait_for_workers(timeout=60)
            # Idle workers notice the shutdown within a second by themselves.
            self._executor.shutdown(wait=False)
        if deregister:
            conductors_db.unregister_conductor(self.host)
        LOG.info('Conductor %s stopped', self.host)

    def _wait_for_workers(self, timeout: float) -> None:
        """Wait until no worker runs (by taking every slot), or timeout."""
        deadline = time.monotonic() + timeout
        total = CONF.conductor.workers_pool_size + \
            CONF.conductor.workers_pool_backlog
        slots = _prepared(self._slots, 'worker slots')
        taken = 0
        while taken < total and time.monotonic() < deadline:
            if slots.acquire(timeout=0.1):
                taken += 1
        if taken < total:
            LOG.warning('%d workers still running at shutdown',
                        total - taken)

    def _start_periodics(self) -> None:
        jobs: list[tuple[Callable[[], None], tuple[()], dict[str, Any]]] = []
        for spacing, func in conductor_periodics.jobs(self):
            if spacing and spacing > 0:
                jobs.append((periodics.periodic(spacing=spacing,
                                                run_immediately=False)(func),
                             (), {}))
        self._periodic_worker = periodics.PeriodicWorker(
            jobs, executor_factory=lambda: futurist.SynchronousExecutor())
        self._periodic_thread = threading.Thread(
            target=self._periodic_worker.start, name='periodics',
            daemon=True)
        self._periodic_thread.start()

    # Services tasks use (see task_manager.ConductorServices)

    def spawn_worker(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on a free worker, or refuse at once.

        Work never queues behind a full pool (beyond the configured
        backlog): the API answers 503 and the client retries.
        """
        slots = _prepared(self._slots, 'worker slots')
        executor = _prepared(self._executor, 'worker pool')
        if not slots.acquire(blocking=False):
            raise exception.NoFreeConductorWorker()

        def _run() -> None:
            try:
                fn()
            finally:
                slots.release()

        try:
            executor.submit(_run)
        except Exception:
            slots.release()
            raise exception.NoFreeConductorWorker() from None

    def schedule_poll(self, node_uuid: str, delay: float) -> None:
        self.poller.schedule(node_uuid, delay)

    def watch_step(self, node_uuid: str,
                   watch: Callable[[float], bool]) -> None:
        self.watchers.watch(node_uuid, watch)

    def acquire(self, context: RequestContext,
                node_id: int | str | models.Node, **kwargs: Any
                ) -> task_manager.TaskManager:
        return task_manager.acquire(context, node_id, self, **kwargs)

    def owns(self, node_uuid: str, driver: str, conductor_group: str
             ) -> bool:
        try:
            return self.ring.owner(node_uuid, driver,
                                   conductor_group) == self.host
        except exception.NoValidHost:
            return False

    def poll_node(self, node_uuid: str) -> None:
        """Worker: poll a node's asynchronous step; resume when done."""
        conductor_periodics.poll_waiting_node(self, node_uuid)

    @property
    def admin_context(self) -> RequestContext:
        return ironside_context.get_admin_context()
