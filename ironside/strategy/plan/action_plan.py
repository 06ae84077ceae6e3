"""The plan of one site action: what it runs, settled once.

An :class:`ActionPlan` holds the action's input (:mod:`..reader.action_input`),
its groups in order, stage by stage (each with its dependencies and the
groups it comes after), its tasks, each group's nodes and each node's
task runs, as :func:`.build.build_plan` settled them when the action was
created. The action stores it (:meth:`ActionPlan.snapshot`), so a
conductor that takes the action over runs exactly this plan; every later
stage reads it, and nothing builds the graph of groups again.

Which group runs next (:meth:`ActionPlan.ready`): a group is ready when
every group it depends on, and every group it comes after (those of the
stage before it), is resolved (done, successfully or not). Serialised
groups (a DeploymentStrategy's) run one at a time; the runner starts the
others as soon as they are ready. Among ready groups the next one is
chosen by, in turn:

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

import dataclasses
from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.strategy.core import model
from ironside.strategy.designs.graph import PlannedTask
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.action_input import ActionInput
from ironside.strategy.reader.action_input import RunOptions
from ironside.strategy.reader.action_input import SiteDocument
from ironside.strategy.reader.action_input import TaskAccess
from ironside.strategy.reader.registry import STRATEGY

# site_actions.document: format 2 holds the plan; older actions hold the
# strategy document itself.
FORMAT = 2


@dataclasses.dataclass(frozen=True)
class NodeNeed:
    """A task's :class:`~..designs.graph.CrossNeed` on the plan's nodes: the
    runs of ``task`` a run waits for, those on ``nodes`` (None: every
    node) or, when ``own``, the one on the waiting run's node; only for
    runs on ``on`` (None: every node)."""

    task: str
    policy: str = model.ALL
    own: bool = False
    nodes: frozenset[str] | None = None
    on: frozenset[str] | None = None

    def applies_on(self, uuid: str) -> bool:
        return self.on is None or uuid in self.on

    def counts(self, run_node: str, uuid: str) -> bool:
        """Whether the run of ``task`` on ``run_node`` is one the run
        on ``uuid`` waits for."""
        if self.own:
            return run_node == uuid
        return self.nodes is None or run_node in self.nodes

    def as_dict(self) -> dict[str, Any]:
        return {'task': self.task, 'policy': self.policy, 'own': self.own,
                'nodes': None if self.nodes is None else sorted(self.nodes),
                'on': None if self.on is None else sorted(self.on)}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> NodeNeed:
        return cls(value['task'], value['policy'], value['own'],
                   None if value['nodes'] is None
                   else frozenset(value['nodes']),
                   None if value['on'] is None else frozenset(value['on']))


@dataclasses.dataclass
class ActionPlan:
    input: ActionInput
    # In the order they are considered; ``index`` is the position.
    groups: list[model.Group]
    stages: list[str]
    # The tasks that run somewhere, in graph order.
    tasks: dict[str, PlannedTask]
    group_nodes: dict[str, list[str]]
    node_names: dict[str, str]
    # Node UUID → its task runs, in order.
    node_tasks: dict[str, list[str]]
    warnings: list[str] = dataclasses.field(default_factory=list)
    # Task → node UUID → its parameters, for parameters computed per node.
    node_parameters: dict[str, dict[str, dict[str, Any]]] = \
        dataclasses.field(default_factory=dict)
    # What each yaql_exp expression computed (ComputedFields.report).
    expressions: list[dict[str, Any]] = dataclasses.field(
        default_factory=list)
    # Task → the runs on other nodes its runs wait for (cross-depends).
    cross_needs: dict[str, list[NodeNeed]] = dataclasses.field(
        default_factory=dict)

    def parameters_for(self, task: str, node_uuid: str) -> dict[str, Any]:
        """A task's parameters on one node."""
        found = self.node_parameters.get(task, {}).get(node_uuid)
        if found is not None:
            return dict(found)
        return dict(self.tasks[task].task.parameters)

    def group(self, name: str) -> model.Group:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)

    @property
    def critical(self) -> list[str]:
        return [g.name for g in self.groups if g.critical]

    def nodes_of_tasks(self) -> dict[str, list[str]]:
        """Task → the nodes it runs on."""
        found: dict[str, list[str]] = {t: [] for t in self.tasks}
        for uuid, tasks in self.node_tasks.items():
            for task in tasks:
                found[task].append(uuid)
        return found

    # The order of groups: which ready groups run next.

    def order_key(self, group: model.Group) -> tuple[bool, int, int]:
        return (not group.critical, len(self.group_nodes.get(group.name, ())),
                group.index)

    def ready(self, resolved: Collection[str]) -> list[model.Group]:
        """Unresolved groups whose dependencies, and the groups they come
        after, are all resolved; the one to run first first."""
        return sorted(
            (g for g in self.groups if g.name not in resolved and
             all(d in resolved for d in g.depends_on + g.after)),
            key=self.order_key)

    def remaining_order(self, resolved: Sequence[str]) -> list[str]:
        """The order the unresolved groups will run in, as things stand."""
        done = list(resolved)
        order: list[str] = []
        while True:
            ready = self.ready(done)
            if not ready:
                return order
            order.append(ready[0].name)
            done.append(ready[0].name)

    def snapshot(self) -> dict[str, Any]:
        """What the action stores (``site_actions.document``); holds the
        SSH key: never shown."""
        return {
            'format': FORMAT,
            'documents': [d.as_dict() for d in self.input.documents],
            'options': self.input.options.as_dict(),
            'access': self.input.access.as_dict(),
            'groups': [g.as_dict() for g in self.groups],
            'stages': list(self.stages),
            'tasks': [t.as_dict() for t in self.tasks.values()],
            'warnings': list(self.warnings),
            'node_parameters': self.node_parameters,
            'expressions': self.expressions,
            'cross_needs': {task: [n.as_dict() for n in needs]
                            for task, needs in self.cross_needs.items()},
        }

    @classmethod
    def restore(cls, document: Mapping[str, Any],
                group_nodes: Mapping[str, Sequence[str]],
                node_names: Mapping[str, str],
                node_tasks: Mapping[str, Sequence[str]]) -> ActionPlan:
        """The plan an action stored; the nodes' parts come from its
        progress and its rows."""
        if document.get('format') != FORMAT:
            strategy = shipyard.build(document)
            return cls(ActionInput((SiteDocument(
                STRATEGY, strategy.name, document),)),
                list(strategy.groups), [model.DEPLOYMENT], {},
                {k: list(v) for k, v in group_nodes.items()},
                dict(node_names), {})
        return cls(
            ActionInput(tuple(SiteDocument.from_dict(d)
                              for d in document['documents']),
                        RunOptions.from_dict(document['options']),
                        TaskAccess.read(document['access'])),
            [model.Group.from_dict(g) for g in document['groups']],
            list(document['stages']),
            {t['id']: PlannedTask.from_dict(t) for t in document['tasks']},
            {k: list(v) for k, v in group_nodes.items()},
            dict(node_names), {k: list(v) for k, v in node_tasks.items()},
            list(document['warnings']),
            dict(document.get('node_parameters') or {}),
            list(document.get('expressions') or []),
            {task: [NodeNeed.from_dict(n) for n in needs] for task, needs
             in (document.get('cross_needs') or {}).items()})
