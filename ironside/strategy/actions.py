"""Strategies and site actions as the API (or a script) handles them.

Creating an action builds its plan once (every group's nodes, every
node's tasks), stores it with a snapshot of the documents, claims the
nodes, and queues the action; a conductor's site action service picks
it up (see :mod:`.service`). The action therefore means what it meant
when it was asked for, whichever conductor runs it, even if the stored
strategy or the nodes' roles change later.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import progress as site_progress
from ironside.strategy import report
from ironside.strategy import seam
from ironside.strategy import site_graph
from ironside.strategy.action_input import STRATEGY
from ironside.strategy.action_input import ActionInput
from ironside.strategy.action_input import RunOptions
from ironside.strategy.action_input import SiteDocument
from ironside.strategy.action_input import TaskAccess
from ironside.strategy.action_input import parse_documents
from ironside.strategy.action_plan import build_plan
from ironside.strategy.reader import shipyard

ACTIONS = ('deploy_site', 'update_site')

# Set when an action is queued; a site action service in this process
# (the all-in-one) wakes at once instead of at its next check.
queued = threading.Event()


def create_strategy(source: str | Mapping[str, Any],
                    name: str | None = None) -> site_models.SiteStrategy:
    """Validate and store a strategy under ``name`` (default: the
    document's ``metadata.name``)."""
    strategy = shipyard.load(source, name or '<input>')
    return site_db.create_strategy(
        name or strategy.name, strategy.schema, strategy.document,
        source if isinstance(source, str) else None)


def create_action(nodes: seam.NodeBackend, action: str,
                  strategy_name: str | None = None,
                  documents: Sequence[Any] = (),
                  options: RunOptions | Mapping[str, Any] | None = None,
                  access: TaskAccess | Mapping[str, Any] | None = None
                  ) -> site_models.SiteAction:
    """Queue ``action`` with a stored strategy (by name) and/or documents
    given directly (DeploymentStrategy and task graph texts or parsed
    documents, or :class:`~.action_input.SiteDocument`), a partial run's
    options, and how the nodes' OS is reached for their tasks.

    The plan is built here, once (:func:`.action_plan.build_plan`), and
    stored with the action, each node's task runs as rows.

    Raises InvalidParameterValue for an unknown action or run option,
    StrategyNotFound, InvalidTaskGraph and InvalidPlan for what the
    documents do not settle or can not run, and SiteActionConflict if
    an unfinished action holds any of the nodes.
    """
    if action not in ACTIONS:
        raise exception.InvalidParameterValue(
            err='Unknown site action "%s"; expected one of %s'
                % (action, ', '.join(ACTIONS)))
    given: list[SiteDocument] = []
    if strategy_name is not None:
        stored = site_db.get_strategy(strategy_name)
        given.append(SiteDocument(STRATEGY, stored.name, stored.document))
    given += [d for d in documents if isinstance(d, SiteDocument)]
    given += parse_documents([d for d in documents
                              if not isinstance(d, SiteDocument)])
    if not given:
        raise exception.MissingParameterValue(
            err='A site action needs a strategy or task graph documents')
    if not isinstance(options, RunOptions):
        options = RunOptions.read(options)
    if not isinstance(access, TaskAccess):
        access = TaskAccess.read(access)
    plan = build_plan(ActionInput(tuple(given), options, access), nodes)
    runs = [{'node_uuid': uuid, 'task': task, 'position': position,
             'stage': plan.tasks[task].task.in_stage}
            for uuid, tasks in plan.node_tasks.items()
            for position, task in enumerate(tasks)]
    row = site_db.create_action(
        action, ', '.join(d.name for d in given), plan.snapshot(),
        site_progress.initial(plan.group_nodes),
        sorted(plan.node_names.items(), key=lambda item: item[1]), runs)
    queued.set()
    return row


def action_report(uuid: str) -> dict[str, Any]:
    action = site_db.get_action(uuid)
    return report.build(action, site_db.action_nodes(action.id),
                        site_db.action_tasks(action.id))


def list_tasks(documents: Sequence[Any], start: str | None = None,
               end: str | None = None) -> list[dict[str, Any]]:
    """The tasks of documents in graph order, those from ``start`` to
    ``end`` (walking the graph as a partial run does)."""
    graph = site_graph.build(parse_documents(documents))
    options = RunOptions(start=start, end=end)
    return [dict(graph.tasks[t].as_dict(), groups=graph.groups_of(t))
            for t in graph.select(options)]
