"""The task runs of a site action: which may start, and what they gave.

Every run of a task on a node is a row (``site_action_tasks``), made
``pending`` when the action is created. The runner asks this module
what a node in a group's ``tasks`` phase does next, and this module
answers from the rows alone, so a conductor that takes the action over
answers the same:

- a node runs its tasks of the group's stage one at a time, in graph
  order; the runner starts one only when the fleet cap allows;
- a task that requires a task running on the same node waits for it
  there (it comes earlier in the node's order); one that requires a task
  running elsewhere waits for every run of it to succeed, and is not run
  (failing its node) if one of those runs did not succeed or never will;
- a task that requires a group waits for the group to be done, and is
  not run if the group failed;
- a task's ``cross-depends`` make its run wait for the runs of another
  task on the nodes they name (:class:`~..plan.action_plan.NodeNeed`): all
  of them succeeded (policy ``all``), or any one (``any``); none there
  is nothing to wait for;
- a task with a ``strategy`` has at most that many runs in flight
  (``one_by_one``: one; ``parallel`` with ``amount``: that many);
- ``step`` tasks ran in the node's deploy (success), or were not needed
  (skipped: the node was already deployed); ``skipped`` tasks succeed at
  once.

Tasks run on a worker pool (futurist): the runner's loop hands a task to
the pool after writing it ``running``, and collects results as they
come, so it never waits on a task.

A takeover: a row still ``running`` was in flight when its conductor
stopped. An idempotent task (:meth:`~..core.model.Task.reruns_safely`) is run
again; any other is ``interrupted``, failing its node, because running
a command twice may do harm that not running it again does not.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import threading
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any

import futurist

from ironside.common.conf import CONF
from ironside.db import site_models
from ironside.strategy.core import model
from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.tasks import base as tasks_base
from ironside.strategy.tasks.registry import TaskRunners

LOG = logging.getLogger(__name__)

_UNRESOLVED = (site_models.PENDING, site_models.IN_FLIGHT)
_SUCCEEDED = (site_models.SUCCESS, site_models.SKIPPED)

START = 'start'
WAIT = 'wait'
FAIL = 'fail'

_FAILED_WORDS = {
    tasks_base.FAILED: 'failed',
    tasks_base.TIMEOUT: 'timed out',
    tasks_base.UNREACHABLE: 'could not reach the node',
    site_models.INTERRUPTED: 'was interrupted',
}


class TaskExecution:
    """The task runners and the worker pool tasks run on; one per
    process, shared by its actions."""

    def __init__(self, runners: TaskRunners, workers: int) -> None:
        self.runners = runners
        self.pool = futurist.ThreadPoolExecutor(max_workers=workers)

    @classmethod
    def installed(cls) -> TaskExecution:
        return cls(TaskRunners.installed(), CONF.site.max_nodes_in_flight)

    def submit(self, target: tasks_base.TaskTarget,
               spec: tasks_base.TaskSpec
               ) -> futurist.Future[tasks_base.TaskResult]:
        runner = self.runners.for_type(spec.type)
        if runner is None:
            return self.pool.submit(_no_runner, target, spec)
        return self.pool.submit(runner.run, target, spec)

    def close(self, wait: bool = True) -> None:
        """Stop the pool (an idle worker notices within a second) and
        the runners."""
        self.pool.shutdown(wait=wait)
        self.runners.close()


def _no_runner(target: tasks_base.TaskTarget,
               spec: tasks_base.TaskSpec) -> tasks_base.TaskResult:
    return tasks_base.TaskResult(
        task=spec.id, node=target.node_name, status=tasks_base.FAILED,
        duration=0.0, reason='no task runner runs %s tasks here' % spec.type)


@dataclasses.dataclass
class TaskRecord:
    id: int
    node: str
    task: str
    position: int
    stage: str
    status: str
    exit_status: int | None = None
    duration: float | None = None
    output_tail: str | None = None
    reason: str | None = None
    started_at: datetime.datetime | None = None
    finished_at: datetime.datetime | None = None

    @classmethod
    def of(cls, row: site_models.SiteActionTask) -> TaskRecord:
        return cls(**{f.name: getattr(row, f.name if f.name != 'node'
                                      else 'node_uuid')
                      for f in dataclasses.fields(cls)})

    def row(self) -> dict[str, Any]:
        return {'id': self.id, 'status': self.status,
                'exit_status': self.exit_status, 'duration': self.duration,
                'output_tail': self.output_tail, 'reason': self.reason,
                'started_at': self.started_at,
                'finished_at': self.finished_at}

    @property
    def resolved(self) -> bool:
        return self.status not in _UNRESOLVED


@dataclasses.dataclass(frozen=True)
class Next:
    """A node's next task of a stage: START it, WAIT (``reason``: for
    what) or FAIL it (``reason``: why)."""

    kind: str
    record: TaskRecord
    reason: str = ''


class TaskFlow:
    def __init__(self, plan: ActionPlan,
                 rows: list[site_models.SiteActionTask],
                 clock: Callable[[], datetime.datetime],
                 wake: threading.Event,
                 execution: Callable[[], TaskExecution]) -> None:
        self.plan = plan
        self.clock = clock
        self.wake = wake
        self._execution = execution
        self.by_node: dict[str, list[TaskRecord]] = {}
        self.by_task: dict[str, list[TaskRecord]] = {}
        self.records: dict[int, TaskRecord] = {}
        for row in rows:
            record = TaskRecord.of(row)
            self.records[record.id] = record
            self.by_node.setdefault(record.node, []).append(record)
            self.by_task.setdefault(record.task, []).append(record)
        for records in self.by_node.values():
            records.sort(key=lambda r: r.position)
        # Task → how many of its runs are in flight (for its strategy).
        self.in_flight: dict[str, int] = {}
        for record in self.records.values():
            self._count(record, 1)
        self.dirty: dict[int, TaskRecord] = {}
        self.futures: dict[int, futurist.Future[tasks_base.TaskResult]] = {}
        self._launch: list[TaskRecord] = []
        # Set by the runner: whether a node can no longer run anything
        # of a stage (it failed, or every group of the stage holding it
        # is done).
        self.never_runs: Callable[[str, str], bool] = lambda u, s: False
        self.group_state: Callable[[str], str | None] = lambda g: None

    def _count(self, record: TaskRecord, change: int) -> None:
        if record.status == site_models.IN_FLIGHT:
            self.in_flight[record.task] = \
                self.in_flight.get(record.task, 0) + change

    # Questions

    def rows(self, uuid: str, stage: str | None = None
             ) -> list[TaskRecord]:
        return [r for r in self.by_node.get(uuid, ())
                if stage is None or r.stage == stage]

    def has_work(self, uuid: str, stage: str) -> bool:
        return any(r.status == site_models.PENDING
                   for r in self.rows(uuid, stage))

    def stage_done(self, uuid: str, stage: str) -> bool:
        return all(r.resolved for r in self.rows(uuid, stage))

    def running(self, uuid: str) -> TaskRecord | None:
        for record in self.by_node.get(uuid, ()):
            if record.status == site_models.IN_FLIGHT:
                return record
        return None

    def task(self, record: TaskRecord) -> model.Task:
        return self.plan.tasks[record.task].task

    # What the node does next

    def next_run(self, uuid: str, stage: str) -> Next | None:
        """The node's next task of ``stage``, and whether it may start;
        None when it has none left."""
        record = next((r for r in self.rows(uuid, stage)
                       if r.status == site_models.PENDING), None)
        if record is None:
            return None
        planned = self.plan.tasks[record.task]
        own = {r.task for r in self.by_node[uuid]}
        for needed in planned.needs_tasks:
            if needed in own:
                continue
            found = self._wait_for(record, 'requires', needed,
                                   self.by_task.get(needed, ()), model.ALL)
            if found is not None:
                return found
        for need in self.plan.cross_needs.get(record.task, ()):
            if not need.applies_on(uuid):
                continue
            runs = [r for r in self.by_task.get(need.task, ())
                    if need.counts(r.node, uuid)]
            found = self._wait_for(record, 'cross-depends on', need.task,
                                   runs, need.policy)
            if found is not None:
                return found
        for group in planned.needs_groups:
            state = self.group_state(group)
            if state is None:
                return Next(WAIT, record, 'waits for group %s' % group)
            if state != 'success':
                return Next(FAIL, record, 'not run: it requires group %s, '
                            'which failed' % group)
        strategy = planned.task.strategy
        most = strategy.most_at_once() if strategy else None
        if strategy is not None and most is not None and \
                self.in_flight.get(record.task, 0) >= most:
            return Next(WAIT, record, 'waits: %s runs %s at a time '
                        '(strategy %s)' % (record.task, most, strategy.type))
        return Next(START, record)

    def _wait_for(self, record: TaskRecord, verb: str, needed: str,
                  runs: Iterable[TaskRecord], policy: str) -> Next | None:
        """Whether ``record`` waits for, or fails by, ``runs`` of the
        task it needs (``all`` of them succeeding, or ``any`` one);
        None when they let it start."""
        unresolved = failed = None
        for other in runs:
            status = self.status_of(other)
            if status in _SUCCEEDED:
                if policy == model.ANY:
                    return None
            elif status in _UNRESOLVED:
                unresolved = unresolved or other
                if policy == model.ALL:
                    break
            else:
                failed = failed or (other, status)
                if policy == model.ALL:
                    break
        if unresolved is not None:
            return Next(WAIT, record, 'waits for %s on %s' % (
                needed, self.plan.node_names[unresolved.node]))
        if failed is not None:
            other, status = failed
            return Next(FAIL, record, 'not run: it %s %s, which did not '
                        'succeed on %s (%s)%s' % (
                            verb, needed, self.plan.node_names[other.node],
                            status, ' nor on any other node'
                            if policy == model.ANY else ''))
        return None

    def status_of(self, record: TaskRecord) -> str:
        """Its status, or ``not run`` for a pending run nothing will
        take any more."""
        if record.status == site_models.PENDING and \
                self.never_runs(record.node, record.stage):
            return site_models.NOT_RUN
        return record.status

    # Changes

    def _set(self, record: TaskRecord, status: str, **values: Any) -> None:
        self._count(record, -1)
        record.status = status
        self._count(record, 1)
        for name, value in values.items():
            setattr(record, name, value)
        self.dirty[record.id] = record

    def start(self, record: TaskRecord) -> None:
        """Mark it running; :meth:`launch` hands it to a worker once the
        runner has written that down."""
        self._set(record, site_models.IN_FLIGHT, started_at=self.clock())
        if self.task(record).type == model.SKIPPED:
            self._finish(record, site_models.SUCCESS, duration=0.0)
            return
        self._launch.append(record)

    def fail(self, record: TaskRecord, reason: str) -> None:
        self._set(record, site_models.NOT_RUN, reason=reason,
                  finished_at=self.clock())

    def _finish(self, record: TaskRecord, status: str,
                **values: Any) -> None:
        self._set(record, status, finished_at=self.clock(), **values)

    def node_failed(self, uuid: str, reason: str | None) -> None:
        """Its tasks still to run are not run."""
        for record in self.by_node.get(uuid, ()):
            if record.status == site_models.PENDING:
                self.fail(record, 'the node failed: %s' % reason)

    def node_ready(self, uuid: str, deployed: bool) -> None:
        """The node is active: its deploy steps ran in its deploy, or
        were not needed."""
        for record in self.by_node.get(uuid, ()):
            if record.status == site_models.PENDING and \
                    self.task(record).type == model.STEP:
                if deployed:
                    self._finish(record, site_models.SUCCESS)
                else:
                    self._finish(record, site_models.SKIPPED,
                                 reason='the node was already deployed; '
                                        'deploy steps run in a deploy')

    def settle(self, uuid: str, stages: list[str], reason: str) -> None:
        """Tasks of these stages the node will never get to."""
        for record in self.by_node.get(uuid, ()):
            if record.status == site_models.PENDING and \
                    record.stage in stages:
                self.fail(record, reason)

    def take_over(self) -> list[tuple[str, str]]:
        """Rows left running by a conductor that stopped: run again if
        idempotent, else interrupted. The nodes that fail, with why."""
        failed = []
        for records in self.by_node.values():
            for record in records:
                if record.status != site_models.IN_FLIGHT:
                    continue
                if self.task(record).reruns_safely:
                    LOG.info('Task %s on %s was in flight when its '
                             'conductor stopped; it is idempotent and runs '
                             'again', record.task,
                             self.plan.node_names[record.node])
                    self._set(record, site_models.PENDING,
                              started_at=None)
                    continue
                reason = ('its conductor stopped while it ran; it is not '
                          'idempotent, so it is not run again')
                self._finish(record, site_models.INTERRUPTED, reason=reason)
                failed.append((record.node, node_reason(
                    record.task, site_models.INTERRUPTED, reason)))
        return failed

    # Running them

    def launch(self) -> None:
        """Hand the runs marked running to the pool."""
        launch, self._launch = self._launch, []
        for record in launch:
            task = self.task(record)
            spec = tasks_base.TaskSpec(
                id=task.id, type=task.type,
                parameters=self.plan.parameters_for(task.id, record.node))
            name = self.plan.node_names[record.node]
            target = self.plan.input.access.target(name)
            if target is None:
                # The plan was refused unless every node with tasks to
                # run has access (build._check_runnable).
                raise RuntimeError('no access for node %s' % name)
            future = self._execution().submit(target, spec)
            future.add_done_callback(lambda _f: self.wake.set())
            self.futures[record.id] = future

    def collect(self) -> list[TaskRecord]:
        """Runs that ended since the last call, their results written."""
        done = []
        for record_id, future in list(self.futures.items()):
            if not future.done():
                continue
            del self.futures[record_id]
            record = self.records[record_id]
            try:
                result = future.result()
            except Exception as exc:
                LOG.exception('Task %s failed in its runner', record.task)
                result = tasks_base.TaskResult(
                    task=record.task, node=self.plan.node_names[record.node],
                    status=tasks_base.FAILED, duration=0.0,
                    reason='the task runner failed: %s' % exc)
            self._finish(record, result.status,
                         exit_status=result.exit_status,
                         duration=result.duration,
                         output_tail=result.output_tail or None,
                         reason=result.reason)
            done.append(record)
        return done

    def take_dirty(self) -> list[dict[str, Any]]:
        rows = [r.row() for r in self.dirty.values()]
        self.dirty.clear()
        return rows


def node_reason(task: str, status: str, reason: str | None) -> str:
    """Why a node failed, from the task that failed it."""
    words = _FAILED_WORDS.get(status, status)
    return 'task %s %s%s' % (task, words, ': %s' % reason if reason else '')
