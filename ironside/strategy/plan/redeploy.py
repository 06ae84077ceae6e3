"""The ``redeploy_server`` plan: its steps, and creating the action.

A redeploy_server action runs a plan like any site action, with steps
before its groups, which the one runner runs in order
(:mod:`ironside.strategy.run.redeploy`): **decommission** the node from
Kubernetes and etcd, **destroy** it through its own hardware
interfaces, **remove** it from the Kubernetes cluster, then **redeploy**
it: back in service, and the design's plan restricted to this node (its
groups, judged by the one node), as deploy_site runs it.

The steps as the action's progress stores them, under
``progress["redeploy"]``::

    {"node": "ctl01", "node_uuid": "...", "labels": ["ucp_control_plane"],
     "preserve_local_storage": false,
     "steps": {"drain-node": {"step": "drain-node", "state": "succeeded",
                              "status": {...status response...}},
               ...,
               "destroy": {"step": "destroy", "state": "running",
                           "request": "clean", "retired": true,
                           "wiped": false}},
     "status": {...the action's status response...} | null}

Each step is ``running`` while it runs and ``succeeded`` or ``failed``
with its status response when it ends, or ``not applicable`` (with a
Success status saying why) when it is for what the site does not have,
Kubernetes or etcd clusters (:mod:`..decommission.clusters`): the
decommission's own five (:data:`..decommission.sequence.STEPS`), the
decommission as a whole, ``destroy``, ``remove-from-cluster`` and
``redeploy``.

Creating the action checks everything before anything changes, in
order: the parameters (unknown ones, bad values, a drain grace period
longer than its timeout: 400), the node is named and exists in Ironside
(404), the target revision exists (404; default
``successful-site-action``), the intermediate-commit guard and the
node's place in that revision's inventory and strategy
(:func:`.design_actions.prepare`, restricted to the node), and, for a
revision that declares Kubernetes, that ``[redeploy]kubeconfig`` is set
(400 without it). Only then is
the node's inventory entry applied and the action queued, holding the
node. Whether Kubernetes knows the node is the decommission's first read
(NotFound, still before anything changed).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ironside.common import exception
from ironside.strategy import progress as site_progress
from ironside.strategy.decommission import clusters
from ironside.strategy.decommission import sequence
from ironside.strategy.decommission import status as st
from ironside.strategy.decommission.sequence import DecommissionOptions
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.nodes import seam
from ironside.strategy.plan import design_actions
from ironside.strategy.plan import parameters as action_parameters
from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.plan.build import build_plan
from ironside.strategy.reader.action_input import ActionInput
from ironside.strategy.reader.action_input import RunOptions

KEY = 'redeploy'

DECOMMISSION = 'decommission'
DESTROY = 'destroy'
REMOVE_FROM_CLUSTER = 'remove-from-cluster'
REDEPLOY = 'redeploy'
# The action's own steps, in order; the report also lists the
# decommission's, before them.
MAIN_STEPS = (DECOMMISSION, DESTROY, REMOVE_FROM_CLUSTER, REDEPLOY)
ALL_STEPS = sequence.STEPS + MAIN_STEPS

RUNNING = sequence.RUNNING
SUCCEEDED = sequence.SUCCEEDED
FAILED = sequence.FAILED
NOT_APPLICABLE = sequence.NOT_APPLICABLE
DONE = sequence.DONE
PENDING = 'pending'


def initial(node: str, node_uuid: str, labels: list[str],
            preserve_local_storage: bool) -> dict[str, Any]:
    return {'node': node, 'node_uuid': node_uuid, 'labels': list(labels),
            'preserve_local_storage': preserve_local_storage,
            'steps': {}, 'status': None}


def ended(step: str, status: st.Status, applies: bool = True,
          **fields: Any) -> dict[str, Any]:
    """A step's record once it ended with ``status``; ``applies`` False:
    it was not applicable (``status`` says why)."""
    state = SUCCEEDED if status.succeeded else FAILED
    return dict(fields, step=step,
                state=state if applies else NOT_APPLICABLE,
                status=status.as_dict())


def status_of(record: Mapping[str, Any] | None) -> st.Status | None:
    if not record or not record.get('status'):
        return None
    return st.Status.from_dict(record['status'])


def overall(state: Mapping[str, Any], failed_step: str | None,
            failure: st.Status | None) -> st.Status:
    """The action's status response: the failing step's (its details
    listing every step of the action), or Success."""
    messages = []
    for step in MAIN_STEPS:
        record = state['steps'].get(step)
        status = status_of(record)
        if status is None:
            messages.append(st.Message('not run', name=step,
                                       kind=st.STEP_MESSAGE))
        elif record['state'] == NOT_APPLICABLE:
            messages.append(st.Message(status.message, name=step,
                                       kind=st.STEP_MESSAGE))
        else:
            messages.append(st.Message(
                '%s: %s' % (status.reason, status.message), name=step,
                error=not status.succeeded, kind=st.STEP_MESSAGE))
    node = state['node']
    if failure is None:
        return st.success('Node %s redeployed' % node, messages)
    return st.Status(failure.reason, 'redeploy_server of node %s failed at '
                     'step %s: %s' % (node, failed_step, failure.message),
                     failure.code, tuple(messages) + tuple(
                         m for m in failure.messages
                         if m.name not in MAIN_STEPS), failure.retry)


def result(status: st.Status, failed_step: str | None) -> str:
    """The action's result, as the site action list shows it."""
    if status.succeeded:
        return 'success'
    return 'failed: %s at step %s (%s %d)' % (
        'redeploy_server', failed_step, status.reason, status.code)


def report(state: Mapping[str, Any]) -> dict[str, Any]:
    """The report's ``redeploy`` section: every step in order, with its
    state and status response, and the action's status response."""
    listed = []
    for step in ALL_STEPS:
        record = state['steps'].get(step)
        entry = {'step': step, 'state': record['state'] if record
                 else PENDING, 'status': record.get('status')
                 if record else None}
        listed.append(entry)
    return {'node': state['node'], 'node_uuid': state['node_uuid'],
            'preserve_local_storage': state['preserve_local_storage'],
            'labels': list(state.get('labels') or ()),
            'steps': listed, 'status': state.get('status')}


# Creating the action

ACTION = action_parameters.REDEPLOY_SERVER
DEFAULT_TARGET = versions.SUCCESSFUL_SITE_ACTION


def read_parameters(parameters: Mapping[str, Any] | None) -> dict[str, Any]:
    """The action's parameters, read and checked; the target revision
    defaults to ``successful-site-action`` (the spec's last-known-good)."""
    params = action_parameters.read(ACTION, parameters, runs_design=True)
    if action_parameters.NODE not in params:
        raise exception.InvalidActionParameters(
            err='redeploy_server needs the parameter "node": the name of '
                'the node to redeploy (its host name in Kubernetes and '
                'etcd)')
    # BadRequest (400), e.g. a grace period longer than the drain timeout.
    DecommissionOptions.from_parameters(params)
    params.setdefault(action_parameters.TARGET_REVISION, DEFAULT_TARGET)
    return params


@dataclasses.dataclass(frozen=True)
class Planned:
    """What the action is stored with (:func:`..actions.create_action`)."""

    prepared: design_actions.Prepared
    plan: ActionPlan
    progress: dict[str, Any]
    parameters: dict[str, Any]
    log: list[dict[str, str]]


def plan_action(nodes: seam.PlanNodes,
                parameters: Mapping[str, Any] | None) -> Planned:
    """Check a redeploy_server action and plan it (see the module doc);
    the node's inventory entry is applied, nothing else is changed."""
    params = read_parameters(parameters)
    name = params[action_parameters.NODE]
    known = nodes.find_nodes([name]).get(name)
    if known is None:
        raise exception.NodeNotFound(node=name)
    revision = design_actions.target_revision(params)
    design = store.design(revision)
    if name not in design.nodes:
        raise exception.DesignIncomplete(
            revision=revision, reason='node %s is not in its inventory, so '
            'it has no design to be redeployed to' % name)
    problem = clusters.missing_kubeconfig(
        revision, clusters.kubernetes_documents(design.documents))
    if problem is not None:
        raise exception.DecommissionFailed(st.failure(st.BAD_REQUEST,
                                                      problem))
    prepared = design_actions.prepare(nodes, ACTION, params, only=[name],
                                      design=design)
    plan = build_plan(ActionInput(prepared.documents,
                                  RunOptions.of({'nodes': [name]}),
                                  prepared.access), nodes,
                      site_nodes=prepared.site_nodes)
    if not plan.node_names:
        raise exception.DesignIncomplete(
            revision=revision, reason='node %s is in no group of strategy '
            '%s, so nothing would deploy it again' % (name, prepared.name))
    labels = sorted(set(design.nodes[name].labels) |
                    set((known.extra or {}).get('labels') or {}))
    preserve = bool(params.get(action_parameters.PRESERVE_LOCAL_STORAGE))
    progress = site_progress.initial(plan.group_nodes)
    progress[KEY] = initial(name, known.uuid, labels, preserve)
    log = prepared.log + [design_actions.log_entry(
        'Redeploys node %s: decommission, destroy (%s), remove from '
        'Kubernetes, deploy again' % (
            name, 'only the OS disk wiped' if preserve
            else 'every disk wiped')),
        design_actions.log_entry(clusters.summary(design.documents))]
    return Planned(prepared, plan, progress, params, log)
