"""Runs one site action: groups in order, each prepared then deployed.

The rules (the spec's Process section):

- groups run one at a time, in the plan's order (:mod:`.plan`); a group
  is prepared and then deployed before the next group starts;
- a group whose dependency failed is failed for that reason, without
  being attempted;
- a phase acts on the group's nodes whose status allows it (prepare: not
  started; deploy: prepared), so a node in several groups is submitted
  once, and a node that failed to prepare is never deployed;
- nodes go in waves (the group's ``strategy``), and never more nodes in
  flight than ``[site]max_nodes_in_flight`` allows;
- after each phase the group's success criteria are judged on its full
  node set, counting nodes that succeeded earlier in other groups; a
  group failing them after prepare is not deployed;
- a phase that outlives its timeout fails the group; its nodes still in
  flight fail;
- at the end, a failed critical group fails the action; the design
  revision the action ran, if it ran one, is tagged
  ``site-action-success`` or ``site-action-failure`` (a failed action's
  result starts with "failed") in the same transaction.

Every change is written to the database before the runner relies on
it, as the owner of the action: a runner that lost the action stops at
its next write, and the conductor that took it over carries on from the
database, polling nodes in flight rather than asking for them again.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import threading
from collections.abc import Callable
from typing import Any

from ironside.common.conf import CONF
from ironside.db import models
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import node_flow
from ironside.strategy import progress as site_progress
from ironside.strategy import seam
from ironside.strategy.designs import versions
from ironside.strategy.model import Group
from ironside.strategy.plan import Plan
from ironside.strategy.reader import shipyard

LOG = logging.getLogger(__name__)

# Pause between reads of node states while they change; doubles up to
# [site]node_poll_interval while nothing changes. Fake hardware finishes
# a step in milliseconds, so the shortest pause is short, but not so
# short that the runner takes CPU from the conductor it lives in.
MIN_POLL_DELAY = 0.02


class InFlightLimit:
    """How many more nodes may be put in flight, shared by runners."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.used = 0
        self._lock = threading.Lock()

    def try_acquire(self) -> bool:
        with self._lock:
            if self.used >= self.size:
                return False
            self.used += 1
            return True

    def force_acquire(self, count: int) -> None:
        """Count nodes already in flight (found when taking over)."""
        with self._lock:
            self.used += count

    def release(self, count: int = 1) -> None:
        with self._lock:
            self.used = max(0, self.used - count)


@dataclasses.dataclass
class NodeRecord:
    id: int
    uuid: str
    name: str
    status: str
    phase: str | None
    request: str | None
    reason: str | None

    def row(self) -> dict[str, Any]:
        return {'id': self.id, 'status': self.status, 'phase': self.phase,
                'request': self.request, 'reason': self.reason}


def _iso(when: datetime.datetime) -> str:
    return when.isoformat()


def _timeout(phase: str) -> int:
    if phase == node_flow.PREPARE:
        return CONF.site.prepare_timeout
    return CONF.site.deploy_timeout


class ActionRunner:
    def __init__(self, action_uuid: str, host: str, nodes: seam.NodeBackend,
                 limit: InFlightLimit, stop: threading.Event | None = None,
                 clock: Callable[[], datetime.datetime] = models.utcnow
                 ) -> None:
        self.host = host
        self.backend = nodes
        self.limit = limit
        self.stop = stop or threading.Event()
        self.clock = clock
        action = site_db.get_action(action_uuid)
        self.action_id = action.id
        self.uuid = action.uuid
        self.strategy = shipyard.build(action.document)
        self.progress = action.progress
        self.plan = Plan(self.strategy.groups,
                         {name: g['nodes'] for name, g in
                          self.progress['groups'].items()})
        self.records = {row.node_uuid: NodeRecord(
            id=row.id, uuid=row.node_uuid, name=row.node_name,
            status=row.status, phase=row.phase, request=row.request,
            reason=row.reason) for row in site_db.action_nodes(action.id)}
        self._dirty: dict[str, NodeRecord] = {}
        self.held = sum(1 for r in self.records.values() if r.phase)
        self.limit.force_acquire(self.held)

    # The loop

    def run(self) -> bool:
        """Run until the action finishes (True) or the runner must stop.

        It stops when asked to (``stop``), or when another conductor
        owns the action (it then returns False, having written nothing).
        """
        try:
            while not self.stop.is_set():
                name = self._current_group()
                if name is None:
                    group = self.plan.next_group(self.progress['order'])
                    if group is None:
                        self._finish()
                        return True
                    self._begin(group)
                    continue
                self._advance(self.strategy.group(name))
            return False
        except site_db.NotOwner:
            LOG.warning('Site action %s was taken over by another '
                        'conductor; %s stops running it', self.uuid,
                        self.host)
            return False
        finally:
            self.limit.release(self.held)
            self.held = 0

    def _current_group(self) -> str | None:
        for name in self.progress['order']:
            if self.progress['groups'][name]['state'] != \
                    site_progress.DONE:
                return name
        return None

    def _save(self, result: str | None = None) -> None:
        site_db.save_progress(self.action_id, self.host, self.progress,
                              [r.row() for r in self._dirty.values()],
                              result=result,
                              tag=versions.action_tag(result))
        self._dirty.clear()

    def _save_nodes(self) -> None:
        if self._dirty:
            site_db.save_progress(self.action_id, self.host, None,
                                  [r.row() for r in self._dirty.values()])
            self._dirty.clear()

    def _finish(self) -> None:
        critical = [g.name for g in self.strategy.groups if g.critical]
        result = site_progress.action_result(
            self.progress, critical, (r.status for r in
                                      self.records.values()))
        self._save(result=result)
        LOG.info('Site action %s finished: %s', self.uuid, result)

    # Groups

    def _begin(self, group: Group) -> None:
        state = self.progress['groups'][group.name]
        self.progress['order'].append(group.name)
        failed = [d for d in group.depends_on if site_progress.group_failed(
            self.progress['groups'][d])]
        if failed:
            outcome = {'result': site_progress.FAILED_DEPENDENCY,
                       'dependencies': failed}
            state.update(state=site_progress.DONE, prepare=outcome,
                         deploy=dict(outcome))
            LOG.info('Site action %s: group %s failed: dependency %s '
                     'failed', self.uuid, group.name, ', '.join(failed))
        else:
            self._start_phase(group, node_flow.PREPARE)
        self._save()

    def _start_phase(self, group: Group, phase: str) -> None:
        state = self.progress['groups'][group.name]
        eligible = node_flow.ELIGIBLE[phase]
        state.update(state=phase, phase_started_at=_iso(self.clock()),
                     phase_nodes=[u for u in state['nodes']
                                  if self.records[u].status == eligible])
        LOG.info('Site action %s: %s of group %s starts with %d of its %d '
                 'nodes', self.uuid, phase, group.name,
                 len(state['phase_nodes']), len(state['nodes']))

    def _advance(self, group: Group) -> None:
        state = self.progress['groups'][group.name]
        phase = state['state']
        outcome = self._run_phase(group, phase)
        if outcome is None:
            return
        LOG.info('Site action %s: %s of group %s: %s', self.uuid, phase,
                 group.name, outcome['result'])
        if phase == node_flow.PREPARE:
            state['prepare'] = outcome
            if outcome['result'] == site_progress.SUCCESS:
                self._start_phase(group, node_flow.DEPLOY)
            else:
                state.update(state=site_progress.DONE, deploy={
                    'result': site_progress.FAILED_PREPARE})
        else:
            state.update(state=site_progress.DONE, deploy=outcome)
        self._save()

    def _judge(self, group: Group, phase: str) -> dict[str, Any]:
        nodes = self.progress['groups'][group.name]['nodes']
        successful = [u for u in nodes if self.records[u].status in
                      node_flow.SUCCESSFUL[phase]]
        failures = group.success_criteria.failures(nodes, successful)
        if failures:
            return {'result': site_progress.FAILED_CRITERIA,
                    'criteria': failures}
        return {'result': site_progress.SUCCESS}

    # Phases

    def _deadline(self, group: Group, phase: str
                  ) -> datetime.datetime:
        started = datetime.datetime.fromisoformat(
            self.progress['groups'][group.name]['phase_started_at'])
        return started + datetime.timedelta(seconds=_timeout(phase))

    def _run_phase(self, group: Group, phase: str
                   ) -> dict[str, Any] | None:
        """Drive the phase's nodes to the end; None if told to stop."""
        nodes = self.progress['groups'][group.name]['phase_nodes']
        wave = group.strategy.wave_size(len(nodes))
        deadline = self._deadline(group, phase)
        finished = node_flow.FINISHED[phase]
        shortest = min(MIN_POLL_DELAY, CONF.site.node_poll_interval)
        delay = shortest
        while not self.stop.is_set():
            waiting = [u for u in nodes
                       if self.records[u].status not in finished]
            if not waiting:
                return self._judge(group, phase)
            if self.clock() > deadline:
                return self._time_out(group, phase, waiting)
            first = nodes.index(waiting[0]) // wave * wave
            candidates = [u for u in nodes[first:first + wave]
                          if self.records[u].status not in finished and
                          self.records[u].phase is None]
            in_flight = [u for u in waiting if self.records[u].phase]
            changed = self._step(group, phase, in_flight, candidates)
            self._save_nodes()
            delay = shortest if changed else \
                min(delay * 2, CONF.site.node_poll_interval)
            self.stop.wait(delay)
        return None

    def _step(self, group: Group, phase: str, in_flight: list,
              candidates: list) -> bool:
        """Read the nodes' states once and act on them; True if any
        node moved on."""
        states = self.backend.read_states(in_flight + candidates)
        decide = node_flow.DECIDE[phase]
        changed = False
        for uuid in in_flight + candidates:
            record = self.records[uuid]
            decision = decide(states.get(uuid), record.request)
            if decision.kind == node_flow.DONE:
                self._end(record, decision.status, decision.reason)
                changed = True
            elif record.phase is None and not self.limit.try_acquire():
                continue
            else:
                if record.phase is None:
                    self.held += 1
                    record.phase = phase
                    self._dirty[uuid] = record
                if decision.kind == node_flow.SUBMIT:
                    changed |= self._submit(group, record, decision.verb)
        return changed

    def _submit(self, group: Group, record: NodeRecord,
                verb: str) -> bool:
        try:
            if verb == seam.DEPLOY:
                self.backend.start_deploy(record.uuid, group.deploy_steps,
                                          group.deploy_templates)
            else:
                self.backend.start_prepare(record.uuid, verb)
        except seam.Busy as exc:
            LOG.debug('Node %s is busy, %s retried later: %s', record.name,
                      verb, exc)
            return False
        except seam.Rejected as exc:
            self._end(record, site_models.FAILURE, '%s refused: %s'
                      % (verb, exc))
            return True
        record.request = verb
        self._dirty[record.uuid] = record
        return True

    def _end(self, record: NodeRecord, status: str,
             reason: str | None) -> None:
        if record.phase:
            self.held -= 1
            self.limit.release()
        record.status = status
        record.reason = reason
        record.phase = None
        record.request = None
        self._dirty[record.uuid] = record
        if status == site_models.FAILURE:
            LOG.info('Site action %s: node %s failed: %s', self.uuid,
                     record.name, reason)

    def _time_out(self, group: Group, phase: str,
                  waiting: list[str]) -> dict[str, Any]:
        timeout = _timeout(phase)
        for uuid in waiting:
            record = self.records[uuid]
            if record.phase:
                self._end(record, site_models.FAILURE,
                          '%s timed out after %d seconds' % (phase, timeout))
        return {'result': site_progress.FAILED_TIMEOUT, 'timeout': timeout}
