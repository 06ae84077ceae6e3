"""The graph of a task graph's items: groups, stages and tasks.

Built from the references the items make, as Fuel's nailgun built it
(an edge ``a → b`` says a finishes before b does, or before b starts):

``requires: [x]``        x → item
``required_for: [x]``    item → x
``cross-depends``        x → item        (for each entry's ``name`` x)
``cross-depended-by``    item → x
``groups: [g]``          task → g        (the task is a part of g)
``tasks: [t]`` (group)   t → group       (likewise)
``stage: s``             task → s        (the task is a part of s)

and the edges the stages imply: the stages in their order, each one's
items (groups, and tasks not in a group) after the stage before it and
before their own stage ends. A reference to a name the graph does not
have adds nothing here; the reader and the plan say what it means.

What it answers: whether there is a cycle (and which), the graph order
(a topological order, ties broken by position in the documents), the
stages in their order, and the partial-run walks (``start``: what comes
after an item; ``end``: what an item needs first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from ironside.strategy.core import model
from ironside.strategy.core.model import Reference

GROUP = 'group'
STAGE = 'stage'
TASK = 'task'

# Edge kinds: an order between two items, or an item that is a part of
# a container (group or stage).
ORDER = 'order'
MEMBER = 'member'

_MEMBER_FIELDS = ('groups', 'tasks', 'stage')


@dataclasses.dataclass(frozen=True)
class Cycle:
    """Items that wait for each other, and a reference that closes it."""

    items: tuple[str, ...]
    reference: Reference | None

    def __str__(self) -> str:
        return 'dependency cycle: %s' % ' -> '.join(
            self.items + self.items[:1])


# Where an item is written: (document number, index in it), so that
# orders and messages follow the documents.
OrderKey = tuple[int, ...]


def _networkx() -> Any:
    """networkx, when the first graph is built: ~0.3 s of CPU to import
    (and resident after) that a process which never builds one (an API
    or a conductor running stored plans) does without."""
    # Here, not at the top: only a process that builds a graph needs it.
    import networkx
    return networkx


class ItemGraph:
    def __init__(self) -> None:
        self.graph = _networkx().DiGraph()
        self.kinds: dict[str, str] = {}
        self.order_keys: dict[str, OrderKey] = {}
        self.task_stages: dict[str, str] = {}
        self.references: list[Reference] = []
        self._stage_order: list[str] | None = None
        for stage in model.BUILTIN_STAGES:
            self.add_item(stage, STAGE, _builtin_key(stage))

    # Building

    def add_item(self, name: str, kind: str, order_key: OrderKey,
                 stage: str | None = None) -> None:
        """An item; ``stage`` is a task's own ``stage`` field."""
        if name in self.kinds:
            return
        self.kinds[name] = kind
        self.order_keys[name] = order_key
        self.graph.add_node(name)
        if kind == TASK and stage:
            self.task_stages[name] = stage

    def add_reference(self, reference: Reference) -> None:
        """An edge for a reference between two items the graph has."""
        source, target = reference.source, reference.target
        if source not in self.kinds or target not in self.kinds:
            return
        self.references.append(reference)
        if reference.field in ('groups', 'tasks'):
            task = source if reference.field == 'groups' else target
            if self.task_stages.get(task, model.DEPLOYMENT) != \
                    model.DEPLOYMENT:
                # A task of another stage runs on the group's nodes
                # then; it is no part of the group's deployment.
                return
        if reference.field in ('requires', model.CROSS_DEPENDS):
            self._edge(target, source, ORDER, reference)
        elif reference.field in ('required_for', model.CROSS_DEPENDED_BY):
            self._edge(source, target, ORDER, reference)
        elif reference.field == 'tasks':
            self._edge(target, source, MEMBER, reference)
        else:
            self._edge(source, target, MEMBER, reference)

    def _edge(self, before: str, after: str, kind: str,
              reference: Reference | None) -> None:
        if self.graph.has_edge(before, after):
            if kind == ORDER:
                self.graph[before][after]['kind'] = ORDER
            return
        self.graph.add_edge(before, after, kind=kind, reference=reference)

    def finish(self) -> None:
        """Add the edges the stages imply; call once every item and
        reference is in."""
        order = self.stage_order()
        previous = dict(zip(order[1:], order, strict=False))
        for after, before in previous.items():
            self._edge(before, after, ORDER, None)
        in_group = {u for u, v, kind in self.graph.edges(data='kind')
                    if kind == MEMBER and self.kinds[v] == GROUP}
        for name, kind in list(self.kinds.items()):
            if kind == STAGE:
                continue
            stage = self.task_stages.get(name, model.DEPLOYMENT)
            if stage not in self.kinds:
                continue
            # A task of a group is a part of the stage through its group.
            if not (name in in_group and name not in self.task_stages) \
                    and not self.graph.has_edge(name, stage):
                self._edge(name, stage, MEMBER, None)
            if stage in previous:
                self._edge(previous[stage], name, ORDER, None)

    # Answers

    def stage_order(self) -> list[str]:
        """Stages in the order they run: as their references among
        themselves say; otherwise pre_deployment first, post_deployment
        last, the document's own stages after deployment in document
        order. Cycles among stages are left to :meth:`cycles`."""
        if self._stage_order is None:
            nx = _networkx()
            stages = [n for n, k in self.kinds.items() if k == STAGE]
            between = nx.DiGraph()
            between.add_nodes_from(stages)
            for stage in stages:
                for other in self.graph.successors(stage):
                    if self.kinds[other] == STAGE:
                        between.add_edge(stage, other)
            between.add_edge(model.PRE_DEPLOYMENT, model.DEPLOYMENT)
            between.add_edge(model.DEPLOYMENT, model.POST_DEPLOYMENT)
            try:
                self._stage_order = list(nx.lexicographical_topological_sort(
                    between, key=lambda n: self._stage_key(n)))
            except nx.NetworkXUnfeasible:
                self._stage_order = sorted(stages, key=self._stage_key)
        return self._stage_order

    def _stage_key(self, name: str) -> OrderKey:
        if name in model.BUILTIN_STAGES:
            return _builtin_key(name)
        return (1,) + self.order_keys[name]

    def cycles(self) -> list[Cycle]:
        """One cycle of each strongly connected set of items."""
        nx = _networkx()
        found = []
        for component in nx.strongly_connected_components(self.graph):
            if len(component) == 1:
                (single,) = component
                if not self.graph.has_edge(single, single):
                    continue
            edges = nx.find_cycle(self.graph.subgraph(component))
            items = [edge[0] for edge in edges]
            # Start at the item written first, so the message reads as
            # the documents do.
            first = min(range(len(items)),
                        key=lambda i: self.order_keys[items[i]])
            items = items[first:] + items[:first]
            pairs = list(zip(items, items[1:] + items[:1], strict=True))
            references = [self.graph[u][v]['reference'] for u, v in pairs]
            written = [r for r in references if r is not None]
            found.append(Cycle(tuple(items),
                               min(written, key=self._reference_key)
                               if written else None))
        return sorted(found, key=lambda c: self.order_keys[c.items[0]])

    def _reference_key(self, reference: Reference) -> tuple[Any, ...]:
        """Its source's order key, then its path in the source."""
        return self.order_keys[reference.source] + (reference.path,)

    def order(self) -> list[str]:
        """Every item in graph order (the graph must have no cycle)."""
        return list(_networkx().lexicographical_topological_sort(
            self.graph, key=lambda n: self.order_keys[n]))

    def members(self, container: str) -> list[str]:
        """Items that are a part of a group or stage, directly."""
        return [u for u, _v, kind in self.graph.in_edges(
            container, data='kind') if kind == MEMBER]

    def after(self, start: str) -> set[str]:
        """``start`` and everything that comes after it: what it comes
        before, the parts of ``start`` if it is a group or a stage, and
        the parts of every stage that comes after it. (A group that
        comes after it brings none of its parts: a task of several
        groups runs on many nodes, before and after.)"""
        found = {start}
        todo = [(start, True)]
        while todo:
            item, whole = todo.pop()
            nexts = [(v, kind == ORDER and self.kinds[v] == STAGE)
                     for _u, v, kind in
                     self.graph.out_edges(item, data='kind')]
            if whole:
                nexts += [(m, True) for m in self.members(item)]
            for other, other_whole in nexts:
                if other not in found:
                    found.add(other)
                    todo.append((other, other_whole))
        return found

    def before(self, end: str) -> set[str]:
        """``end`` and everything it needs first."""
        return set(_networkx().ancestors(self.graph, end)) | {end}

    def tasks(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if self.kinds.get(n) == TASK]


def _builtin_key(stage: str) -> OrderKey:
    return {model.PRE_DEPLOYMENT: (0,), model.DEPLOYMENT: (1, -1),
            model.POST_DEPLOYMENT: (2,)}[stage]


def of_graphs(graphs: Iterable[model.TaskGraph],
              groups: Mapping[str, OrderKey] | None = None) -> ItemGraph:
    """The item graph of task graphs (with extra groups, e.g. a
    strategy's, by name → order key), finished."""
    items = ItemGraph()
    graphs = list(graphs)
    for number, graph in enumerate(graphs):
        for group in graph.groups:
            items.add_item(group.name, GROUP, (number, group.index))
        for stage in graph.stages:
            items.add_item(stage.id, STAGE, (number, stage.index))
        for task in graph.tasks:
            items.add_item(task.id, TASK, (number, task.index),
                           stage=task.stage)
    for name, key in (groups or {}).items():
        items.add_item(name, GROUP, key)
    for graph in graphs:
        for reference in graph.references:
            items.add_reference(reference)
    items.finish()
    return items
