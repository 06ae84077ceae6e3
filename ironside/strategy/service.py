"""The site action service: runs site actions inside a conductor process.

Every ``[site]action_check_interval`` seconds (at once in the all-in-one,
where queuing an action wakes it) the service

1. heartbeats the actions it runs, and stops runners of actions another
   conductor has taken from it;
2. claims actions nobody runs: queued ones, unfinished ones whose owner
   is not a live conductor (``[conductor]heartbeat_timeout``) or stopped
   heartbeating them, and its own that no runner of this process runs
   (it restarted); claiming is a compare-and-set on the owner, so one
   conductor wins;
3. runs each claimed action in a thread of its own, whatever its kind,
   with the one runner (:class:`.run.runner.ActionRunner`).

The nodes' tasks of every action it runs go to one worker pool, by the
task runners installed (:class:`.run.task_flow.TaskExecution`), made when
the first task runs.

A conductor that stops cleanly releases its actions, so another one
takes them over at its next check rather than after the timeout.
"""

from __future__ import annotations

import datetime
import logging
import threading
from typing import TYPE_CHECKING

from ironside.common.conf import CONF
from ironside.conductor import rpcapi
from ironside.db import conductors as conductors_db
from ironside.db import models
from ironside.db import site as site_db
from ironside.strategy.nodes import conductor as conductor_nodes
from ironside.strategy.nodes import seam
from ironside.strategy.run import task_flow
from ironside.strategy.run import wakeup
from ironside.strategy.run.in_flight import FleetInFlight
from ironside.strategy.run.runner import ActionRunner

if TYPE_CHECKING:
    from ironside.conductor.base_manager import BaseConductorManager

LOG = logging.getLogger(__name__)


class SiteActionService:
    def __init__(self, host: str, nodes: seam.NodeBackend,
                 tasks: task_flow.TaskExecution | None = None) -> None:
        self.host = host
        self.nodes = nodes
        self.limit = FleetInFlight(host)
        self._tasks = tasks
        self._tasks_lock = threading.Lock()
        self._runners: dict[int, tuple[threading.Thread,
                                       threading.Event]] = {}
        self._lock = threading.Lock()
        # One check at a time: a check reads which actions run here, then
        # claims and starts the others; two at once could both start one.
        self._check_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_manager(cls, manager: BaseConductorManager) -> SiteActionService:
        """The service for a conductor: its host, and its RPC API (which
        calls the manager directly when ``rpc_transport = local``)."""
        return cls(manager.host, conductor_nodes.ConductorNodes(
            rpcapi.ConductorAPI(local_manager=manager)))

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop,
                                        name='site-actions', daemon=True)
        self._thread.start()
        LOG.info('Site action service started on %s', self.host)

    def stop(self, timeout: float = 30) -> None:
        """Stop runners at their next step and release their actions."""
        self._stop.set()
        wakeup.queued.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._lock:
            runners = list(self._runners.values())
        for _thread, stop in runners:
            stop.set()
        for thread, _stop in runners:
            thread.join(timeout)
        if self._tasks is not None:
            self._tasks.close()

    def tasks(self) -> task_flow.TaskExecution:
        """The process's task runners and pool, made when first needed."""
        with self._tasks_lock:
            if self._tasks is None:
                self._tasks = task_flow.TaskExecution.installed()
            return self._tasks

    def running(self) -> list[int]:
        with self._lock:
            return list(self._runners)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.check()
            except Exception:
                LOG.exception('Checking site actions failed')
            wakeup.queued.wait(CONF.site.action_check_interval)
            wakeup.queued.clear()

    def check(self) -> None:
        """One round: heartbeat, notice lost actions, claim new ones."""
        with self._check_lock:
            self._check()

    def _check(self) -> None:
        running = self.running()
        if not running and self.limit.used:
            # No runner holds a slot: whatever the row says (a runner
            # that could not give its slots back, a previous run of this
            # conductor) is not in flight.
            self.limit.reset()
        owned = site_db.heartbeat(running, self.host)
        for action_id in set(running) - owned:
            LOG.warning('Site action %d is no longer owned by %s',
                        action_id, self.host)
            with self._lock:
                runner = self._runners.get(action_id)
            if runner is not None:
                runner[1].set()
        timeout = CONF.conductor.heartbeat_timeout
        live = [c.hostname for c in conductors_db.live_conductors(timeout)]
        stale = models.utcnow() - datetime.timedelta(seconds=timeout)
        for row in site_db.claimable_actions(self.host, live, stale):
            if self._stop.is_set():
                return
            if row.id in running or not site_db.claim_action(
                    row.id, self.host, row.owner, row.heartbeat_at):
                continue
            if row.owner and row.owner != self.host:
                LOG.warning('Site action %s taken over from %s by %s',
                            row.uuid, row.owner, self.host)
            self._start_runner(row.id, row.uuid)

    def _start_runner(self, action_id: int, uuid: str) -> None:
        stop = threading.Event()
        thread = threading.Thread(target=self._run,
                                  args=(action_id, uuid, stop),
                                  name='site-action-%s' % uuid[:8],
                                  daemon=True)
        with self._lock:
            self._runners[action_id] = (thread, stop)
        thread.start()

    def _run(self, action_id: int, uuid: str, stop: threading.Event) -> None:
        finished = False
        try:
            finished = ActionRunner(uuid, self.host, self.nodes, self.limit,
                                    stop, tasks=self.tasks).run()
        except Exception:
            LOG.exception('Running site action %s failed; it will be '
                          'picked up again', uuid)
        finally:
            # Forget the runner first: if the release cannot be written
            # (the database is away), the action is still this host's,
            # and the next check claims and resumes it.
            with self._lock:
                self._runners.pop(action_id, None)
            if not finished:
                try:
                    site_db.release_action(action_id, self.host)
                except Exception:
                    LOG.warning('Could not release site action %s; this '
                                'conductor resumes it at its next check',
                                uuid, exc_info=True)
