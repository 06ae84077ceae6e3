"""The steps of a redeploy_server plan, as the one runner runs them (the
plan and its record: :mod:`..plan.redeploy`).

Before its groups, the plan has four steps of its own (:func:`steps`):
decommission, destroy, remove from the cluster, back in service; its
groups are then run as any plan's (:class:`.steps.Groups`), each judged
by the one node, and their ending also ends the redeploy step and tells
the action's status response.

Every step is recorded in the action's progress before it starts and
when it ends, as the action's owner: a runner that lost the action stops
at its next write, and the conductor that took it over starts again at
the step it was in. Steps recorded ``succeeded`` are not run again; the
one that was running runs again, which never acts twice: the
decommission's steps are idempotent (:mod:`..decommission.sequence`),
the destroy step decides from the node's state (:mod:`.destroy`), a node
the interrupted removal already deleted from Kubernetes counts as
removed, and the groups take over nodes in flight by polling them.

What the site does not have is not applicable, and says so in the
report: without Kubernetes in the revision's design, the decommission's
Kubernetes steps and remove-from-cluster; without etcd clusters, its
etcd steps (:mod:`..decommission.clusters`, :mod:`.peers`). A site with
neither is destroyed and deployed again.

The action ends at the first step that fails, with that step's status
response. One that changed nothing (the node is not in Kubernetes, the
parameters cannot work, Kubernetes or etcd cannot be reached from here)
leaves the design revision untagged, as the teardown spec has it; any
other ending tags it ``site-action-success`` or ``site-action-failure``.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from typing import Any

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import progress as site_progress
from ironside.strategy.core.criteria import SuccessCriteria
from ironside.strategy.core.model import Group
from ironside.strategy.decommission import clusters
from ironside.strategy.decommission import sequence
from ironside.strategy.decommission import status as st
from ironside.strategy.decommission.sequence import Decommission
from ironside.strategy.decommission.sequence import DecommissionOptions
from ironside.strategy.decommission.sequence import StepRecord
from ironside.strategy.designs import versions
from ironside.strategy.nodes import seam
from ironside.strategy.plan import redeploy as plan
from ironside.strategy.run import destroy
from ironside.strategy.run import peers as site_peers
from ironside.strategy.run.groups import GroupPhases
from ironside.strategy.run.node_flow import MIN_POLL_DELAY
from ironside.strategy.run.steps import CONTINUE
from ironside.strategy.run.steps import FINISHED
from ironside.strategy.run.steps import STOPPED
from ironside.strategy.run.steps import Groups
from ironside.strategy.run.steps import RunningAction
from ironside.strategy.run.steps import Step

LOG = logging.getLogger(__name__)

# Failures that leave everything as it was: the revision is not tagged.
_NOTHING_CHANGED = frozenset((st.NOT_FOUND, st.BAD_REQUEST))
# How each group of the plan is judged: its one node must succeed. The
# strategy's success criteria are the whole site's (a control group of
# one node would fail "minimum 3 successful"; an empty group "minimum
# 1"), and the rest of the site is not part of this action.
_ONE_NODE = SuccessCriteria(maximum_failed_nodes=0)


def steps(action: RunningAction) -> list[Step]:
    """The plan's steps, in order, over one shared record."""
    redeploy = Redeploy(action)
    return [_Recorded(plan.DECOMMISSION, redeploy, redeploy.decommission),
            _Recorded(plan.DESTROY, redeploy, redeploy.destroy),
            _Recorded(plan.REMOVE_FROM_CLUSTER, redeploy, redeploy.remove),
            _BackInService(redeploy),
            Groups(criteria=_judged_by_one_node, ending=redeploy.redeployed)]


def _judged_by_one_node(_group: Group) -> SuccessCriteria:
    return _ONE_NODE


class _Recorded:
    """A step whose record says whether it already succeeded, and whose
    status response decides whether the action goes on."""

    def __init__(self, name: str, redeploy: Redeploy,
                 body: Callable[[], st.Status | None]) -> None:
        self.name = name
        self.redeploy = redeploy
        self.body = body

    def run(self, action: RunningAction) -> str:
        record = self.redeploy.state['steps'].get(self.name)
        if record and record['state'] in plan.DONE:
            return CONTINUE
        if action.stop.is_set():
            return STOPPED
        status = self.body()
        if status is None:
            return STOPPED
        if not status.succeeded:
            self.redeploy.fail(self.name, status)
            return FINISHED
        return CONTINUE


class _BackInService:
    """The redeploy step's start: the node back in service (its groups
    then deploy it)."""

    name = plan.REDEPLOY

    def __init__(self, redeploy: Redeploy) -> None:
        self.redeploy = redeploy

    def run(self, action: RunningAction) -> str:
        if action.stop.is_set():
            return STOPPED
        return self.redeploy.back_in_service()


class Redeploy:
    """One redeploy_server action's record, and what its steps do."""

    def __init__(self, action: RunningAction) -> None:
        self.action = action
        self.backend = action.nodes
        self.stop = action.stop
        self.clock = action.clock
        self._make_peers = action.peers or site_peers.from_config
        self._peers: site_peers.Peers | None = None
        self.uuid = action.uuid
        self.state = action.progress[plan.KEY]
        self.node = self.state['node']
        self.node_uuid = self.state['node_uuid']

    # Records

    def _record(self, record: dict[str, Any]) -> None:
        self.state['steps'][record['step']] = record
        self.action.save()

    def _peers_or_failure(self) -> site_peers.Peers | st.Status:
        if self._peers is None:
            try:
                self._peers = self._make_peers(self.action.row)
            except exception.DecommissionFailed as exc:
                return st.carried(exc)
        return self._peers

    def fail(self, step: str, status: st.Status) -> None:
        """End the action at ``step``, which failed with ``status``."""
        overall = plan.overall(self.state, step, status)
        self.state['status'] = overall.as_dict()
        result = plan.result(overall, step)
        tag = versions.action_tag(result) if self._changed(step) else None
        rows = [{'id': row.id, 'status': site_models.FAILURE, 'phase': None,
                 'request': None, 'reason': '%s: %s' % (step, status)}
                for row in site_db.action_nodes(self.action.row.id)]
        self.action.save(nodes=rows, result=result, tag=tag)
        LOG.info('Site action %s: redeploy_server of %s failed at %s: %s',
                 self.uuid, self.node, step, status)

    def _changed(self, step: str) -> bool:
        """Whether the action changed anything before it failed at
        ``step``: not when no decommission step ran (or none applied), or
        only a drain that found nothing to act on (NotFound,
        BadRequest)."""
        if step != plan.DECOMMISSION:
            return True
        for name in sequence.STEPS:
            record = self.state['steps'].get(name)
            status = plan.status_of(record)
            if record and record['state'] != plan.NOT_APPLICABLE and not (
                    name == sequence.DRAIN_NODE and status is not None and
                    status.reason in _NOTHING_CHANGED):
                return True
        return False

    # Steps

    def decommission(self) -> st.Status:
        self._record({'step': plan.DECOMMISSION, 'state': plan.RUNNING})
        status, applies = self._decommission()
        self._record(plan.ended(plan.DECOMMISSION, status, applies))
        return status

    def _decommission(self) -> tuple[st.Status, bool]:
        """The decommission's status, and whether any of it applied."""
        peers = self._peers_or_failure()
        if isinstance(peers, st.Status):
            return peers, True
        done = [StepRecord.from_dict(self.state['steps'][s])
                for s in sequence.STEPS if s in self.state['steps']]
        try:
            options = DecommissionOptions.from_parameters(
                self.action.row.parameters,
                etcd_poll_interval=CONF.redeploy.etcd_poll_interval)
        except exception.DecommissionFailed as exc:
            return st.carried(exc), True
        decommission = Decommission(peers.kubernetes, peers.etcd, options)
        status = decommission.run(
            self.node, self.state['labels'], done,
            lambda record: self._record(record.as_dict()))
        return status, decommission.applies

    def destroy(self) -> st.Status | None:
        record = dict(self.state['steps'].get(plan.DESTROY) or {
            'step': plan.DESTROY, 'state': plan.RUNNING,
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
                verb = move.verb
                assert verb is not None  # a SUBMIT move names its request
                try:
                    record.update(destroy.submit(
                        self.backend, self.node_uuid, verb,
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
        self._record(plan.ended(plan.DESTROY, status, **{
            k: v for k, v in record.items()
            if k not in ('step', 'state', 'status')}))
        return status

    def remove(self) -> st.Status | None:
        prior = self.state['steps'].get(plan.REMOVE_FROM_CLUSTER)
        peers = self._peers_or_failure()
        if isinstance(peers, st.Status):
            status = peers
        elif peers.kubernetes is None:
            status = st.success(clusters.NO_KUBERNETES)
            self._record(plan.ended(plan.REMOVE_FROM_CLUSTER, status,
                                    applies=False))
            return status
        else:
            self._record({'step': plan.REMOVE_FROM_CLUSTER,
                          'state': plan.RUNNING})
            status = peers.kubernetes.remove_from_cluster(self.node)
            if status.reason == st.NOT_FOUND and prior is not None:
                # Deleted by the run this one takes over from.
                status = st.success('Node %s was removed from the Kubernetes '
                                    'cluster' % self.node)
        self._record(plan.ended(plan.REMOVE_FROM_CLUSTER, status))
        return status

    def back_in_service(self) -> str:
        record = dict(self.state['steps'].get(plan.REDEPLOY) or {
            'step': plan.REDEPLOY, 'state': plan.RUNNING})
        self._record(record)
        delay = min(MIN_POLL_DELAY, CONF.site.node_poll_interval)
        while not record.get('in_service'):
            if self.stop.is_set():
                return STOPPED
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
                self._record(plan.ended(plan.REDEPLOY, status))
                self.fail(plan.REDEPLOY, status)
                return FINISHED
            record['in_service'] = True
            self._record(record)
        return CONTINUE

    # The ending

    def redeployed(self, result: str, groups: GroupPhases) -> str:
        """The groups' ending ends the redeploy step: the action's status
        response and result."""
        state = groups.progress[plan.KEY]
        node = state['node']
        if result == site_progress.ACTION_SUCCESS:
            status = st.success('Node %s deployed again from design '
                                'revision %s' % (node, groups.revision))
            failed = None
        else:
            reasons = '; '.join(r.reason for r in groups.records.values()
                                if r.reason)
            status = st.failure(st.DEPLOY_NODE_ERROR, 'Deploying node %s '
                                'again failed: %s%s' % (
                                    node, result,
                                    ' (%s)' % reasons if reasons else ''))
            failed = plan.REDEPLOY
        state['steps'][plan.REDEPLOY] = plan.ended(
            plan.REDEPLOY, status, in_service=True)
        overall = plan.overall(state, failed, status if failed else None)
        state['status'] = overall.as_dict()
        return plan.result(overall, failed)
