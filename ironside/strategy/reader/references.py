"""Checks across the documents of a design.

Errors: the deployment configuration names a strategy the design does
not have; a node's ``os_access.identity`` names a key the design does not
have. Warnings (a commit needs ``--force`` for them): a configuration
document no action reads; a group of the configured strategy that
selects no node of the inventory, or names a node it does not have;
inventory nodes in no group; a schema of Ironside's or Shipyard's
namespace that no kind reads (a typo, most likely).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ironside.strategy.core.selectors import NodeIndex
from ironside.strategy.reader import configuration
from ironside.strategy.reader import freeform
from ironside.strategy.reader import task_graphs
from ironside.strategy.reader.registry import Findings

if TYPE_CHECKING:
    from ironside.strategy.design import Design

# Namespaces whose schemas Ironside reads: one it does not know there is
# a mistake. Other namespaces (Deckhand's, Armada's, ...) are stored.
OWN_NAMESPACES = ('ironside', 'shipyard')

# Node names listed in one warning, at most.
_SHOWN = 10


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
    document = design.document(config.schema, config.name)
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
                design.document_of_kind('BaremetalNode', name),
                ('data', 'os_access', 'identity'),
                'names the %s document "%s", which the design does not '
                'have' % (freeform.PRIVATE_KEY_SCHEMA, identity))


def selector_coverage(design: Design, findings: Findings) -> None:
    nodes = design.nodes
    strategy = design.strategies.get(
        design.configuration.deployment_strategy)
    if not nodes or strategy is None:
        return
    document = design.document(strategy.schema, strategy.name)
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
    covered |= task_graphs.covered(design)
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


CHECKS = (strategy_reference, identity_references, selector_coverage,
          unknown_schemas)
