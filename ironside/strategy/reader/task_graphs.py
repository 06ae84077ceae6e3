"""Task graphs in a site design: the kind, and the checks across its
documents.

A design holds any number of ``ironside/TaskGraph/v1`` documents
(:mod:`.fuel`); a site action runs them all with the strategy the
deployment configuration names. Each is checked on its own as any
document is; then, across the design, they must settle everything
together (:mod:`ironside.strategy.site_graph`): what one graph refers to,
another (or the strategy) defines, with no cycle between them. A commit
refuses what an action would refuse, naming the document, the task or
group, the field and the line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.strategy import action_input
from ironside.strategy import site_graph
from ironside.strategy.core import model
from ironside.strategy.core.paths import Path
from ironside.strategy.reader import fuel
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.registry import Findings
from ironside.strategy.reader.registry import Kind

if TYPE_CHECKING:
    from ironside.strategy.design import Design


def check(document: Any, lines: Mapping[Path, int], name: str
          ) -> list[DocumentError]:
    """The errors of one graph; what only the design settles is checked
    across it (:func:`settled`)."""
    errors, _warnings = fuel.check(document, lines, name)
    return errors


KIND = Kind('TaskGraph', (fuel.SCHEMA,), check, fuel.build)


def settled(design: Design, findings: Findings) -> None:
    """The configured strategy and the task graphs, as one graph."""
    graphs = [d for d in design.documents_of_kind(KIND.name)
              if d.name in design.of_kind(KIND.name)]
    if not graphs:
        return
    documents = {}
    strategy = design.strategies.get(design.configuration.deployment_strategy)
    if strategy is not None:
        found = design.document(strategy.schema, strategy.name)
        documents[strategy.name] = (found, action_input.SiteDocument(
            action_input.STRATEGY, strategy.name, strategy.document,
            findings.lines_of(found)))
    for found in graphs:
        documents[found.name] = (found, action_input.SiteDocument(
            action_input.TASK_GRAPH, found.name, found.body,
            findings.lines_of(found)))
    try:
        site_graph.build([site for _found, site in documents.values()])
    except exception.InvalidTaskGraph as exc:
        for error in exc.errors:
            findings.placed('error', documents[error.document][0], error)


def covered(design: Design) -> set[str]:
    """Inventory nodes a task graph takes: those with a role one of its
    groups or tasks names (any node, for a task of every node)."""
    roles: set[str] = set()
    for graph in design.of_kind(KIND.name).values():
        for group in graph.groups:
            roles.update(group.roles + (group.name,))
        for task in graph.tasks:
            roles.update(task.roles)
    if model.EVERY_NODE in roles:
        return set(design.nodes)
    return {name for name, node in design.nodes.items()
            if roles & set(node.roles)}
