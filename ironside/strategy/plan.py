"""The order of groups: a DAG, and which ready groups run next.

A group is ready when every group it depends on, and every group it
comes after (those of the stage before it), is resolved (done,
successfully or not). Serialised groups (a DeploymentStrategy's) run one
at a time; the runner starts the others as soon as they are ready.
Among ready groups the next one is chosen by, in turn:

1. critical groups first: the action's result hangs on them, and finding
   a critical failure early is the point of marking a group critical;
2. fewer nodes first: small groups finish fast and show their problems
   before the big ones tie up the conductors;
3. the order of the groups in the document.

With the spec's example strategy and site this gives the spec's order:
ntp-node, control-nodes, monitoring-nodes, compute-nodes-2,
compute-nodes-1. A group whose dependency failed is resolved, as
failed, when its turn comes, without being attempted.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence

import networkx as nx

from ironside.strategy.core.model import Group


class Plan:
    def __init__(self, groups: Sequence[Group],
                 group_nodes: Mapping[str, Sequence[str]]) -> None:
        self.groups = {g.name: g for g in groups}
        self.group_nodes = {g.name: list(group_nodes.get(g.name, ()))
                            for g in groups}
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(self.groups)
        for group in groups:
            for dependency in group.depends_on + group.after:
                self.graph.add_edge(dependency, group.name)

    def order_key(self, group: Group) -> tuple:
        return (not group.critical, len(self.group_nodes[group.name]),
                group.index)

    def ready(self, resolved: Collection[str]) -> list[Group]:
        """Unresolved groups whose dependencies are all resolved."""
        return sorted(
            (g for name, g in self.groups.items()
             if name not in resolved and
             all(d in resolved for d in self.graph.predecessors(name))),
            key=self.order_key)

    def next_group(self, resolved: Collection[str]) -> Group | None:
        ready = self.ready(resolved)
        return ready[0] if ready else None

    def dependencies(self, name: str) -> list[str]:
        return list(self.groups[name].depends_on)

    def remaining_order(self, resolved: Sequence[str]) -> list[str]:
        """The order the unresolved groups will run in, as things stand."""
        done = list(resolved)
        order = []
        while True:
            group = self.next_group(done)
            if group is None:
                return order
            order.append(group.name)
            done.append(group.name)
