"""Whether a plan can run to its end: no wait that can never end.

A task graph without cycles can still wait on itself once it is spread
over nodes and groups: the spec's cross-reference example puts a task
on the primary controller that waits for a task on the computes; if the
compute group also waited for the primary controller's group to end,
neither would ever start. The plan is checked for this when the action
is created, on a graph of what waits for what:

- a group's start waits for the end of the groups it depends on or
  comes after, and for every run of the tasks it requires;
- a node's tasks of a stage run one after another, after the start of
  the first group of that stage that holds the node; every group of
  the stage that holds the node ends after them;
- a task that requires a task not on its own node waits for every run
  of it; one that requires a group waits for the group's end;
- a task's cross-dependencies wait for the runs they name on other
  nodes (with policy ``any`` too: a plan whose wait would end only
  through the one run that comes free is refused, not left to chance).

A cycle in it is refused, and the message walks the cycle.

The graph has a vertex per task run (500 tasks on 5,000 nodes: 400,000
of them), so it is plain sets and a topological sort; networkx only
walks a cycle once one is known to exist.
"""

from __future__ import annotations

from ironside.common import exception
from ironside.strategy.plan.action_plan import ActionPlan

# A point of a plan's run: ('start', group), ('end', group) or
# ('task', node uuid, task).
Vertex = tuple[str, ...]


class _Waits:
    """Edges ``a → b``: b waits for a."""

    def __init__(self) -> None:
        self.after: dict[Vertex, set[Vertex]] = {}

    def add_edge(self, first: Vertex, then: Vertex) -> None:
        found = self.after.get(first)
        if found is None:
            self.after[first] = {then}
        else:
            found.add(then)
        if then not in self.after:
            self.after[then] = set()

    def waiting_on_cycles(self) -> set[Vertex]:
        """The vertices that never come free (Kahn's algorithm): empty
        when every wait ends."""
        waiting = dict.fromkeys(self.after, 0)
        for successors in self.after.values():
            for vertex in successors:
                waiting[vertex] += 1
        free = [v for v, count in waiting.items() if count == 0]
        while free:
            vertex = free.pop()
            del waiting[vertex]
            for successor in self.after[vertex]:
                waiting[successor] -= 1
                if waiting[successor] == 0:
                    free.append(successor)
        return set(waiting)


def waits(plan: ActionPlan) -> _Waits:
    graph = _Waits()
    groups = {g.name: g for g in plan.groups}
    nodes_of = plan.nodes_of_tasks()
    for group in plan.groups:
        start, end = ('start', group.name), ('end', group.name)
        graph.add_edge(start, end)
        for other in group.depends_on + group.after:
            graph.add_edge(('end', other), start)
        for task in group.needs_tasks:
            for uuid in nodes_of.get(task, ()):
                graph.add_edge(('task', uuid, task), start)
    groups_of: dict[str, list[str]] = {}
    for group in plan.groups:
        for uuid in plan.group_nodes.get(group.name, ()):
            groups_of.setdefault(uuid, []).append(group.name)
    for uuid, tasks in plan.node_tasks.items():
        by_stage: dict[str, list[str]] = {}
        for task in tasks:
            by_stage.setdefault(plan.tasks[task].task.in_stage,
                                []).append(task)
        for stage, runs in by_stage.items():
            holding = [g for g in groups_of.get(uuid, ())
                       if groups[g].stage == stage]
            if not holding:
                continue
            previous: Vertex = ('start', holding[0])
            for task in runs:
                graph.add_edge(previous, ('task', uuid, task))
                previous = ('task', uuid, task)
            for name in holding:
                graph.add_edge(previous, ('end', name))
        for task in tasks:
            planned = plan.tasks[task]
            for needed in planned.needs_tasks:
                if needed in tasks:
                    continue
                for other in nodes_of.get(needed, ()):
                    graph.add_edge(('task', other, needed),
                                   ('task', uuid, task))
            for name in planned.needs_groups:
                graph.add_edge(('end', name), ('task', uuid, task))
            for need in plan.cross_needs.get(task, ()):
                if not need.applies_on(uuid):
                    continue
                for other in nodes_of.get(need.task, ()):
                    if other != uuid and need.counts(other, uuid):
                        graph.add_edge(('task', other, need.task),
                                       ('task', uuid, task))
    return graph


def check(plan: ActionPlan) -> None:
    """Raise InvalidPlan, walking the cycle, if some wait never ends."""
    graph = waits(plan)
    stuck = graph.waiting_on_cycles()
    if not stuck:
        return
    # networkx (~0.3 s of CPU to import) only to walk a cycle found.
    import networkx as nx
    cycle = nx.find_cycle(nx.DiGraph(
        (vertex, successor) for vertex in stuck
        for successor in graph.after[vertex] if successor in stuck))
    steps = [_describe(plan, edge[0]) for edge in cycle]
    raise exception.InvalidPlan([
        'these wait for each other, so none would ever run: %s'
        % ' -> '.join(steps + steps[:1])])


def _describe(plan: ActionPlan, vertex: Vertex) -> str:
    if vertex[0] == 'task':
        return 'task %s on %s' % (vertex[2], plan.node_names.get(
            vertex[1], vertex[1]))
    return '%s of group %s' % vertex
