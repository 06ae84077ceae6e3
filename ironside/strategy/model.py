"""The site layer's model: groups of nodes and how each group runs.

Every source of groups (Shipyard's DeploymentStrategy today; Fuel's task
graphs and the documents of a site design beside it) is read into these
types, so the plan and the runner know one model whatever the source.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ironside.strategy.criteria import SuccessCriteria
from ironside.strategy.selectors import Selector

ONE_BY_ONE = 'one_by_one'
PARALLEL = 'parallel'


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

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = {'type': self.type}
        if self.amount:
            value['amount'] = self.amount
        return value


@dataclasses.dataclass(frozen=True)
class Group:
    name: str
    critical: bool
    depends_on: tuple[str, ...]
    selectors: tuple[Selector, ...]
    success_criteria: SuccessCriteria
    strategy: GroupStrategy
    deploy_steps: tuple[dict, ...] = ()
    deploy_templates: tuple[str, ...] = ()
    # Position in the document (0-based): the last tie-breaker of order.
    index: int = 0


@dataclasses.dataclass(frozen=True)
class Strategy:
    name: str
    schema: str
    groups: tuple[Group, ...]
    # The document as validated, for storing.
    document: dict

    def group(self, name: str) -> Group:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)
