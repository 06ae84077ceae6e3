"""All of an action's documents as one graph: groups, tasks and stages.

A DeploymentStrategy and any number of task graphs are merged here, by
name: a group a strategy and a task graph both define is one group (the
strategy gives its selectors, criticality and success criteria; the
task graph its roles, tasks and strategy; either may give
dependencies). Everything a single document could leave open must be
settled now, and is an error naming the document, the item, the field
and the line if it is not:

- every ``requires``, ``required_for``, ``groups``, ``tasks`` and
  ``stage`` names an item of one of the documents (the spec's own
  examples name tasks they do not define: ``upload_nodes_info``,
  ``put_vm_into_maintenance_mode``, ``reinstall_vs``; such a graph loads,
  but does not run until another document defines them; guessing or
  dropping them would run a risky task in the wrong order);
- every task has a type; no id is defined twice;
- no cycle, across documents.

What the references mean when the action runs (:mod:`..run.task_flow`):

- a group that requires a group depends on it (a failure propagates);
  a group that requires a task waits for its every run to succeed;
- a task that requires a task waits for it on the same node when both
  run there, and otherwise for its runs on every node (the spec's
  cross-reference example); a task that requires a group waits for the
  group to be done;
- a task that is ``required_for`` a group is one of its tasks, as in
  Fuel (it runs on the group's nodes);
- ``cross-depends`` (and ``cross-depended-by``, turned around) say
  which runs of a task, on the nodes of which roles, a run waits for,
  and whether all or any of them must succeed (:class:`CrossNeed`);
  they order the tasks as ``requires`` does;
- references to stages order the stages and are checked here; stages
  then run one after another.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.strategy.core import item_graph
from ironside.strategy.core import model
from ironside.strategy.core.paths import Path
from ironside.strategy.reader import fuel
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.action_input import RunOptions
from ironside.strategy.reader.action_input import SiteDocument
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.registry import STRATEGY


@dataclasses.dataclass(frozen=True)
class CrossNeed:
    """Runs of ``task`` that a run of a task waits for: those on the
    nodes of ``roles`` (model.SELF: the waiting run's own node), when
    the waiting run is on a node of ``on``; ``all`` of them must
    succeed, or ``any`` one."""

    task: str
    roles: tuple[str, ...]
    policy: str = model.ALL
    on: tuple[str, ...] = (model.EVERY_NODE,)


def cross_needs(tasks: Mapping[str, model.Task]
                ) -> dict[str, list[CrossNeed]]:
    """Each task's cross-node needs: its own ``cross-depends``, and the
    ``cross-depended-by`` of others turned around (Fuel's ``{name: y,
    role: r}`` on task x: y's runs on the nodes of r wait for x's)."""
    found: dict[str, list[CrossNeed]] = {name: [] for name in tasks}
    for name, task in tasks.items():
        for dependency in task.cross_depends:
            found[name].append(CrossNeed(dependency.name, dependency.roles,
                                         dependency.policy))
        for dependency in task.cross_depended_by:
            if model.SELF in dependency.roles:
                need = CrossNeed(name, (model.SELF,), dependency.policy)
            else:
                need = CrossNeed(name, (model.EVERY_NODE,),
                                 dependency.policy, dependency.roles)
            found[dependency.name].append(need)
    return found


@dataclasses.dataclass(frozen=True)
class PlannedTask:
    """A task and what its runs wait for on other nodes."""

    task: model.Task
    needs_tasks: tuple[str, ...] = ()
    needs_groups: tuple[str, ...] = ()
    cross_needs: tuple[CrossNeed, ...] = ()

    @property
    def id(self) -> str:
        return self.task.id

    def as_dict(self) -> dict[str, Any]:
        task = self.task
        return {'id': task.id, 'type': task.type,
                'parameters': dict(task.parameters),
                'roles': list(task.roles), 'stage': task.in_stage,
                'idempotent': task.reruns_safely,
                'needs_tasks': list(self.needs_tasks),
                'needs_groups': list(self.needs_groups),
                'strategy': task.strategy and task.strategy.as_dict()}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> PlannedTask:
        strategy = value.get('strategy')
        return cls(model.Task(
            id=value['id'], type=value['type'],
            parameters=dict(value['parameters']),
            roles=tuple(value['roles']), stage=value['stage'],
            idempotent=value['idempotent'],
            strategy=strategy and model.GroupStrategy.from_dict(strategy)),
            tuple(value['needs_tasks']), tuple(value['needs_groups']))


@dataclasses.dataclass
class SiteGraph:
    # Merged groups, strategies' first, then task graphs', in document
    # order; dependencies resolved.
    groups: dict[str, model.Group]
    # Tasks in graph order (a topological order, ties by position).
    tasks: dict[str, PlannedTask]
    # Group → its tasks (from ``groups``, ``tasks`` and ``required_for``).
    members: dict[str, list[str]]
    items: item_graph.ItemGraph
    stages: list[str]

    def select(self, options: RunOptions) -> list[str]:
        """The tasks a run selects, in graph order (Fuel's partial runs:
        ``start`` keeps what comes after a task, ``end`` what a task
        needs first; then ``tasks`` keeps only those, ``skip`` drops
        those). Tasks whose condition is false are never selected."""
        for field, names in (('tasks', options.tasks),
                             ('skip', options.skip),
                             ('start', [options.start] if options.start
                              else []),
                             ('end', [options.end] if options.end else [])):
            for name in names:
                kind = self.items.kinds.get(model.stage_name(name))
                if kind is None:
                    raise exception.InvalidParameterValue(
                        err='Run option "%s": no task, group or stage is '
                            'named "%s"' % (field, name))
                if field in ('tasks', 'skip') and kind != item_graph.TASK:
                    raise exception.InvalidParameterValue(
                        err='Run option "%s": "%s" is a %s; name tasks'
                            % (field, name, kind))
        selected = {t for t, planned in self.tasks.items()
                    if planned.task.condition}
        if options.start:
            selected &= self.items.after(model.stage_name(options.start))
        if options.end:
            selected &= self.items.before(model.stage_name(options.end))
        if options.tasks:
            selected &= set(options.tasks)
        selected -= set(options.skip)
        return [t for t in self.tasks if t in selected]

    def groups_of(self, task: str) -> list[str]:
        return [g for g, tasks in self.members.items() if task in tasks]


class _Errors:
    """One collector per document, so each error names its place."""

    def __init__(self, documents: Sequence[SiteDocument]) -> None:
        self.collectors = {}
        for document in documents:
            locate = shipyard.locator(document.document) \
                if document.kind == STRATEGY \
                else fuel.locator(document.document)
            self.collectors[document.name] = ErrorCollector(
                document.name, document.lines, locate)

    def add(self, document: str, path: Path, message: str) -> None:
        self.collectors[document].add(path, message)

    def any(self) -> bool:
        return any(c.errors for c in self.collectors.values())

    def raise_any(self) -> None:
        errors = [e for c in self.collectors.values() for e in c.sorted()]
        if errors:
            raise exception.InvalidTaskGraph(errors)


def build(documents: Sequence[SiteDocument]) -> SiteGraph:
    """One graph of the documents; InvalidTaskGraph lists every place
    that is not settled (see the module's docstring)."""
    errors = _Errors(documents)
    strategies = [d for d in documents if d.kind == STRATEGY]
    for extra in strategies[1:]:
        errors.add(extra.name, (), 'a second DeploymentStrategy (after '
                                   '"%s"); an action runs one'
                   % strategies[0].name)
    strategy = shipyard.build(strategies[0].document) if strategies \
        else None
    graphs = [fuel.build(d.document, d.lines, d.name) for d in documents
              if d.kind != STRATEGY]
    groups = _merge_groups(strategy, strategies[:1], graphs, errors)
    _check_ids(graphs, groups, errors)
    strategy_keys = {g.name: (-1, g.index) for g in
                     (strategy.groups if strategy else ())}
    items = item_graph.of_graphs(graphs, strategy_keys)
    if strategy:
        for reference in _strategy_references(strategy, strategies[0]):
            items.add_reference(reference)
    _check_references(graphs, items, errors)
    if not errors.any():
        for cycle in items.cycles():
            if cycle.reference is not None:
                errors.add(cycle.reference.document, cycle.reference.path,
                           str(cycle))
    errors.raise_any()
    return _resolve(groups, graphs, items)


def _merge_groups(strategy: model.Strategy | None,
                  strategy_documents: Sequence[SiteDocument],
                  graphs: Sequence[model.TaskGraph],
                  errors: _Errors) -> dict[str, model.Group]:
    groups: dict[str, model.Group] = {}
    defined_in: dict[str, str] = {}
    for group in strategy.groups if strategy else ():
        groups[group.name] = group
        defined_in[group.name] = strategy_documents[0].name
    raw = strategy_documents[0].document['data']['groups'] \
        if strategy_documents else []
    for graph in graphs:
        items = fuel.items_of(graph.document)
        for group in graph.groups:
            path = graph.paths[group.name]
            known = groups.get(group.name)
            if known is None:
                groups[group.name] = group
                defined_in[group.name] = graph.name
            elif known.kind != model.STRATEGY_GROUP:
                errors.add(graph.name, path + ('id',),
                           'group "%s" is defined in document "%s" too'
                           % (group.name, defined_in[group.name]))
            else:
                gives = 'strategy' in (items[path[-1]].get('parameters')
                                       or {})
                told = 'strategy' in raw[known.index]
                if gives and told and group.strategy != known.strategy:
                    errors.add(graph.name, path + ('parameters', 'strategy'),
                               'differs from the strategy of group "%s" '
                               'in document "%s"' % (
                                   group.name, defined_in[group.name]))
                groups[group.name] = dataclasses.replace(
                    known, roles=group.roles,
                    selectors=known.selectors + group.selectors,
                    strategy=group.strategy if gives else known.strategy)
    return groups


def _check_ids(graphs: Sequence[model.TaskGraph],
               groups: Mapping[str, model.Group], errors: _Errors) -> None:
    seen: dict[str, tuple[str, str]] = {
        name: ('group', '') for name in groups}
    for graph in graphs:
        for item_id, kind in [(t.id, 'task') for t in graph.tasks] + \
                [(s.id, 'stage') for s in graph.stages]:
            path = graph.paths[item_id] + ('id',)
            known = seen.get(item_id)
            if known is None:
                seen[item_id] = (kind, graph.name)
            elif kind == 'stage' and known[0] == 'stage':
                continue
            elif known[0] == kind:
                errors.add(graph.name, path, '%s "%s" is defined in '
                           'document "%s" too' % (kind, item_id, known[1]))
            else:
                errors.add(graph.name, path, '"%s" is a %s here and a %s '
                           'elsewhere' % (item_id, kind, known[0]))
        for task in graph.tasks:
            if not task.type:
                errors.add(graph.name, graph.paths[task.id],
                           'no type: give the task one to run it')


def _strategy_references(strategy: model.Strategy,
                         document: SiteDocument
                         ) -> list[model.Reference]:
    """A strategy's dependencies, as a task graph's references."""
    references = []
    for group in strategy.groups:
        for index, name in enumerate(group.depends_on):
            references.append(model.Reference(
                group.name, 'requires', name,
                ('data', 'groups', group.index, 'depends_on', index),
                document.name))
    return references


def _check_references(graphs: Sequence[model.TaskGraph],
                      items: item_graph.ItemGraph, errors: _Errors) -> None:
    wanted = {'groups': item_graph.GROUP, 'tasks': item_graph.TASK,
              'stage': item_graph.STAGE,
              model.CROSS_DEPENDS: item_graph.TASK,
              model.CROSS_DEPENDED_BY: item_graph.TASK}
    for graph in graphs:
        for reference in graph.references:
            kind = items.kinds.get(reference.target)
            if kind is None:
                errors.add(graph.name, reference.path,
                           '%s "%s", which no document of the action '
                           'defines' % (fuel.VERBS[reference.field],
                                        reference.target))
            elif reference.field in wanted and \
                    kind != wanted[reference.field]:
                errors.add(graph.name, reference.path, '"%s" is a %s, not '
                           'a %s' % (reference.target, kind,
                                     wanted[reference.field]))



def _resolve(groups: dict[str, model.Group],
             graphs: Sequence[model.TaskGraph],
             items: item_graph.ItemGraph) -> SiteGraph:
    kinds = items.kinds
    depends = {name: list(g.depends_on) for name, g in groups.items()}
    group_needs: dict[str, list[str]] = {name: [] for name in groups}
    tasks = {t.id: t for graph in graphs for t in graph.tasks}
    needs_tasks: dict[str, list[str]] = {t: [] for t in tasks}
    needs_groups: dict[str, list[str]] = {t: [] for t in tasks}
    members: dict[str, list[str]] = {name: [] for name in groups}
    for graph in graphs:
        for ref in graph.references:
            source, target = kinds[ref.source], kinds[ref.target]
            pair = (source, ref.field, target)
            if pair == ('task', 'requires', 'task'):
                needs_tasks[ref.source].append(ref.target)
            elif pair == ('task', 'requires', 'group'):
                needs_groups[ref.source].append(ref.target)
            elif pair == ('task', 'required_for', 'task'):
                needs_tasks[ref.target].append(ref.source)
            elif pair in (('task', 'required_for', 'group'),
                          ('task', 'groups', 'group')):
                members[ref.target].append(ref.source)
            elif pair == ('group', 'tasks', 'task'):
                members[ref.source].append(ref.target)
            elif pair == ('group', 'requires', 'group'):
                depends[ref.source].append(ref.target)
            elif pair == ('group', 'requires', 'task'):
                group_needs[ref.source].append(ref.target)
            elif pair == ('group', 'required_for', 'group'):
                depends[ref.target].append(ref.source)
            elif pair == ('group', 'required_for', 'task'):
                needs_groups[ref.target].append(ref.source)
    order = [n for n in items.order() if kinds[n] == item_graph.TASK]
    cross = cross_needs(tasks)
    merged = {name: dataclasses.replace(
        group, depends_on=tuple(dict.fromkeys(depends[name])),
        needs_tasks=tuple(dict.fromkeys(group_needs[name])))
        for name, group in groups.items()}
    return SiteGraph(
        groups=merged,
        tasks={t: PlannedTask(tasks[t],
                              tuple(dict.fromkeys(needs_tasks[t])),
                              tuple(dict.fromkeys(needs_groups[t])),
                              tuple(dict.fromkeys(cross[t])))
               for t in order},
        members={g: [t for t in order if t in set(m)]
                 for g, m in members.items()},
        items=items, stages=items.stage_order())
