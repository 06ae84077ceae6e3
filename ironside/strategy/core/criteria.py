"""Success criteria: when a group has done well enough in a phase.

Each criterion given is checked on its own and the group fails if any
fails; with none given nothing is checked. The checks run on the group's
full node set: a node that succeeded earlier in the action, in another
group, counts as successful here too. A group with no nodes is 100%
successful with 0 failures, but still fails ``minimum_successful_nodes``
(it has 0 successful nodes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from collections.abc import Mapping
from typing import Any

PERCENT = 'percent_successful_nodes'
MINIMUM = 'minimum_successful_nodes'
MAXIMUM_FAILED = 'maximum_failed_nodes'


@dataclasses.dataclass(frozen=True)
class SuccessCriteria:
    percent_successful_nodes: float | None = None
    minimum_successful_nodes: int | None = None
    maximum_failed_nodes: int | None = None

    @classmethod
    def from_dict(cls, value: Mapping[str, Any] | None) -> SuccessCriteria:
        value = value or {}
        return cls(percent_successful_nodes=value.get(PERCENT),
                   minimum_successful_nodes=value.get(MINIMUM),
                   maximum_failed_nodes=value.get(MAXIMUM_FAILED))

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items()
                if v is not None}

    def failures(self, group_nodes: Collection[str],
                 successful: Collection[str]) -> list[dict[str, Any]]:
        """The criteria not met, each as {criterion, needed, actual}."""
        nodes = set(group_nodes)
        succeeded = len(nodes & set(successful))
        failed = len(nodes) - succeeded
        percent = 100.0 if not nodes else succeeded * 100.0 / len(nodes)
        failures = []
        if self.percent_successful_nodes is not None and \
                percent < self.percent_successful_nodes:
            failures.append({'criterion': PERCENT,
                             'needed': self.percent_successful_nodes,
                             'actual': round(percent, 2)})
        if self.minimum_successful_nodes is not None and \
                succeeded < self.minimum_successful_nodes:
            failures.append({'criterion': MINIMUM,
                             'needed': self.minimum_successful_nodes,
                             'actual': succeeded})
        if self.maximum_failed_nodes is not None and \
                failed > self.maximum_failed_nodes:
            failures.append({'criterion': MAXIMUM_FAILED,
                             'needed': self.maximum_failed_nodes,
                             'actual': failed})
        return failures
