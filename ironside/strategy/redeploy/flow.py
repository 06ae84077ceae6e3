"""Runs a redeploy_server action on a conductor (see the package doc).

Every step is recorded in the action's progress (:mod:`.steps`) before
it starts and when it ends, as the action's owner: a runner that lost
the action stops at its next write, and the conductor that took it over
starts again at the step it was in. Steps recorded ``succeeded`` are not
run again; the one that was running runs again, which never acts twice:
the decommission's steps are idempotent
(:mod:`..decommission.sequence`), the destroy step decides from the
node's state (:mod:`.destroy`), a node the interrupted removal already
deleted from Kubernetes counts as removed, and the redeploy is the site
action runner's own, which takes over nodes in flight by polling them.

The action ends at the first step that fails, with that step's status
response. One that changed nothing (the node is not in Kubernetes, the
parameters cannot work, Kubernetes or etcd cannot be reached from here)
leaves the design revision untagged, as the teardown spec has it; any
other ending tags it ``site-action-success`` or ``site-action-failure``.
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from typing import Any

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.db import models
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import node_flow
from ironside.strategy import progress as site_progress
from ironside.strategy import seam
from ironside.strategy import task_flow
from ironside.strategy.core.criteria import SuccessCriteria
from ironside.strategy.core.model import Group
from ironside.strategy.decommission import sequence
from ironside.strategy.decommission import status as st
from ironside.strategy.decommission.sequence import Decommission
from ironside.strategy.decommission.sequence import DecommissionOptions
from ironside.strategy.decommission.sequence import StepRecord
from ironside.strategy.designs import versions
from ironside.strategy.in_flight import InFlightLimit
from ironside.strategy.plan import redeploy as steps
from ironside.strategy.redeploy import destroy
from ironside.strategy.redeploy import peers as site_peers
from ironside.strategy.runner import MIN_POLL_DELAY
from ironside.strategy.runner import ActionRunner

LOG = logging.getLogger(__name__)

# Failures that leave everything as it was: the revision is not tagged.
_NOTHING_CHANGED = frozenset((st.NOT_FOUND, st.BAD_REQUEST))
# How each group of the redeploy's plan is judged (see PlanRunner).
_ONE_NODE = SuccessCriteria(maximum_failed_nodes=0)


class RedeployRunner:
    def __init__(self, action_uuid: str, host: str, nodes: seam.NodeBackend,
                 limit: InFlightLimit, stop: threading.Event | None = None,
                 clock: Callable[[], datetime.datetime] = models.utcnow,
                 tasks: task_flow.TaskExecution |
                 Callable[[], task_flow.TaskExecution] | None = None,
                 peers: Callable[[site_models.SiteAction],
                                 site_peers.Peers] = site_peers.from_config
                 ) -> None:
        """``peers``: how Kubernetes and etcd are reached (by default as
        the conductor's configuration and the design say)."""
        self.host = host
        self.backend = nodes
        self.limit = limit
        self.stop = stop or threading.Event()
        self.clock = clock
        self._tasks = tasks
        self._make_peers = peers
        self._peers: site_peers.Peers | None = None
        self.action = site_db.get_action(action_uuid)
        self.uuid = self.action.uuid
        self.progress = self.action.progress
        self.state = self.progress[steps.KEY]
        self.node = self.state['node']
        self.node_uuid = self.state['node_uuid']

    def run(self) -> bool:
        """Run until the action finishes (True) or the runner must stop
        (False: asked to, or another conductor owns the action)."""
        try:
            for step, run in ((steps.DECOMMISSION, self._decommission),
                              (steps.DESTROY, self._destroy),
                              (steps.REMOVE_FROM_CLUSTER, self._remove)):
                record = self.state['steps'].get(step)
                if record and record['state'] == steps.SUCCEEDED:
                    continue
                if self.stop.is_set():
                    return False
                status = run()
                if status is None:
                    return False
                if not status.succeeded:
                    self._fail(step, status)
                    return True
            if self.stop.is_set():
                return False
            return self._redeploy()
        except site_db.NotOwner:
            LOG.warning('Site action %s was taken over by another '
                        'conductor; %s stops running it', self.uuid,
                        self.host)
            return False

    # Records

    def _save(self, **kwargs: Any) -> None:
        site_db.save_progress(self.action.id, self.host, self.progress,
                              **kwargs)

    def _record(self, record: dict[str, Any]) -> None:
        self.state['steps'][record['step']] = record
        self._save()

    def _peers_or_failure(self) -> site_peers.Peers | st.Status:
        if self._peers is None:
            try:
                self._peers = self._make_peers(self.action)
            except exception.DecommissionFailed as exc:
                return exc.status
        return self._peers

    def _fail(self, step: str, status: st.Status) -> None:
        overall = steps.overall(self.state, step, status)
        self.state['status'] = overall.as_dict()
        result = steps.result(overall, step)
        tag = versions.action_tag(result) if self._changed(step) else None
        rows = [{'id': row.id, 'status': site_models.FAILURE, 'phase': None,
                 'request': None, 'reason': '%s: %s' % (step, status)}
                for row in site_db.action_nodes(self.action.id)]
        self._save(nodes=rows, result=result, tag=tag)
        LOG.info('Site action %s: redeploy_server of %s failed at %s: %s',
                 self.uuid, self.node, step, status)

    def _changed(self, step: str) -> bool:
        """Whether the action changed anything before it failed at
        ``step``: not when no decommission step ran, or only a drain that
        found nothing to act on (NotFound, BadRequest)."""
        if step != steps.DECOMMISSION:
            return True
        for name in sequence.STEPS:
            status = steps.status_of(self.state['steps'].get(name))
            if name in self.state['steps'] and not (
                    name == sequence.DRAIN_NODE and status is not None and
                    status.reason in _NOTHING_CHANGED):
                return True
        return False

    # Steps

    def _decommission(self) -> st.Status:
        self._record({'step': steps.DECOMMISSION, 'state': steps.RUNNING})
        peers = self._peers_or_failure()
        if isinstance(peers, st.Status):
            status = peers
        else:
            done = [StepRecord.from_dict(self.state['steps'][s])
                    for s in sequence.STEPS if s in self.state['steps']]
            try:
                options = DecommissionOptions.from_parameters(
                    self.action.parameters,
                    etcd_poll_interval=CONF.redeploy.etcd_poll_interval)
            except exception.DecommissionFailed as exc:
                status = exc.status
            else:
                status = Decommission(peers.kubernetes, peers.etcd,
                                      options).run(
                    self.node, self.state['labels'], done,
                    lambda record: self._record(record.as_dict()))
        self._record(steps.ended(steps.DECOMMISSION, status))
        return status

    def _destroy(self) -> st.Status | None:
        record = dict(self.state['steps'].get(steps.DESTROY) or {
            'step': steps.DESTROY, 'state': steps.RUNNING,
            'started_at': self.clock().isoformat()})
        self._record(record)
        deadline = datetime.datetime.fromisoformat(record['started_at']) + \
            datetime.timedelta(seconds=CONF.redeploy.destroy_timeout)
        reason = 'redeploy_server %s: destroyed, to be deployed again' \
            % self.uuid
        delay = min(MIN_POLL_DELAY, CONF.site.node_poll_interval)
        while not self.stop.is_set():
            node = self.backend.read_states([self.node_uuid]).get(
                self.node_uuid)
            move = destroy.decide(node, record)
            if move.kind == destroy.DONE:
                return self._destroyed(record)
            if move.kind == destroy.FAIL:
                return self._end(record, st.failure(
                    st.DESTROY_NODE_ERROR, 'Destroying node %s failed: %s'
                    % (self.node, move.reason)))
            if move.kind == destroy.NOTE:
                record.update(move.updates)
                self._record(record)
                continue
            if move.kind == destroy.SUBMIT:
                try:
                    record.update(destroy.submit(
                        self.backend, self.node_uuid, move.verb,
                        self.state['preserve_local_storage'], reason))
                except seam.Busy as exc:
                    LOG.debug('Node %s is busy; %s asked again later: %s',
                              self.node, move.verb, exc)
                except seam.Rejected as exc:
                    return self._end(record, st.failure(
                        st.DESTROY_NODE_ERROR, 'Node %s refused %s: %s'
                        % (self.node, move.verb, exc)))
                else:
                    self._record(record)
                    continue
            if self.clock() > deadline:
                return self._end(record, st.failure(
                    st.DESTROY_NODE_ERROR, 'Node %s was not destroyed within '
                    '%d s (state %s)' % (
                        self.node, CONF.redeploy.destroy_timeout,
                        node.provision_state if node else None)))
            self.stop.wait(delay)
            delay = min(delay * 2, CONF.site.node_poll_interval)
        return None

    def _destroyed(self, record: dict[str, Any]) -> st.Status:
        wiped = 'only its OS disk' if self.state['preserve_local_storage'] \
            else 'every disk'
        return self._end(record, st.success(
            'Node %s destroyed: out of service (retired), %s wiped, powered '
            'off' % (self.node, wiped), [
                st.Message(text, name=step, kind=st.STEP_MESSAGE)
                for step, text in (
                    ('retire', 'retired'),
                    ('wipe', 'management.wipe_local_storage: %s' % wiped),
                    ('power-off', 'power off'))]))

    def _end(self, record: dict[str, Any], status: st.Status) -> st.Status:
        self._record(steps.ended(steps.DESTROY, status, **{
            k: v for k, v in record.items()
            if k not in ('step', 'state', 'status')}))
        return status

    def _remove(self) -> st.Status | None:
        prior = self.state['steps'].get(steps.REMOVE_FROM_CLUSTER)
        peers = self._peers_or_failure()
        if isinstance(peers, st.Status):
            status = peers
        else:
            self._record({'step': steps.REMOVE_FROM_CLUSTER,
                          'state': steps.RUNNING})
            status = peers.kubernetes.remove_from_cluster(self.node)
            if status.reason == st.NOT_FOUND and prior is not None:
                # Deleted by the run this one takes over from.
                status = st.success('Node %s was removed from the Kubernetes '
                                    'cluster' % self.node)
        self._record(steps.ended(steps.REMOVE_FROM_CLUSTER, status))
        return status

    def _redeploy(self) -> bool:
        record = dict(self.state['steps'].get(steps.REDEPLOY) or {
            'step': steps.REDEPLOY, 'state': steps.RUNNING})
        self._record(record)
        delay = min(MIN_POLL_DELAY, CONF.site.node_poll_interval)
        while not record.get('in_service'):
            if self.stop.is_set():
                return False
            try:
                self.backend.set_retired(self.node_uuid, False)
            except seam.Busy:
                self.stop.wait(delay)
                delay = min(delay * 2, CONF.site.node_poll_interval)
                continue
            except seam.Rejected as exc:
                status = st.failure(st.DEPLOY_NODE_ERROR, 'Node %s could not '
                                    'be brought back in service: %s'
                                    % (self.node, exc))
                self._record(steps.ended(steps.REDEPLOY, status))
                self._fail(steps.REDEPLOY, status)
                return True
            record['in_service'] = True
            self._record(record)
        return PlanRunner(self.uuid, self.host, self.backend, self.limit,
                          self.stop, self.clock, self._tasks).run()


class PlanRunner(ActionRunner):
    """The design's plan for the one node, run as deploy_site runs it;
    its ending also ends the redeploy step and the action's status.

    Each group is judged by the one node alone: it must succeed. The
    strategy's success criteria are the whole site's (a control group of
    one node would fail "minimum 3 successful"; an empty group "minimum
    1"), and the rest of the site is not part of this action.
    """

    def _judge(self, group: Group, phase: str) -> dict[str, Any]:
        nodes = self._state(group.name)['nodes']
        successful = [u for u in nodes if self.records[u].status in
                      node_flow.SUCCESSFUL[phase]]
        failures = _ONE_NODE.failures(nodes, successful)
        if failures:
            return {'result': site_progress.FAILED_CRITERIA,
                    'criteria': failures}
        return {'result': site_progress.SUCCESS}

    def _save(self, result: str | None = None) -> None:
        if result is not None:
            result = self._redeployed(result)
        super()._save(result=result)

    def _redeployed(self, result: str) -> str:
        state = self.progress[steps.KEY]
        node = state['node']
        if result == site_progress.ACTION_SUCCESS:
            status = st.success('Node %s deployed again from design '
                                'revision %s' % (node, self._revision()))
            failed = None
        else:
            reasons = '; '.join(r.reason for r in self.records.values()
                                if r.reason)
            status = st.failure(st.DEPLOY_NODE_ERROR, 'Deploying node %s '
                                'again failed: %s%s' % (
                                    node, result,
                                    ' (%s)' % reasons if reasons else ''))
            failed = steps.REDEPLOY
        state['steps'][steps.REDEPLOY] = steps.ended(
            steps.REDEPLOY, status, in_service=True)
        overall = steps.overall(state, failed, status if failed else None)
        state['status'] = overall.as_dict()
        return steps.result(overall, failed)

    def _revision(self) -> Any:
        return site_db.get_action(self.uuid).revision_id
