"""Strategies and site actions as the API (or a script) handles them.

Creating an action resolves every group's selectors once, stores the
node sets with a snapshot of the strategy, claims the nodes, and queues
the action; a conductor's site action service picks it up (see
:mod:`.service`). The action therefore means what it meant when it was
asked for, whichever conductor runs it, even if the stored strategy
changes later. An action created without a stored strategy runs a design
revision instead (:mod:`.design_actions`), and records it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from ironside.common import exception
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import design_actions
from ironside.strategy import parameters as action_parameters
from ironside.strategy import progress as site_progress
from ironside.strategy import report
from ironside.strategy import seam
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
                  parameters: Mapping[str, Any] | None = None
                  ) -> site_models.SiteAction:
    """Queue ``action`` with the named stored strategy, or, without one,
    with a design revision (see :mod:`.design_actions`).

    Raises InvalidParameterValue for an unknown action,
    InvalidActionParameters, StrategyNotFound, the design's precondition
    errors, and SiteActionConflict if an unfinished action holds any of
    the nodes.
    """
    if action not in ACTIONS:
        raise exception.InvalidParameterValue(
            err='Unknown site action "%s"; expected one of %s'
                % (action, ', '.join(ACTIONS)))
    params = action_parameters.read(action, parameters,
                                    runs_design=strategy_name is None)
    if strategy_name is None:
        prepared = design_actions.prepare(nodes, action, params)
        row = site_db.create_action(
            action, prepared.strategy.name, prepared.strategy.document,
            site_progress.initial(prepared.group_nodes), prepared.nodes,
            revision_id=prepared.revision, parameters=params,
            log=prepared.log)
        queued.set()
        return row
    stored = site_db.get_strategy(strategy_name)
    strategy = shipyard.build(stored.document)
    group_nodes = {}
    all_nodes: dict[str, str] = {}
    for group in strategy.groups:
        selected = nodes.resolve(group.selectors)
        group_nodes[group.name] = [n.uuid for n in selected]
        all_nodes.update((n.uuid, n.name) for n in selected)
    row = site_db.create_action(
        action, stored.name, strategy.document,
        site_progress.initial(group_nodes),
        sorted(all_nodes.items(), key=lambda item: item[1]),
        parameters=params)
    queued.set()
    return row


def action_report(uuid: str, nodes: seam.NodeBackend | None = None
                  ) -> dict[str, Any]:
    """The report, with the design revision the action runs, its
    parameters and its log; with ``nodes``, the nodes in flight show
    their provision state and current step too."""
    action = site_db.get_action(uuid)
    rows = site_db.action_nodes(action.id)
    in_flight = [r.node_uuid for r in rows if r.phase]
    live = nodes.read_states(in_flight) if nodes and in_flight else None
    built = report.build(action, rows, live)
    built.update(revision=action.revision_id, parameters=action.parameters,
                 log=action.log)
    return built
