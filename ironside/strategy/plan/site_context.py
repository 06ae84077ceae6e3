"""What an action's ``yaql_exp`` expressions are computed over.

The new state is the action's design revision with Ironside's nodes as
they are now; the old state is the design of the last successful site
action (none on a site where no action has succeeded). An action given
documents directly, without a design, sees the nodes its groups may
select as the new state, with no configuration and no old state.

The context is built once per action, before any node is touched, and
is evaluated by one :class:`~..expressions.Evaluation` (each expression
parsed once, each value computed once).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Sequence

from ironside.common import exception
from ironside.strategy import expressions
from ironside.strategy.core.selectors import NodeIndex
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.designs.design import Design
from ironside.strategy.nodes import seam


def _strategy_groups(design: Design, index: NodeIndex
                     ) -> dict[str, list[str]]:
    """The DeploymentStrategy groups selecting each node (by name); a
    group whose selectors are computed selects nobody here, since its
    selectors depend on this very context."""
    strategy = design.strategies.get(
        design.configuration.deployment_strategy)
    if strategy is None:
        return {}
    raw = {g.get('name'): g for g in strategy.document['data']['groups']}
    groups_of: dict[str, list[str]] = {}
    for group in strategy.groups:
        if expressions.find_expressions(raw.get(group.name, {})
                                        .get('selectors')):
            continue
        for node in index.select(group.selectors):
            groups_of.setdefault(node.name, []).append(group.name)
    return groups_of


def design_state(design: Design) -> expressions.DesignState:
    """What expressions see of a design revision."""
    index = NodeIndex(node.site_node(name)
                      for name, node in sorted(design.nodes.items()))
    groups_of = _strategy_groups(design, index)
    nodes = tuple(expressions.DesignNode(
        name=name, roles=tuple(node.roles),
        groups=tuple(groups_of.get(name, ())), rack=node.rack,
        tags=tuple(node.tags), labels=dict(node.labels),
        properties=dict(node.properties),
        network_scheme=dict(node.network_scheme))
        for name, node in sorted(design.nodes.items()))
    return expressions.DesignState(
        nodes=nodes, configs=dict(design.configs),
        settings=dict(design.settings), revision=design.revision)


def deployed_design() -> Design | None:
    """The design of the last successful site action, if any."""
    try:
        revision = versions.committed_revision_of(
            versions.SUCCESSFUL_SITE_ACTION)
    except exception.DesignVersionNotFound:
        return None
    return store.design(revision)


def live_nodes(nodes: seam.PlanNodes, names: Iterable[str]
               ) -> list[expressions.LiveNode]:
    """Ironside's nodes of these names, with their provision states."""
    known = nodes.find_nodes(sorted(set(names)))
    if not known:
        return []
    states = {uuid: s.provision_state for uuid, s in
              nodes.read_states([k.uuid for k in known.values()]).items()}
    return [expressions.LiveNode(name=name, uuid=found.uuid,
                                 provision_state=states.get(found.uuid))
            for name, found in sorted(known.items())]


def for_design(nodes: seam.PlanNodes, design: Design,
               rebuilt: Collection[str] = ()) -> expressions.SiteContext:
    """The context of an action running ``design``.

    ``rebuilt``: nodes the action destroys and deploys again
    (``redeploy_server``); they are seen as nodes being added (not in
    the old state, not deployed), so that their tasks run as on a new
    node.
    """
    target = design_state(design)
    deployed = deployed_design()
    old = design_state(deployed) if deployed is not None else None
    if old is not None and rebuilt:
        old = dataclasses.replace(old, nodes=tuple(
            n for n in old.nodes if n.name not in rebuilt))
    names = [n.name for n in target.nodes if n.name not in rebuilt]
    if old is not None:
        names += [n.name for n in old.nodes]
    return expressions.build_context(target, live_nodes(nodes, names), old)


def for_nodes(nodes: seam.PlanNodes, site_nodes: Sequence[SiteNode]
              ) -> expressions.SiteContext:
    """The context of an action given documents, not a design: the
    nodes as the backend describes them, nothing deployed before."""
    states = {uuid: s.provision_state for uuid, s in
              nodes.read_states([n.uuid for n in site_nodes]).items()} \
        if site_nodes else {}
    target = expressions.DesignState(nodes=tuple(expressions.DesignNode(
        name=n.name, roles=tuple(sorted(n.roles)), rack=n.rack,
        tags=tuple(sorted(n.tags)), labels=dict(n.labels))
        for n in sorted(site_nodes, key=lambda n: n.name)))
    live = [expressions.LiveNode(name=n.name, uuid=n.uuid,
                                 provision_state=states.get(n.uuid))
            for n in site_nodes]
    return expressions.build_context(target, live, None)
