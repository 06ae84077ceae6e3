"""Runs an action's groups: each prepared, deployed, then its nodes'
tasks run (the last step of every plan, :mod:`.steps`).

The rules (spec 000's Process, and the task graph spec's):

- a group runs once every group it depends on, and every group of the
  stage before its own, is resolved (the plan's order,
  :meth:`..plan.action_plan.ActionPlan.ready`);
  DeploymentStrategy groups run one at a time, task graph groups
  alongside any other as soon as they are ready;
- a group whose dependency failed is failed for that reason, without
  being attempted;
- a group goes through phases: prepare (to ``available``), deploy (to
  ``active``), then, if its nodes have tasks in its stage, tasks (each
  node runs them one at a time, :mod:`.task_flow`); a phase acts on the
  group's nodes whose status allows it (prepare: not started; deploy:
  prepared; tasks: deployed), so a node in several groups is submitted
  once, and a node that failed is never taken further;
- nodes go in waves (the group's ``strategy``), and never more nodes in
  flight (being prepared or deployed, or running a task) than
  ``[site]max_nodes_in_flight`` allows;
- after each phase the group's success criteria (or those its plan
  judges it by: a redeploy_server's, the one node) are judged on its full
  node set, counting nodes that succeeded earlier in other groups; a
  group failing them is taken no further;
- a node a former action left failed is taken back by prepare
  (:mod:`.node_flow`), which the action's log says node by node;
- a request refused because someone else holds the node's lock is made
  again until ``[site]node_locked_timeout``; then the node fails
  (:mod:`.submission`);
- a prepare or deploy phase that outlives its timeout fails the group;
  its nodes still in flight fail (a task has its own timeout);
- a failed task fails its node, with the task's reason, and nothing
  else: the group's criteria judge it;
- an abort (:mod:`.abort`) starts nothing more; once the nodes and
  tasks in flight end, the action ends ``aborted``;
- at the end, a failed critical group fails the action; the design
  revision the action ran, if it ran one, is tagged
  ``site-action-success`` or ``site-action-failure`` (a failed action's
  result starts with "failed") in the same transaction; a failed or
  aborted action that changed nothing (no node was asked for anything,
  no task ran, no step of its plan ran before its groups) was refused,
  and leaves the revision untagged.

Every change is written to the database before the runner relies on
it, as the owner of the action: a runner that lost the action stops at
its next write, and the conductor that took it over carries on from the
database, polling nodes in flight rather than asking for them again.
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from typing import Any

from ironside.common.conf import CONF
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import progress as site_progress
from ironside.strategy.core import model
from ironside.strategy.core.criteria import SuccessCriteria
from ironside.strategy.core.model import Group
from ironside.strategy.nodes import seam
from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.run import abort
from ironside.strategy.run import action_record
from ironside.strategy.run import node_flow
from ironside.strategy.run import submission
from ironside.strategy.run import task_flow
from ironside.strategy.run.in_flight import InFlight

LOG = logging.getLogger(__name__)


class GroupPhases:
    """Runs an action's groups to the end (the last step of every plan,
    :class:`.steps.Groups`).

    ``criteria`` judges a group's phase (by default its own success
    criteria); ``ending`` tells the action's result from the groups'
    (by default as it is). ``tasks``: where the nodes' tasks run (or
    what makes it when the first one does); by default the installed
    task runners. ``changed``: the plan's steps before the groups
    changed the site (the revision is tagged whatever the ending)."""

    def __init__(self, action: site_models.SiteAction, host: str,
                 nodes: seam.NodeBackend, limit: InFlight,
                 stop: threading.Event,
                 clock: Callable[[], datetime.datetime],
                 tasks: task_flow.TaskExecution |
                 Callable[[], task_flow.TaskExecution] | None,
                 abort_watch: abort.AbortWatch,
                 criteria: Callable[[Group], SuccessCriteria] | None = None,
                 ending: Callable[[str, GroupPhases], str] | None = None,
                 changed: bool = False) -> None:
        self.host = host
        self.backend = nodes
        self.limit = limit
        self.stop = stop
        self.clock = clock
        self._tasks = tasks
        self._criteria = criteria
        self._ending = ending
        self.wake = threading.Event()
        self.action_id = action.id
        self.uuid = action.uuid
        self.revision = action.revision_id
        self.progress = action.progress
        self.abort = abort_watch
        self.action_record = action_record.ActionRecord(action, changed)
        self.requests = submission.Requests(nodes, clock)
        node_rows = site_db.action_nodes(action.id)
        task_rows = site_db.action_tasks(action.id)
        node_tasks: dict[str, list[str]] = {}
        for row in task_rows:
            node_tasks.setdefault(row.node_uuid, []).append(row.task)
        group_nodes = {name: g['nodes'] for name, g in
                       self.progress['groups'].items()}
        self.plan = ActionPlan.restore(
            action.document, group_nodes,
            {row.node_uuid: row.node_name for row in node_rows}, node_tasks)
        self.records = {row.node_uuid: node_flow.NodeRecord(
            id=row.id, uuid=row.node_uuid, name=row.node_name,
            status=row.status, phase=row.phase, request=row.request,
            reason=row.reason) for row in node_rows}
        self.holding: dict[tuple[str, str], list[str]] = {}
        for group in self.plan.groups:
            for uuid in group_nodes.get(group.name, ()):
                self.holding.setdefault((uuid, group.stage),
                                        []).append(group.name)
        self.flow = task_flow.TaskFlow(self.plan, task_rows, clock,
                                       self.wake, self._execution)
        self.flow.never_runs = self._never_runs
        self.flow.group_state = self._group_result
        self._dirty: dict[str, node_flow.NodeRecord] = {}
        self._limited = False
        self.held = sum(1 for r in self.records.values() if r.phase)
        self.limit.force_acquire(self.held)
        self._take_over_tasks()

    def _execution(self) -> task_flow.TaskExecution:
        if self._tasks is None:
            self._tasks = task_flow.TaskExecution.installed()
        elif not isinstance(self._tasks, task_flow.TaskExecution):
            self._tasks = self._tasks()
        return self._tasks

    # The loop

    def run(self) -> bool:
        """Run until the action finishes (True) or the runner must stop.

        It stops when asked to (``stop``), or when another conductor
        owns the action (it then returns False, having written nothing).
        """
        shortest = min(node_flow.MIN_POLL_DELAY,
                       CONF.site.node_poll_interval)
        delay = shortest
        try:
            while not self.stop.is_set():
                # Tasks that ended first: their nodes' next tasks start in
                # this round, and one write records both.
                changed = False
                for record in self.flow.collect():
                    self._task_ended(record)
                    changed = True
                if self.abort.requested() and not self.held and \
                        not self.flow.futures:
                    self._finish()
                    return True
                changed |= not self.abort.seen and self._start_groups()
                running = self._running_groups()
                if not running and not self.flow.futures:
                    self._finish()
                    return True
                blocked: list[tuple[str, task_flow.Next]] = []
                self._limited = False
                for name in running:
                    changed |= self._advance(self.plan.group(name), blocked)
                self._save_nodes()
                self.flow.launch()
                if not changed and blocked and self._stuck(running):
                    self._break_deadlock(blocked)
                    changed = True
                delay = shortest if changed else \
                    min(delay * 2, CONF.site.node_poll_interval)
                self.wake.wait(delay)
                self.wake.clear()
            return False
        except site_db.NotOwner:
            LOG.warning('Site action %s was taken over by another '
                        'conductor; %s stops running it', self.uuid,
                        self.host)
            return False
        finally:
            self.limit.release(self.held)
            self.held = 0

    def _state(self, name: str) -> dict[str, Any]:
        state: dict[str, Any] = self.progress['groups'][name]
        return state

    def _running_groups(self) -> list[str]:
        return [name for name in self.progress['order']
                if self._state(name)['state'] != site_progress.DONE]

    def _save(self, result: str | None = None) -> None:
        if result is not None and self._ending is not None:
            result = self._ending(result, self)
        site_db.save_progress(self.action_id, self.host, self.progress,
                              [r.row() for r in self._dirty.values()],
                              result=result, tasks=self.flow.take_dirty(),
                              tag=self.action_record.tag(result),
                              state=abort.final_state(result),
                              log=self.action_record.take_log())
        self._dirty.clear()
        self.action_record.progress_written()

    def _save_nodes(self) -> None:
        tasks = self.flow.take_dirty()
        if self._dirty or tasks or self.action_record.unwritten:
            site_db.save_progress(
                self.action_id, self.host,
                self.progress if self.action_record.progress_dirty else None,
                [r.row() for r in self._dirty.values()], tasks=tasks,
                log=self.action_record.take_log())
            self._dirty.clear()
            self.action_record.progress_written()

    def _finish(self) -> None:
        for uuid in self.flow.by_node:
            self.flow.settle(uuid, self.plan.stages, abort.NOT_RUN
                             if self.abort.seen else
                             'not run: the action ended before it could')
        result = abort.close_groups(self.progress) if self.abort.seen \
            else site_progress.action_result(
                self.progress, self.plan.critical,
                (r.status for r in self.records.values()))
        self._save(result=result)
        LOG.info('Site action %s finished: %s', self.uuid, result)

    # Groups

    def _start_groups(self) -> bool:
        """Begin every group that may begin now."""
        began = False
        while True:
            resolved = {name for name, g in self.progress['groups'].items()
                        if g['state'] == site_progress.DONE}
            started = set(self.progress['order'])
            serial = any(self.plan.group(n).serialised
                         for n in started - resolved)
            ready = []
            for group in self.plan.ready(resolved):
                if group.name in started or (group.serialised and serial):
                    continue
                unmet = self._needs_met(group)
                if unmet is not None:
                    ready.append((group, unmet))
            if not ready:
                return began
            for group, unmet in ready:
                if group.serialised and serial:
                    continue
                self._begin(group, unmet)
                began = True
                if group.serialised and \
                        self._state(group.name)['state'] != site_progress.DONE:
                    serial = True

    def _needs_met(self, group: Group) -> list[str] | None:
        """Tasks the group requires that did not succeed (empty: all
        did), or None while some still may."""
        failed = []
        for task in group.needs_tasks:
            for record in self.flow.by_task.get(task, ()):
                status = self.flow.status_of(record)
                if status in (site_models.PENDING, site_models.IN_FLIGHT):
                    return None
                if status not in (site_models.SUCCESS, site_models.SKIPPED):
                    failed.append(task)
        return sorted(set(failed))

    def _begin(self, group: Group, unmet: list[str]) -> None:
        """Start the group, or fail it when a group it depends on failed
        or a task it needs (``unmet``) did not succeed."""
        state = self._state(group.name)
        self.progress['order'].append(group.name)
        failed = [d for d in group.depends_on if site_progress.group_failed(
            self._state(d))] + unmet
        if failed:
            outcome = {'result': site_progress.FAILED_DEPENDENCY,
                       'dependencies': failed}
            state.update(state=site_progress.DONE, prepare=outcome,
                         deploy=dict(outcome))
            if self._has_tasks(group):
                state['tasks'] = dict(outcome)
            LOG.info('Site action %s: group %s failed: dependency %s '
                     'failed', self.uuid, group.name, ', '.join(failed))
            self._settle(group)
        else:
            self._start_phase(group, node_flow.PREPARE)
        self._save()

    def _has_tasks(self, group: Group) -> bool:
        return any(self.flow.rows(uuid, group.stage)
                   for uuid in self._state(group.name)['nodes'])

    def _eligible(self, group: Group, phase: str, uuid: str) -> bool:
        if self.records[uuid].status != node_flow.ELIGIBLE[phase]:
            return False
        if phase == node_flow.TASKS or group.kind == model.STAGE_GROUP:
            return self.flow.has_work(uuid, group.stage)
        return True

    def _start_phase(self, group: Group, phase: str) -> None:
        state = self._state(group.name)
        state.update(state=phase, phase_started_at=self.clock().isoformat(),
                     phase_nodes=[u for u in state['nodes']
                                  if self._eligible(group, phase, u)])
        LOG.info('Site action %s: %s of group %s starts with %d of its %d '
                 'nodes', self.uuid, phase, group.name,
                 len(state['phase_nodes']), len(state['nodes']))

    def _advance(self, group: Group,
                 blocked: list[tuple[str, task_flow.Next]]) -> bool:
        """One step of the group's phase; True if anything changed."""
        state = self._state(group.name)
        phase = state['state']
        outcome, changed = self._step_phase(group, phase, blocked)
        if outcome is None:
            return changed
        LOG.info('Site action %s: %s of group %s: %s', self.uuid, phase,
                 group.name, outcome['result'])
        state[phase] = outcome
        if outcome['result'] == site_progress.SUCCESS:
            if phase == node_flow.PREPARE:
                self._start_phase(group, node_flow.DEPLOY)
            elif phase == node_flow.DEPLOY and self._has_tasks(group):
                self._start_phase(group, node_flow.TASKS)
            else:
                state['state'] = site_progress.DONE
        else:
            state['state'] = site_progress.DONE
            if phase == node_flow.PREPARE:
                state['deploy'] = {'result': site_progress.FAILED_PREPARE}
            if phase != node_flow.TASKS and self._has_tasks(group):
                state['tasks'] = {'result': site_progress.FAILED_PREPARE
                                  if phase == node_flow.PREPARE
                                  else site_progress.FAILED_DEPLOY}
        if state['state'] == site_progress.DONE:
            self._settle(group)
        self._save()
        return True

    def _group_result(self, name: str) -> str | None:
        state = self._state(name)
        if state['state'] != site_progress.DONE:
            return None
        return 'failed' if site_progress.group_failed(state) else 'success'

    def _never_runs(self, uuid: str, stage: str) -> bool:
        if self.records[uuid].status == site_models.FAILURE:
            return True
        return all(self._state(g)['state'] == site_progress.DONE
                   for g in self.holding.get((uuid, stage), ()))

    def _settle(self, group: Group) -> None:
        """Tasks of the group's nodes that nothing will run now."""
        state = self._state(group.name)
        later = self.plan.stages[self.plan.stages.index(group.stage):] \
            if group.stage in self.plan.stages else [group.stage]
        for uuid in state['nodes']:
            if self.flow.has_work(uuid, group.stage) and \
                    self._never_runs(uuid, group.stage):
                outcome = next((state[p]['result'] for p in node_flow.PHASES
                                if state.get(p) and state[p]['result'] !=
                                site_progress.SUCCESS), None)
                reason = 'not run: group %s %s' % (
                    group.name, outcome or 'ended without running it')
                self.flow.settle(uuid, later, reason)

    def _judge(self, group: Group, phase: str) -> dict[str, Any]:
        nodes = self._state(group.name)['nodes']
        successful = [u for u in nodes if self.records[u].status in
                      node_flow.SUCCESSFUL[phase]]
        criteria = self._criteria(group) if self._criteria is not None \
            else group.success_criteria
        failures = criteria.failures(nodes, successful)
        if failures:
            return {'result': site_progress.FAILED_CRITERIA,
                    'criteria': failures}
        return {'result': site_progress.SUCCESS}

    # Phases

    def _deadline(self, group: Group, timeout: int) -> datetime.datetime:
        started = datetime.datetime.fromisoformat(
            self._state(group.name)['phase_started_at'])
        return started + datetime.timedelta(seconds=timeout)

    def _finished(self, group: Group, phase: str, uuid: str) -> bool:
        record = self.records[uuid]
        if phase == node_flow.TASKS:
            return record.status == site_models.FAILURE or (
                record.phase is None and
                self.flow.stage_done(uuid, group.stage))
        return record.status in node_flow.FINISHED[phase]

    def _step_phase(self, group: Group, phase: str,
                    blocked: list[tuple[str, task_flow.Next]]
                    ) -> tuple[dict[str, Any] | None, bool]:
        """Act once on the phase's nodes; its outcome once they are all
        done (or it timed out), else None."""
        nodes = self._state(group.name)['phase_nodes']
        waiting = [u for u in nodes if not self._finished(group, phase, u)]
        if not waiting:
            return self._judge(group, phase), True
        timeout = node_flow.timeout(phase)
        if timeout is not None and \
                self.clock() > self._deadline(group, timeout):
            return self._time_out(phase, waiting, timeout), True
        wave = group.strategy.wave_size(len(nodes))
        first = nodes.index(waiting[0]) // wave * wave
        current = [u for u in nodes[first:first + wave]
                   if not self._finished(group, phase, u) and
                   not self.abort.seen]
        if phase == node_flow.TASKS:
            return None, self._step_tasks(group, current, blocked)
        candidates = [u for u in current if self.records[u].phase is None]
        in_flight = [u for u in waiting if self.records[u].phase]
        return None, self._step(group, phase, in_flight, candidates)

    def _step(self, group: Group, phase: str, in_flight: list[str],
              candidates: list[str]) -> bool:
        """Read the nodes' states once and act on them; True if any
        node moved on."""
        states = self.backend.read_states(in_flight + candidates)
        decide = node_flow.DECIDE[phase]
        changed = False
        for uuid in in_flight + candidates:
            record = self.records[uuid]
            decision = decide(states.get(uuid), record.request)
            if decision.kind == node_flow.DONE:
                status = decision.status
                assert status is not None  # a DONE decision names it
                self._end(record, status, decision.reason)
                changed = True
            elif record.phase is None and not self.limit.try_acquire():
                continue
            else:
                if record.phase is None:
                    self.held += 1
                    record.phase = phase
                    self._dirty[uuid] = record
                if decision.kind == node_flow.SUBMIT:
                    changed |= self._submit(group, record, decision)
        return changed

    def _submit(self, group: Group, record: node_flow.NodeRecord,
                decision: node_flow.Decision) -> bool:
        verb = decision.verb
        assert verb is not None  # a SUBMIT decision names its request
        sent = self.requests.send(
            record.uuid, record.name, verb,
            lambda: submission.deploy_request(
                self.plan, self.flow, self.holding, group, record.uuid))
        if sent.failure is not None:
            self._end(record, site_models.FAILURE, sent.failure)
            return True
        if not sent.made:
            return False
        record.request = verb
        self._dirty[record.uuid] = record
        self.action_record.changed()
        if decision.note:
            self.action_record.log('node %s %s' % (record.name, decision.note))
        return True

    def _end(self, record: node_flow.NodeRecord, status: str,
             reason: str | None) -> None:
        deployed = record.request == seam.DEPLOY
        if record.phase:
            self.held -= 1
            self.limit.release()
        record.status = status
        record.reason = reason
        record.phase = None
        record.request = None
        self._dirty[record.uuid] = record
        self.requests.forget(record.uuid)
        if status == site_models.FAILURE:
            self.flow.node_failed(record.uuid, reason)
            LOG.info('Site action %s: node %s failed: %s', self.uuid,
                     record.name, reason)
        elif status == site_models.SUCCESS:
            self.flow.node_ready(record.uuid, deployed)

    def _time_out(self, phase: str, waiting: list[str],
                  timeout: int) -> dict[str, Any]:
        for uuid in waiting:
            record = self.records[uuid]
            if record.phase:
                self._end(record, site_models.FAILURE,
                          '%s timed out after %d seconds' % (phase, timeout))
        return {'result': site_progress.FAILED_TIMEOUT, 'timeout': timeout}

    # Tasks

    def _step_tasks(self, group: Group, current: list[str],
                    blocked: list[tuple[str, task_flow.Next]]) -> bool:
        """Start the next task of each node of the wave that may start
        one now."""
        changed = False
        for uuid in current:
            record = self.records[uuid]
            if record.phase:
                continue
            step = self.flow.next_run(uuid, group.stage)
            if step is None:
                continue
            if step.kind == task_flow.WAIT:
                blocked.append((uuid, step))
            elif step.kind == task_flow.FAIL:
                self.flow.fail(step.record, step.reason)
                self._end(record, site_models.FAILURE, 'task %s %s' % (
                    step.record.task, step.reason))
                changed = True
            elif step.kind == task_flow.START:
                if self.flow.task(step.record).type == model.SKIPPED:
                    self.flow.start(step.record)
                    changed = True
                elif self.limit.try_acquire():
                    # Held in memory only: the task's own row says it
                    # runs, and a conductor taking over counts none.
                    self.held += 1
                    record.phase = node_flow.TASKS
                    self.flow.start(step.record)
                    self.action_record.changed()
                    changed = True
                else:
                    self._limited = True
        return changed

    def _task_ended(self, task: task_flow.TaskRecord) -> None:
        record = self.records[task.node]
        if task.status == site_models.SUCCESS:
            if record.phase:
                self.held -= 1
                self.limit.release()
                record.phase = None
            return
        self._end(record, site_models.FAILURE, task_flow.node_reason(
            task.task, task.status, task.reason))

    def _take_over_tasks(self) -> None:
        """A conductor that took the action over runs no task yet: a node
        written in its tasks phase is not in flight here, and the rows
        say what becomes of the tasks that were running
        (:meth:`.task_flow.TaskFlow.take_over`)."""
        for record in self.records.values():
            if record.phase == node_flow.TASKS:
                record.phase = None
                self.held -= 1
                self.limit.release()
                self._dirty[record.uuid] = record
        for uuid, reason in self.flow.take_over():
            self._end(self.records[uuid], site_models.FAILURE, reason)

    def _stuck(self, running: list[str]) -> bool:
        """Nothing in flight, nothing started, every running group in its
        tasks phase: the waiting nodes wait for each other."""
        return not self.held and not self.flow.futures and \
            not self._limited and all(
            self._state(name)['state'] == node_flow.TASKS
            for name in running)

    def _break_deadlock(self, blocked: list[tuple[str, task_flow.Next]]
                        ) -> None:
        for uuid, step in blocked:
            reason = 'not run: it %s, which can not happen before it' \
                % step.reason
            self.flow.fail(step.record, reason)
            self._end(self.records[uuid], site_models.FAILURE,
                      'task %s %s' % (step.record.task, reason))
