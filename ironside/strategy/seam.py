"""The one interface through which the site layer reaches nodes.

The runner resolves selectors, starts the prepare and deploy transitions
of single nodes, and reads node states in bulk; nothing else. Two
implementations exist: :mod:`ironside.strategy.conductor_nodes` (Ironside's
conductors and database) and :mod:`ironside.strategy.memory_nodes` (an
in-memory site), and another Ironic-compatible endpoint would be a third.

``start_prepare`` and ``start_deploy`` only start transitions; the
runner learns how they end from ``read_states``. They raise ``Busy`` when
the request should simply be made again later (no free conductor worker,
node locked, conductor unreachable) and ``Rejected`` when the node cannot
do it; the node then fails with the message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from ironside.strategy.selectors import Selector
from ironside.strategy.selectors import SiteNode

# Requests the prepare phase makes, one after the other.
MANAGE = 'manage'
PROVIDE = 'provide'
DEPLOY = 'deploy'


class Busy(Exception):
    """Try again later; nothing was started."""


class Rejected(Exception):
    """The node refused the request; ``str()`` says why."""


@dataclasses.dataclass(frozen=True)
class NodeState:
    uuid: str
    provision_state: str | None
    last_error: str | None = None
    maintenance: bool = False
    # The deploy or clean step running now, as "interface.step".
    step: str | None = None


class NodeBackend(Protocol):
    def resolve(self, selectors: Sequence[Selector]) -> list[SiteNode]:
        """The nodes the selectors select, ordered by name."""

    def read_states(self, node_uuids: Sequence[str]
                    ) -> dict[str, NodeState]:
        """Current states of these nodes; missing ones are left out."""

    def start_prepare(self, node_uuid: str, verb: str) -> None:
        """Start ``manage`` (enroll → manageable) or ``provide``
        (manageable → cleaning → available)."""

    def start_deploy(self, node_uuid: str,
                     deploy_steps: Sequence[dict] = (),
                     deploy_templates: Sequence[str] = ()) -> None:
        """Start deploying (available → active) with these steps."""
