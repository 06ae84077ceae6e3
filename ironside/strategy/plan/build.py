"""Building the plan of one site action, once, when it is created.

``build_plan(action_input, nodes, site_nodes=None)`` takes the action's
documents, run options and access (:mod:`..reader.action_input`), the node
backend and, for a design revision, its inventory's nodes, and settles
everything the action will do:

1. the documents' ``yaql_exp`` fields are computed
   (:mod:`.computed_fields`), before any model is built; a design's
   action has computed them already, before it touched any node;
2. the documents become one graph (:mod:`..designs.graph`), built here
   once, and the run options select its tasks;
3. each group's nodes are resolved (a task graph's group: the nodes
   with its roles or a role named as the group; ``extra.roles``);
4. each node gets its tasks, in graph order: those of its groups, those
   whose ``role`` it has, those for every node (``'*'``), unless the
   task's condition, computed for the node, is false; parameters
   computed per node are kept per node;
5. nodes with tasks but in no group get a group per role; each stage
   other than deployment with tasks gets a group of its own, holding the
   nodes with tasks in it; stages run one after another;
6. what can not run is refused (:class:`~ironside.common.exception.
   InvalidPlan`): a task type no runner runs, a node without access, a
   wait that can never end (:mod:`.schedule`).

The result is an :class:`~.action_plan.ActionPlan`, which the action
stores (the plan's groups and tasks with its input, each group's nodes,
each node's task runs), so a conductor that takes it over runs exactly
this plan.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.strategy import expressions
from ironside.strategy.core import model
from ironside.strategy.core.selectors import NodeIndex
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.designs import graph as site_graph
from ironside.strategy.nodes import seam
from ironside.strategy.plan import computed_fields
from ironside.strategy.plan import schedule
from ironside.strategy.plan import site_context
from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.plan.action_plan import NodeNeed
from ironside.strategy.plan.computed_fields import ComputedFields
from ironside.strategy.reader import fuel
from ironside.strategy.reader.action_input import ActionInput
from ironside.strategy.reader.registry import TASK_GRAPH
from ironside.strategy.tasks import registry as task_registry

# Task types run by the site layer itself, not by a task runner.
OWN_TYPES = (model.STEP, model.SKIPPED)


def build_plan(action_input: ActionInput, nodes: seam.PlanNodes,
               site_nodes: Sequence[SiteNode] | None = None,
               computed: ComputedFields | None = None) -> ActionPlan:
    """The plan of an action (see the module's docstring), on the nodes
    of the backend, or on ``site_nodes`` (a design's inventory);
    ``computed``: the documents with their fields computed already.

    Raises InvalidTaskGraph (a document or reference problem, placed),
    InvalidParameterValue (a run option naming nothing), InvalidPlan
    (what can not run on these nodes) and ExpressionFailed.
    """
    if site_nodes is None:
        resolve = nodes.resolve
    else:
        resolve = NodeIndex(site_nodes).select
    if computed is None and \
            computed_fields.has_expressions(action_input.documents):
        context = site_context.for_nodes(nodes, resolve([]))
        computed = computed_fields.compute(action_input.documents,
                                           expressions.Evaluation(context))
    if computed is not None:
        action_input = dataclasses.replace(
            action_input, documents=tuple(computed.documents))
    documents = action_input.documents
    graph = site_graph.build(documents)
    options = action_input.options
    selected = graph.select(options)
    has_graph = any(d.kind == TASK_GRAPH for d in documents)
    members = {name: resolve(group.selectors)
               for name, group in graph.groups.items()}
    universe: dict[str, SiteNode] = {}
    for found in members.values():
        universe.update((n.uuid, n) for n in found)
    if has_graph:
        everyone = resolve([])
        universe.update((n.uuid, n) for n in everyone if n.roles)
    universe = _only(universe, options.nodes)
    members = {name: [n for n in found if n.uuid in universe]
               for name, found in members.items()}
    names_of = _role_names(universe, members)
    node_tasks = _node_tasks(graph, selected, universe, names_of, members)
    node_parameters: dict[str, dict[str, dict[str, Any]]] = {}
    if computed is not None:
        node_parameters = _computed_per_node(graph, computed, universe,
                                             node_tasks)
    groups = _groups(graph, members, universe, node_tasks)
    in_plan = {n.uuid for found in members.values() for n in found}
    running = {t for tasks in node_tasks.values() for t in tasks}
    plan = ActionPlan(
        input=action_input, groups=groups, stages=list(graph.stages),
        tasks={t: graph.tasks[t] for t in selected if t in running},
        group_nodes={g.name: [n.uuid for n in members[g.name]]
                     for g in groups},
        node_names={uuid: n.name for uuid, n in sorted(
            universe.items(), key=lambda item: item[1].name)
            if uuid in in_plan},
        node_tasks={uuid: tasks for uuid, tasks in node_tasks.items()
                    if tasks and uuid in in_plan},
        node_parameters={task: {uuid: params for uuid, params in
                                found.items() if uuid in in_plan}
                         for task, found in node_parameters.items()
                         if task in running},
        expressions=computed.report() if computed is not None else [],
        cross_needs=_node_needs(graph, running, names_of))
    plan.warnings = _warnings(graph, selected, plan, universe)
    _check_runnable(plan)
    schedule.check(plan)
    return plan


def _only(universe: dict[str, SiteNode],
          wanted: Sequence[str]) -> dict[str, SiteNode]:
    if not wanted:
        return universe
    by_name = {n.name: n for n in universe.values()}
    by_name.update({n.uuid: n for n in universe.values()})
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        raise exception.InvalidParameterValue(
            err='Run option "nodes": %s not in any group of the plan'
                % ', '.join(unknown))
    keep = {by_name[w].uuid for w in wanted}
    return {uuid: n for uuid, n in universe.items() if uuid in keep}


def _role_names(universe: Mapping[str, SiteNode],
                members: Mapping[str, Sequence[SiteNode]]
                ) -> dict[str, set[str]]:
    """Node UUID → the names a task's ``role`` may give it by: its roles
    and its groups."""
    names = {uuid: set(node.roles) for uuid, node in universe.items()}
    for name, found in members.items():
        for node in found:
            names[node.uuid].add(name)
    return names


def _node_tasks(graph: site_graph.SiteGraph, selected: Sequence[str],
                universe: Mapping[str, SiteNode],
                names_of: Mapping[str, set[str]],
                members: Mapping[str, Sequence[SiteNode]]
                ) -> dict[str, list[str]]:
    """Each node's tasks, in graph order."""
    runs_of: dict[str, set[str]] = {uuid: set() for uuid in universe}
    for name, found in members.items():
        for node in found:
            runs_of[node.uuid].update(graph.members.get(name, ()))
    return {uuid: [t for t in selected if t in runs_of[uuid] or
                   model.EVERY_NODE in graph.tasks[t].task.roles or
                   names_of[uuid] & set(graph.tasks[t].task.roles)]
            for uuid in universe}


def _node_needs(graph: site_graph.SiteGraph, running: set[str],
                names_of: Mapping[str, set[str]]
                ) -> dict[str, list[NodeNeed]]:
    """The cross-node needs of the tasks that run, on the plan's nodes."""
    def having(roles: tuple[str, ...]) -> frozenset[str] | None:
        if model.EVERY_NODE in roles:
            return None
        return frozenset(uuid for uuid, names in names_of.items()
                         if names.intersection(roles))
    found: dict[str, list[NodeNeed]] = {}
    for task in (t for t in graph.tasks if t in running):
        for need in graph.tasks[task].cross_needs:
            own = model.SELF in need.roles
            found.setdefault(task, []).append(NodeNeed(
                need.task, need.policy, own,
                None if own else having(need.roles), having(need.on)))
    return found


def _computed_per_node(graph: site_graph.SiteGraph,
                       computed: ComputedFields,
                       universe: Mapping[str, SiteNode],
                       node_tasks: dict[str, list[str]]
                       ) -> dict[str, dict[str, dict[str, Any]]]:
    """Drop each task from the nodes its condition, computed per node,
    is false for; each node's computed parameters (task → UUID →
    parameters), checked as the task's type wants them."""
    nodes_of: dict[str, list[str]] = {}
    for uuid, tasks in node_tasks.items():
        for task in tasks:
            if task in computed.per_node:
                nodes_of.setdefault(task, []).append(uuid)
    parameters: dict[str, dict[str, dict[str, Any]]] = {}
    for task, uuids in nodes_of.items():
        names = {universe[uuid].name: uuid for uuid in uuids}
        chosen = set(computed.nodes_for(task, sorted(names)))
        for name, uuid in names.items():
            if name not in chosen:
                node_tasks[uuid].remove(task)
                continue
            found = computed.parameters_for(task, name)
            if found is None:
                continue
            problems = fuel.parameter_errors(graph.tasks[task].task.type,
                                             found)
            if problems:
                raise exception.ExpressionFailed(computed.located(
                    expressions.ExpressionError(
                        ('parameters',), None, 'the computed parameters '
                        'are not what a %s task takes: %s' % (
                            graph.tasks[task].task.type,
                            '; '.join(problems)),
                        owner=task, node=name)))
            parameters.setdefault(task, {})[uuid] = found
    return parameters


def _groups(graph: site_graph.SiteGraph,
            members: dict[str, list[SiteNode]],
            universe: Mapping[str, SiteNode],
            node_tasks: Mapping[str, Sequence[str]]) -> list[model.Group]:
    """Every group of the plan, in order, stage by stage; adds role and
    stage groups to ``members``."""
    in_group = {n.uuid for found in members.values() for n in found}
    by_role: dict[str, list[SiteNode]] = {}
    for uuid, node in sorted(universe.items(), key=lambda i: i[1].name):
        if uuid not in in_group and node_tasks[uuid]:
            for role in sorted(node.roles):
                by_role.setdefault(role, []).append(node)
    stage_of = {t: graph.tasks[t].task.in_stage
                for tasks in node_tasks.values() for t in tasks}
    ordered: list[model.Group] = []
    previous: list[str] = []
    for stage in graph.stages:
        if stage == model.DEPLOYMENT:
            current = list(graph.groups.values())
            for role, found in sorted(by_role.items()):
                name = role if role not in graph.items.kinds \
                    else '%s (role)' % role
                members[name] = found
                current.append(model.Group(
                    name=name, roles=(role,), serialised=False,
                    kind=model.ROLE_GROUP))
        else:
            found = [n for uuid, n in sorted(universe.items(),
                                             key=lambda i: i[1].name)
                     if any(stage_of[t] == stage
                            for t in node_tasks[uuid])]
            if not found:
                continue
            members[stage] = found
            current = [model.Group(name=stage, serialised=False,
                                   kind=model.STAGE_GROUP, stage=stage)]
        for group in current:
            ordered.append(dataclasses.replace(
                group, index=len(ordered), after=tuple(previous)))
        previous = [g.name for g in current]
    return ordered


def _warnings(graph: site_graph.SiteGraph, selected: Sequence[str],
              plan: ActionPlan, universe: Mapping[str, SiteNode]
              ) -> list[str]:
    warnings = []
    roles = {r for n in universe.values() for r in n.roles}
    for group in plan.groups:
        for role in group.roles:
            if role not in roles:
                warnings.append('group "%s": no node has role "%s"'
                                % (group.name, role))
    for task in selected:
        if task not in plan.tasks:
            warnings.append('task "%s" runs on no node' % task)
    return warnings


def _check_runnable(plan: ActionPlan) -> None:
    problems = []
    types = task_registry.runner_types()
    for planned in plan.tasks.values():
        task = planned.task
        if task.type not in OWN_TYPES and task.type not in types:
            problems.append('task "%s": no task runner runs %s tasks'
                            % (task.id, task.type))
    missing = sorted(plan.node_names[uuid] for uuid, tasks in
                     plan.node_tasks.items()
                     if any(plan.tasks[t].task.type not in OWN_TYPES
                            for t in tasks) and
                     plan.input.access.target(plan.node_names[uuid]) is None)
    if missing:
        problems.append('no access (address, port, user) for nodes %s, '
                        'which have tasks to run' % ', '.join(missing))
    if problems:
        raise exception.InvalidPlan(problems)
