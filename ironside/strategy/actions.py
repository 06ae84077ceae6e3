"""Strategies and site actions as the API (or a script) handles them.

Creating an action builds its plan once (every group's nodes, every
node's tasks, :func:`.plan.build.build_plan`), stores it with a snapshot
of its input, claims the nodes, and queues the action; a conductor's
site action service picks it up (see :mod:`.service`). The action
therefore means what it meant when it was asked for, whichever conductor
runs it, even if the stored strategy, the design or the nodes' roles
change later. The input is a stored strategy and/or documents given
directly, or, without either, a design revision (:mod:`.plan.design_actions`),
which the action records.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import progress as site_progress
from ironside.strategy.designs import graph as site_graph
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.nodes import seam
from ironside.strategy.plan import design_actions
from ironside.strategy.plan import parameters as action_parameters
from ironside.strategy.plan import redeploy
from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.plan.build import build_plan
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.action_input import ActionInput
from ironside.strategy.reader.action_input import RunOptions
from ironside.strategy.reader.action_input import SiteDocument
from ironside.strategy.reader.action_input import TaskAccess
from ironside.strategy.reader.action_input import parse_documents
from ironside.strategy.reader.registry import STRATEGY
from ironside.strategy.run import report
from ironside.strategy.run.wakeup import queued

ACTIONS = ('deploy_site', 'update_site', 'redeploy_server')


def create_strategy(source: str | Mapping[str, Any],
                    name: str | None = None) -> site_models.SiteStrategy:
    """Validate and store a strategy under ``name`` (default: the
    document's ``metadata.name``)."""
    strategy = shipyard.load(source, name or '<input>')
    return site_db.create_strategy(
        name or strategy.name, strategy.schema, strategy.document,
        source if isinstance(source, str) else None)


def create_action(nodes: seam.PlanNodes, action: str,
                  strategy_name: str | None = None,
                  parameters: Mapping[str, Any] | None = None,
                  documents: Sequence[Any] = (),
                  access: TaskAccess | Mapping[str, Any] | None = None
                  ) -> site_models.SiteAction:
    """Queue ``action`` with a stored strategy (by name) and/or documents
    given directly (DeploymentStrategy and task graph texts or parsed
    documents, or :class:`~.reader.action_input.SiteDocument`), and ``access``
    (how the nodes' OS is reached for their tasks); without either, with
    a design revision (see :mod:`.plan.design_actions`), its documents and its
    inventory's access. ``parameters`` are the action's
    (:mod:`.plan.parameters`): a design's target revision, a partial run's
    ``tasks``, ``skip``, ``start``, ``end`` and ``nodes``, ...
    ``redeploy_server`` takes its ``node`` and the teardown spec's
    parameters, and runs a design revision (:mod:`.plan.redeploy`).

    Raises InvalidParameterValue for an unknown action,
    InvalidActionParameters, StrategyNotFound, the design's precondition
    errors, InvalidTaskGraph and InvalidPlan for what the documents do not
    settle or can not run, and SiteActionConflict if an unfinished action
    holds any of the nodes.
    """
    if action not in ACTIONS:
        raise exception.InvalidParameterValue(
            err='Unknown site action "%s"; expected one of %s'
                % (action, ', '.join(ACTIONS)))
    if action == action_parameters.REDEPLOY_SERVER:
        if strategy_name is not None or documents or access:
            raise exception.InvalidParameterValue(
                err='redeploy_server runs a design revision; it takes no '
                    'strategy, documents or access')
        return _queue(action, redeploy.plan_action(nodes, parameters))
    runs_design = strategy_name is None and not documents
    params = action_parameters.read(action, parameters,
                                    runs_design=runs_design)
    options = RunOptions.of(params)
    if runs_design:
        prepared = design_actions.prepare(nodes, action, params)
        plan = build_plan(ActionInput(prepared.documents, options,
                                      prepared.access), nodes,
                          site_nodes=prepared.site_nodes,
                          computed=prepared.computed)
        row = site_db.create_action(
            action, prepared.name, plan.snapshot(),
            site_progress.initial(plan.group_nodes), _nodes(plan),
            revision_id=prepared.revision, parameters=params,
            log=prepared.log, tasks=_runs(plan))
        queued.set()
        return row
    given: list[SiteDocument] = []
    if strategy_name is not None:
        stored = site_db.get_strategy(strategy_name)
        given.append(SiteDocument(STRATEGY, stored.name, stored.document))
    given += [d for d in documents if isinstance(d, SiteDocument)]
    given += parse_documents([d for d in documents
                              if not isinstance(d, SiteDocument)])
    if not isinstance(access, TaskAccess):
        access = TaskAccess.read(access)
    plan = build_plan(ActionInput(tuple(given), options, access), nodes)
    row = site_db.create_action(
        action, ', '.join(d.name for d in given), plan.snapshot(),
        site_progress.initial(plan.group_nodes), _nodes(plan),
        parameters=params, tasks=_runs(plan))
    queued.set()
    return row


def _queue(action: str, planned: redeploy.Planned
           ) -> site_models.SiteAction:
    plan = planned.plan
    row = site_db.create_action(
        action, planned.prepared.name, plan.snapshot(), planned.progress,
        _nodes(plan), revision_id=planned.prepared.revision,
        parameters=planned.parameters, log=planned.log, tasks=_runs(plan))
    queued.set()
    return row


def _nodes(plan: ActionPlan) -> list[tuple[str, str]]:
    return sorted(plan.node_names.items(), key=lambda item: item[1])


def _runs(plan: ActionPlan) -> list[dict[str, Any]]:
    """Each node's task runs, as rows."""
    return [{'node_uuid': uuid, 'task': task, 'position': position,
             'stage': plan.tasks[task].task.in_stage}
            for uuid, tasks in plan.node_tasks.items()
            for position, task in enumerate(tasks)]


def action_report(uuid: str, nodes: seam.NodeBackend | None = None
                  ) -> dict[str, Any]:
    """The report, with the design revision the action runs, its
    parameters and its log; with ``nodes``, the nodes in flight show
    their provision state and current step too."""
    action = site_db.get_action(uuid)
    rows = site_db.action_nodes(action.id)
    in_flight = [r.node_uuid for r in rows if r.phase]
    live = nodes.read_states(in_flight) if nodes and in_flight else None
    built = report.build(action, rows, site_db.action_tasks(action.id),
                         live)
    built.update(revision=action.revision_id, parameters=action.parameters,
                 log=action.log,
                 expressions=(action.document or {}).get('expressions', []))
    if redeploy.KEY in action.progress:
        built[redeploy.KEY] = redeploy.report(
            action.progress[redeploy.KEY])
    return built


def list_tasks(documents: Sequence[Any] | None = None,
               start: str | None = None, end: str | None = None,
               version: versions.Version = versions.COMMITTED
               ) -> list[dict[str, Any]]:
    """The tasks of documents (or, without them, of a design version's
    strategy and task graphs) in graph order, those from ``start`` to
    ``end`` (walking the graph as a partial run does)."""
    if documents is None:
        given = list(design_actions.run_documents(store.design(version)))
    else:
        given = [d for d in documents if isinstance(d, SiteDocument)] + \
            parse_documents([d for d in documents
                             if not isinstance(d, SiteDocument)])
    graph = site_graph.build(given)
    options = RunOptions(start=start, end=end)
    return [dict(graph.tasks[t].as_dict(), groups=graph.groups_of(t))
            for t in graph.select(options)]
