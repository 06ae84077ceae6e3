"""The one interface through which the site layer reaches nodes.

The runner resolves selectors, starts the prepare and deploy transitions
of single nodes, and reads node states in bulk; an action that runs a
design revision also finds the inventory's nodes by name, enrolls those
that do not exist and sets the ``extra`` fields of the others. Ironside
implements it with its conductors and database
(:mod:`ironside.strategy.nodes.conductor`); the tests have an in-memory
twin (``tests/unit/strategy/memory_nodes.py``), and another
Ironic-compatible endpoint would be a third.

A ``redeploy_server`` action also destroys one node through its own
hardware interfaces: ``start_teardown`` (undeploy), ``start_clean``
(manual cleaning with given clean steps, such as
``management.wipe_local_storage``), ``power_off`` and ``set_retired``
(out of service, and back).

``start_prepare``, ``start_deploy``, ``start_teardown``, ``start_clean``
and ``power_off`` only start transitions; the
runner learns how they end from ``read_states``. They raise ``Busy`` when
the request should simply be made again later (no free conductor worker,
conductor unreachable), ``Locked`` (a ``Busy``) when someone else holds
the node's lock, which the runner waits out only so long, and
``Rejected`` when the node cannot do it; the node then fails with the
message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import Protocol

from ironside.strategy.core.selectors import Selector
from ironside.strategy.core.selectors import SiteNode

# Requests the prepare phase makes, one after the other.
MANAGE = 'manage'
PROVIDE = 'provide'
DEPLOY = 'deploy'
# Requests a redeploy_server action's destroy makes.
TEARDOWN = 'deleted'
CLEAN = 'clean'
POWER_OFF = 'power off'


class Busy(Exception):
    """Try again later; nothing was started."""


class Locked(Busy):
    """Someone else holds the node's lock; ``str()`` says who."""


class Rejected(Exception):
    """The node refused the request; ``str()`` says why."""


@dataclasses.dataclass(frozen=True)
class NodeState:
    uuid: str
    provision_state: str | None
    last_error: str | None = None
    maintenance: bool = False
    maintenance_reason: str | None = None
    # The deploy or clean step running now, as "interface.step".
    step: str | None = None
    power_state: str | None = None


@dataclasses.dataclass(frozen=True)
class KnownNode:
    """A node that exists, and its ``extra`` field."""

    uuid: str
    name: str
    extra: Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class NewNode:
    """A node to enroll. ``driver_info`` holds BMC credentials: never
    logged, never shown."""

    name: str
    driver: str
    driver_info: Mapping[str, Any] = dataclasses.field(default_factory=dict,
                                                       repr=False)
    properties: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    resource_class: str | None = None
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)


class PlanNodes(Protocol):
    """What planning an action reads and writes of the nodes: the API
    gives the nodes as its caller sees them (api.site.scope)."""

    def resolve(self, selectors: Sequence[Selector]) -> list[SiteNode]:
        """The nodes the selectors select, ordered by name."""

    def read_states(self, node_uuids: Sequence[str]
                    ) -> dict[str, NodeState]:
        """Current states of these nodes; missing ones are left out."""

    def find_nodes(self, names: Sequence[str]) -> dict[str, KnownNode]:
        """The nodes of these names that exist, by name."""

    def enroll(self, nodes: Sequence[NewNode]) -> dict[str, str]:
        """Create these nodes (in ``enroll``); their UUIDs by name.

        Raises Rejected, having created none, when one of them cannot be
        (no conductor serves its driver)."""

    def set_extra(self, node_uuid: str, extra: Mapping[str, Any]) -> None:
        """Replace a node's ``extra`` field (Busy, Rejected)."""


class NodeBackend(PlanNodes, Protocol):
    """The nodes as a running action moves them."""

    def start_prepare(self, node_uuid: str, verb: str) -> None:
        """Start ``manage`` (enroll → manageable, or clean failed and
        inspect failed → manageable) or ``provide`` (manageable →
        cleaning → available)."""

    def start_deploy(self, node_uuid: str,
                     deploy_steps: Sequence[dict[str, Any]] = (),
                     deploy_templates: Sequence[str] = ()) -> None:
        """Start deploying (available → active) with these steps."""

    def start_teardown(self, node_uuid: str) -> None:
        """Start undeploying (active, deploy failed or error → deleting
        → cleaning → available, or manageable for a retired node)."""

    def start_clean(self, node_uuid: str,
                    clean_steps: Sequence[dict[str, Any]]) -> None:
        """Start manual cleaning (manageable → cleaning → manageable)
        with these clean steps."""

    def power_off(self, node_uuid: str) -> None:
        """Start powering the node off (``power_state`` says when)."""

    def set_retired(self, node_uuid: str, retired: bool,
                    reason: str | None = None) -> None:
        """Retire a node (out of service: it never becomes available
        again) or bring it back (Busy, Rejected)."""
