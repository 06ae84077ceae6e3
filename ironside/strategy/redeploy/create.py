"""Creating a redeploy_server action: every check before anything changes.

In order: the parameters (unknown ones, bad values, a drain grace period
longer than its timeout: 400), the node is named and exists in Ironside
(404), the target revision exists (404; default
``successful-site-action``), the intermediate-commit guard and the
node's place in that revision's inventory and strategy
(:func:`..design_actions.prepare`, restricted to the node). Only then is
the node's inventory entry applied and the action queued, holding the
node. Whether Kubernetes knows the node is the decommission's first read
(NotFound, still before anything changed).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ironside.common import exception
from ironside.strategy import design_actions
from ironside.strategy import parameters as action_parameters
from ironside.strategy import progress as site_progress
from ironside.strategy import seam
from ironside.strategy.action_plan import ActionPlan
from ironside.strategy.action_plan import build_plan
from ironside.strategy.decommission.sequence import DecommissionOptions
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.reader.action_input import ActionInput
from ironside.strategy.reader.action_input import RunOptions
from ironside.strategy.redeploy import steps

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


def plan_action(nodes: seam.NodeBackend,
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
    prepared = design_actions.prepare(nodes, ACTION, params, only=[name])
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
    progress[steps.KEY] = steps.initial(name, known.uuid, labels, preserve)
    log = prepared.log + [design_actions.log_entry(
        'Redeploys node %s: decommission, destroy (%s), remove from '
        'Kubernetes, deploy again' % (
            name, 'only the OS disk wiped' if preserve
            else 'every disk wiped'))]
    return Planned(prepared, plan, progress, params, log)
