"""The site layer's model: groups of nodes, the tasks they run, stages.

Every source of groups and tasks (Shipyard's DeploymentStrategy, Fuel's
task graphs, and the documents of a site design beside them) is read
into these types, so the plan and the runner know one model whatever
the source. A group named in both a strategy and a task graph is one
group: the strategy gives its selectors, criticality and success
criteria, the task graph its roles, tasks and strategy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ironside.strategy.core.criteria import SuccessCriteria
from ironside.strategy.core.paths import Path
from ironside.strategy.core.selectors import Selector

ONE_BY_ONE = 'one_by_one'
PARALLEL = 'parallel'

# The stages every plan has, in their order. Fuel writes the middle one
# ``deployment`` and ``deploy`` (the spec does both); both name it.
PRE_DEPLOYMENT = 'pre_deployment'
DEPLOYMENT = 'deployment'
POST_DEPLOYMENT = 'post_deployment'
BUILTIN_STAGES = (PRE_DEPLOYMENT, DEPLOYMENT, POST_DEPLOYMENT)
STAGE_ALIASES = {'deploy': DEPLOYMENT}

# Where a group comes from.
STRATEGY_GROUP = 'strategy'   # a DeploymentStrategy's (maybe merged)
GRAPH_GROUP = 'graph'         # a task graph's only
ROLE_GROUP = 'role'           # made for nodes of a role no group takes
STAGE_GROUP = 'stage'         # the nodes with tasks in a stage other
                              # than deployment

# Task types Ironside knows besides those of its task runners: a deploy
# step of the node's own deploy, and Fuel's task that does nothing.
STEP = 'step'
SKIPPED = 'skipped'
# A task's ``role`` that means every node.
EVERY_NODE = '*'
# A cross-dependency's ``role`` that means the task's own node.
SELF = 'self'
ALL = 'all'
ANY = 'any'
CROSS_DEPENDS = 'cross-depends'
CROSS_DEPENDED_BY = 'cross-depended-by'


def stage_name(name: str) -> str:
    """The stage's own name for any name Fuel gives it."""
    return STAGE_ALIASES.get(name, name)


@dataclasses.dataclass(frozen=True)
class GroupStrategy:
    """How a group's nodes go: one at a time, or in waves of ``amount``
    (all at once without it)."""

    type: str = PARALLEL
    amount: int | None = None

    def wave_size(self, nodes: int) -> int:
        if self.type == ONE_BY_ONE:
            return 1
        return self.amount or max(nodes, 1)

    def most_at_once(self) -> int | None:
        """How many may go at once; None: no limit of its own."""
        return 1 if self.type == ONE_BY_ONE else self.amount

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = {'type': self.type}
        if self.amount:
            value['amount'] = self.amount
        return value

    @classmethod
    def from_dict(cls, value: Mapping[str, Any] | None) -> GroupStrategy:
        value = value or {}
        return cls(type=value.get('type', PARALLEL),
                   amount=value.get('amount'))


@dataclasses.dataclass(frozen=True)
class Group:
    name: str
    critical: bool = False
    # Groups that must succeed before this one runs; a failure among
    # them fails this group without trying it.
    depends_on: tuple[str, ...] = ()
    selectors: tuple[Selector, ...] = ()
    success_criteria: SuccessCriteria = SuccessCriteria()
    strategy: GroupStrategy = GroupStrategy()
    deploy_steps: tuple[dict[str, Any], ...] = ()
    deploy_templates: tuple[str, ...] = ()
    # Position in the document (0-based): the last tie-breaker of order.
    index: int = 0
    # Fuel's roles of the group's nodes (besides the group's own name).
    roles: tuple[str, ...] = ()
    # DeploymentStrategy groups run one at a time (spec 000); the groups
    # of a task graph run alongside others once their requirements are
    # met.
    serialised: bool = True
    kind: str = STRATEGY_GROUP
    stage: str = DEPLOYMENT
    # Groups that must be resolved, successfully or not, before this one
    # runs (the groups of the stage before this group's).
    after: tuple[str, ...] = ()
    # Tasks whose every run must have succeeded before this group runs.
    needs_tasks: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            'name': self.name, 'critical': self.critical,
            'depends_on': list(self.depends_on),
            'selectors': [s.as_dict() for s in self.selectors],
            'success_criteria': self.success_criteria.as_dict(),
            'strategy': self.strategy.as_dict(),
            'deploy_steps': list(self.deploy_steps),
            'deploy_templates': list(self.deploy_templates),
            'index': self.index, 'roles': list(self.roles),
            'serialised': self.serialised, 'kind': self.kind,
            'stage': self.stage, 'after': list(self.after),
            'needs_tasks': list(self.needs_tasks),
        }

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Group:
        return cls(
            name=value['name'], critical=value['critical'],
            depends_on=tuple(value['depends_on']),
            selectors=tuple(Selector.from_dict(s)
                            for s in value['selectors']),
            success_criteria=SuccessCriteria.from_dict(
                value['success_criteria']),
            strategy=GroupStrategy.from_dict(value['strategy']),
            deploy_steps=tuple(value['deploy_steps']),
            deploy_templates=tuple(value['deploy_templates']),
            index=value['index'], roles=tuple(value['roles']),
            serialised=value['serialised'], kind=value['kind'],
            stage=value['stage'], after=tuple(value['after']),
            needs_tasks=tuple(value['needs_tasks']))


@dataclasses.dataclass(frozen=True)
class Strategy:
    name: str
    schema: str
    groups: tuple[Group, ...]
    # The document as validated, for storing.
    document: dict[str, Any]

    def group(self, name: str) -> Group:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)


@dataclasses.dataclass(frozen=True)
class CrossDependency:
    """Fuel's ``cross-depends``/``cross-depended-by`` entry: a task and
    the nodes whose runs of it count.

    ``roles``: roles or group names, (EVERY_NODE,) for every node,
    (SELF,) for the node itself. ``policy``: ``all`` of those runs must
    succeed, or ``any`` one of them.
    """

    name: str
    roles: tuple[str, ...] = (EVERY_NODE,)
    policy: str = ALL

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> CrossDependency:
        role = value.get('role', EVERY_NODE)
        return cls(name=value['name'],
                   roles=(role,) if isinstance(role, str) else tuple(role),
                   policy=value.get('policy', ALL))


@dataclasses.dataclass(frozen=True)
class Task:
    """A deployment task of a task graph (not a group, not a stage)."""

    id: str
    type: str
    parameters: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # ``role``: the roles (or group names) whose nodes run it;
    # (EVERY_NODE,) for every node.
    roles: tuple[str, ...] = ()
    # The stage it belongs to, by its own name; None: deployment.
    stage: str | None = None
    # Fuel's ``condition``: a false one leaves the task out of the plan.
    condition: bool = True
    # Whether running it twice does no harm; None: as its type says.
    idempotent: bool | None = None
    index: int = 0
    # Runs of other tasks, on other nodes, this one waits for; and the
    # tasks that wait for its runs on the nodes of some roles.
    cross_depends: tuple[CrossDependency, ...] = ()
    cross_depended_by: tuple[CrossDependency, ...] = ()
    # How many of its runs may be in flight at once across its nodes;
    # None: as many as their groups allow.
    strategy: GroupStrategy | None = None

    @property
    def in_stage(self) -> str:
        return self.stage or DEPLOYMENT

    @property
    def reruns_safely(self) -> bool:
        """Whether a run cut short by a conductor's death may be run
        again: as the task says, else yes for every type but ``shell``
        (puppet applies, file copies and rsync converge; a command may
        not)."""
        if self.idempotent is not None:
            return self.idempotent
        return self.type != 'shell'


@dataclasses.dataclass(frozen=True)
class Stage:
    id: str
    index: int = 0


@dataclasses.dataclass(frozen=True)
class Reference:
    """One name a task graph's item refers to, and where it says so.

    ``field`` is ``requires``, ``required_for``, ``groups`` (a task's),
    ``tasks`` (a group's) or ``stage``; ``path`` is where the name is
    written in its document.
    """

    source: str
    field: str
    target: str
    path: Path
    # The document it is written in.
    document: str = ''


@dataclasses.dataclass(frozen=True)
class TaskGraph:
    """One task graph document, read and checked on its own."""

    name: str
    # ironside/TaskGraph/v1, or None for a plain list of Fuel tasks.
    schema: str | None
    groups: tuple[Group, ...]
    stages: tuple[Stage, ...]
    tasks: tuple[Task, ...]
    references: tuple[Reference, ...]
    # Item id → where the item starts in the document.
    paths: Mapping[str, Path]
    # The document as validated, for storing.
    document: Any
    lines: Mapping[Path, int] = dataclasses.field(default_factory=dict)
