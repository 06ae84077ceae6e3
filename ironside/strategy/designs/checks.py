"""Checks across the documents of a design.

Errors: the deployment configuration names a strategy the design does
not have; a node's ``os_access.identity`` names a key the design does not
have; the configured strategy and the task graphs do not settle
everything together as one graph (:mod:`.graph`: what one graph refers
to, another or the strategy defines, with no cycle between them), so a
commit refuses what an action would refuse. Warnings (a commit needs
``--force`` for them): a configuration document no action reads; a
group of the configured strategy that selects no node of the inventory,
or names a node it does not have; inventory nodes in no group; a schema
of Ironside's or Shipyard's namespace that no kind reads (a typo, most
likely).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping

from ironside.common import exception
from ironside.strategy.core import model
from ironside.strategy.core.paths import Path
from ironside.strategy.core.selectors import NodeIndex
from ironside.strategy.designs import graph as site_graph
from ironside.strategy.designs.design import Design
from ironside.strategy.reader import configuration
from ironside.strategy.reader import freeform
from ironside.strategy.reader import fuel
from ironside.strategy.reader.action_input import SiteDocument
from ironside.strategy.reader.documents import DesignDocument
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.registry import STRATEGY
from ironside.strategy.reader.registry import TASK_GRAPH

# Namespaces whose schemas Ironside reads: one it does not know there is
# a mistake. Other namespaces (Deckhand's, Armada's, ...) are stored.
OWN_NAMESPACES = ('ironside', 'shipyard')

# Node names listed in one warning, at most.
_SHOWN = 10

# The line map of a document, where its source is known.
LinesOf = Callable[[DesignDocument], Mapping[Path, int]]


class Findings:
    """What cross-document checks found, each on a document and a path."""

    def __init__(self, lines: LinesOf | None = None) -> None:
        self._lines = lines
        self.found: list[tuple[str, DesignDocument, DocumentError]] = []

    def lines_of(self, document: DesignDocument) -> Mapping[Path, int]:
        """The document's line map, where its source is known."""
        return self._lines(document) if self._lines else {}

    def _add(self, severity: str, document: DesignDocument, path: Path,
             message: str) -> None:
        collector = ErrorCollector(document.name, self.lines_of(document))
        collector.add(tuple(path), message)
        self.found.append((severity, document, collector.errors[0]))

    def placed(self, severity: str, document: DesignDocument,
               error: DocumentError) -> None:
        """An error a check placed itself (its document, field, line)."""
        self.found.append((severity, document, error))

    def error(self, document: DesignDocument, path: Path,
              message: str) -> None:
        self._add('error', document, path, message)

    def warning(self, document: DesignDocument, path: Path,
                message: str) -> None:
        self._add('warning', document, path, message)


CrossCheck = Callable[[Design, Findings], None]


def _model_document(found: DesignDocument | None) -> DesignDocument:
    """The document a valid model was read from, which its design always
    has: a miss is a bug, not a finding."""
    if found is None:
        raise LookupError('a model of the design has no document')
    return found


def _names(names: list[str]) -> str:
    shown = ', '.join(names[:_SHOWN])
    if len(names) > _SHOWN:
        shown += ' and %d more' % (len(names) - _SHOWN)
    return shown


def strategy_reference(design: Design, findings: Findings) -> None:
    for document in design.documents_of(*configuration.SCHEMAS):
        if document.name != configuration.DOCUMENT_NAME:
            findings.warning(
                document, ('metadata', 'name'),
                'not used: site actions read the DeploymentConfiguration '
                'named %s' % configuration.DOCUMENT_NAME)
    config = design.configuration
    if config.schema is None:
        return
    wanted = config.deployment_strategy
    if any(d.name == wanted for d in design.documents_of_kind(
            'DeploymentStrategy')):
        return
    document = _model_document(design.document(config.schema, config.name))
    if config.strategy_is_default:
        findings.error(document, ('data',), 'names no deployment_strategy, '
                       'so site actions run the DeploymentStrategy "%s", '
                       'which the design does not have' % wanted)
    else:
        findings.error(document, configuration.STRATEGY_PATH,
                       'names the DeploymentStrategy "%s", which the design '
                       'does not have' % wanted)


def identity_references(design: Design, findings: Findings) -> None:
    keys = {d.name for d in design.documents_of(
        freeform.PRIVATE_KEY_SCHEMA)}
    for name, node in design.nodes.items():
        identity = node.os_access.identity if node.os_access else None
        if identity and identity not in keys:
            findings.error(
                _model_document(design.document_of_kind('BaremetalNode',
                                                        name)),
                ('data', 'os_access', 'identity'),
                'names the %s document "%s", which the design does not '
                'have' % (freeform.PRIVATE_KEY_SCHEMA, identity))


def selector_coverage(design: Design, findings: Findings) -> None:
    nodes = design.nodes
    strategy = design.strategies.get(
        design.configuration.deployment_strategy)
    if not nodes or strategy is None:
        return
    document = _model_document(
        design.document(strategy.schema, strategy.name))
    site_nodes = NodeIndex(node.site_node(name)
                           for name, node in nodes.items())
    covered: set[str] = set()
    for group in strategy.groups:
        path = ('data', 'groups', group.index, 'selectors')
        selected = site_nodes.select(group.selectors)
        if not selected:
            findings.warning(document, path, 'group "%s" selects no node of '
                             'the inventory' % group.name)
        covered.update(n.name for n in selected)
        for index, selector in enumerate(group.selectors):
            unknown = sorted(selector.node_names - set(nodes))
            if unknown:
                findings.warning(
                    document, path + (index, 'node_names'),
                    'group "%s" names nodes the inventory does not have: %s'
                    % (group.name, _names(unknown)))
    covered |= task_graph_nodes(design)
    left_out = sorted(set(nodes) - covered)
    if left_out:
        findings.warning(document, ('data', 'groups'),
                         '%d nodes of the inventory are in no group, so '
                         'site actions leave them alone: %s'
                         % (len(left_out), _names(left_out)))


def unknown_schemas(design: Design, findings: Findings) -> None:
    known = design.registry.schemas()
    for document in design.other:
        if document.schema.split('/')[0] in OWN_NAMESPACES:
            findings.warning(
                document, ('schema',), 'Ironside reads no schema %s (it '
                'reads %s); the document is stored as it is'
                % (document.schema, ', '.join(
                    s for s in known
                    if s.split('/')[0] in OWN_NAMESPACES)))


def task_graph_nodes(design: Design) -> set[str]:
    """Inventory nodes a task graph takes: those with a role one of its
    groups or tasks names (any node, for a task of every node)."""
    roles: set[str] = set()
    for graph in design.of_kind(fuel.KIND.name).values():
        for group in graph.groups:
            roles.update(group.roles + (group.name,))
        for task in graph.tasks:
            roles.update(task.roles)
    if model.EVERY_NODE in roles:
        return set(design.nodes)
    return {name for name, node in design.nodes.items()
            if roles & set(node.roles)}


def settled(design: Design, findings: Findings) -> None:
    """The configured strategy and the task graphs, as one graph."""
    graphs = [d for d in design.documents_of_kind(fuel.KIND.name)
              if d.name in design.of_kind(fuel.KIND.name)]
    if not graphs:
        return
    documents = {}
    strategy = design.strategies.get(design.configuration.deployment_strategy)
    if strategy is not None:
        document = _model_document(
            design.document(strategy.schema, strategy.name))
        documents[strategy.name] = (document, SiteDocument(
            STRATEGY, strategy.name, strategy.document,
            findings.lines_of(document)))
    for found in graphs:
        documents[found.name] = (found, SiteDocument(
            TASK_GRAPH, found.name, found.body, findings.lines_of(found)))
    try:
        site_graph.build([site for _found, site in documents.values()])
    except exception.InvalidTaskGraph as exc:
        for error in exc.errors:
            findings.placed('error', documents[error.document][0], error)


CHECKS: tuple[CrossCheck, ...] = (
    strategy_reference, identity_references, selector_coverage,
    unknown_schemas, settled)
