"""The context of expressions: the site as it should be and as it was.

The inputs are plain records, so that this package needs no database:
the plan builder fills :class:`DesignState` from a design revision and
:class:`LiveNode` from Ironside's nodes, and :func:`build_context` gives
the two states expressions see. :class:`SiteContext` round-trips through
JSON (``as_dict``/``from_dict``) so an action can record the context it
started with and a resumed action evaluate on exactly the same.

How a node's fields are derived (the names are Fuel's, so conditions
written for Fuel read the same):

``pending_addition``
    The node is in the target design but not in the design of the last
    successful site action (every node, on a site without one).
``pending_deletion``
    The node is in the last successful action's design but not in the
    target one. Such a node is still listed in ``$.nodes``, so a removed
    node is visible to conditions.
``status``
    From the node's Ironside provision state:
    ``error`` for any failed state (``deploy failed``, ``clean failed``,
    ``error``, ...); ``provisioning`` while an image is written
    (``deploying``, ``wait call-back``, ``deploy hold``, ``rebuild``);
    ``removing`` while it is torn down (``deleting``, ``deleted``);
    for a node with an image (``active``, and the rescue and service
    states of an active node): ``ready`` if the last successful site
    action deployed it (it is in that action's design), else
    ``provisioned``; ``discover`` for everything else (``enroll``,
    ``manageable``, ``available``, cleaning, inspection) and for a node
    the design names but Ironside does not know.

In the old state every node is as the last successful action left it:
``status`` ``ready``, ``provision_state`` ``active``, nothing pending.

``$.cluster.status``
    ``operational`` once a site action has succeeded (``old`` exists),
    even while nodes are being added; ``partially_deployed`` when none
    has, but some node of the target design has been deployed or is
    being deployed (an action failed part-way); else ``new``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from ironside.common import states

# Fuel's node statuses, as Ironside derives them.
DISCOVER = 'discover'
PROVISIONING = 'provisioning'
PROVISIONED = 'provisioned'
READY = 'ready'
ERROR = 'error'
REMOVING = 'removing'

# Cluster statuses.
NEW = 'new'
PARTIALLY_DEPLOYED = 'partially_deployed'
OPERATIONAL = 'operational'

_FAILED = frozenset({
    states.DEPLOYFAIL, states.CLEANFAIL, states.INSPECTFAIL,
    states.ADOPTFAIL, states.RESCUEFAIL, states.UNRESCUEFAIL,
    states.SERVICEFAIL, states.ERROR})
_PROVISIONING = frozenset({
    states.DEPLOYING, states.DEPLOYWAIT, states.DEPLOYHOLD, states.REBUILD})
_REMOVING = frozenset({states.DELETING, states.DELETED})
_IMAGED = frozenset({
    states.ACTIVE, states.RESCUE, states.RESCUING, states.RESCUEWAIT,
    states.UNRESCUING, states.SERVICING, states.SERVICEWAIT,
    states.SERVICEHOLD})
# A node in one of these has been, or is being, deployed.
_DEPLOYED_OR_DEPLOYING = _IMAGED | _PROVISIONING | {states.DEPLOYFAIL}


def node_status(provision_state: str | None, deployed: bool) -> str:
    """Fuel's status of a node in ``provision_state``.

    ``deployed``: the last successful site action deployed the node.
    """
    if provision_state in _FAILED:
        return ERROR
    if provision_state in _PROVISIONING:
        return PROVISIONING
    if provision_state in _REMOVING:
        return REMOVING
    if provision_state in _IMAGED:
        return READY if deployed else PROVISIONED
    return DISCOVER


@dataclasses.dataclass(frozen=True)
class DesignNode:
    """A node as a design revision's inventory describes it.

    ``groups``: the DeploymentStrategy groups that select the node (the
    plan builder resolves the selectors).
    """

    name: str
    roles: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    rack: str | None = None
    tags: tuple[str, ...] = ()
    labels: Mapping[str, str] = dataclasses.field(default_factory=dict)
    properties: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # Fuel's network scheme of the node, when the design gives one.
    network_scheme: Mapping[str, Any] = dataclasses.field(
        default_factory=dict)


@dataclasses.dataclass(frozen=True)
class DesignState:
    """What expressions see of one design revision."""

    nodes: tuple[DesignNode, ...] = ()
    # Configuration documents by name: ``$.configs.<name>``.
    configs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    revision: int | None = None


@dataclasses.dataclass(frozen=True)
class LiveNode:
    """An Ironside node as it is now, known by its name."""

    name: str
    uuid: str
    # None when its state was not read (it went away meanwhile).
    provision_state: str | None


@dataclasses.dataclass(frozen=True)
class NodeState:
    """One entry of ``$.nodes`` (and ``$node``)."""

    name: str
    uuid: str | None
    roles: tuple[str, ...]
    groups: tuple[str, ...]
    rack: str | None
    tags: tuple[str, ...]
    labels: Mapping[str, str]
    provision_state: str | None
    status: str
    pending_addition: bool
    pending_deletion: bool
    properties: Mapping[str, Any]
    network_scheme: Mapping[str, Any] = dataclasses.field(
        default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            'name': self.name, 'uuid': self.uuid,
            'roles': list(self.roles), 'groups': list(self.groups),
            'rack': self.rack, 'tags': list(self.tags),
            'labels': dict(self.labels),
            'provision_state': self.provision_state, 'status': self.status,
            'pending_addition': self.pending_addition,
            'pending_deletion': self.pending_deletion,
            'properties': self.properties,
            'network_scheme': self.network_scheme,
        }

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> NodeState:
        return cls(
            name=value['name'], uuid=value['uuid'],
            roles=tuple(value['roles']), groups=tuple(value['groups']),
            rack=value['rack'], tags=tuple(value['tags']),
            labels=dict(value['labels']),
            provision_state=value['provision_state'],
            status=value['status'],
            pending_addition=value['pending_addition'],
            pending_deletion=value['pending_deletion'],
            properties=dict(value['properties']),
            # Not recorded by the actions of an older Ironside.
            network_scheme=dict(value.get('network_scheme') or {}))


@dataclasses.dataclass(frozen=True)
class SiteState:
    """What ``$`` is: one state of the site."""

    nodes: tuple[NodeState, ...]
    configs: Mapping[str, Any]
    settings: Mapping[str, Any]
    cluster_status: str
    revision: int | None = None

    def as_data(self) -> dict[str, Any]:
        """``$``: the state as expressions see it."""
        return {
            'nodes': [node.as_dict() for node in self.nodes],
            'configs': self.configs,
            'settings': self.settings,
            'cluster': {'status': self.cluster_status},
        }

    def as_dict(self) -> dict[str, Any]:
        """The recorded form: ``$`` and the revision."""
        return dict(self.as_data(), revision=self.revision)

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> SiteState:
        return cls(
            nodes=tuple(NodeState.from_dict(n) for n in value['nodes']),
            configs=value['configs'], settings=value['settings'],
            cluster_status=value['cluster']['status'],
            revision=value.get('revision'))


@dataclasses.dataclass(frozen=True)
class SiteContext:
    """The two states of one action: ``new``, and ``old`` (or None)."""

    new: SiteState
    old: SiteState | None

    def as_dict(self) -> dict[str, Any]:
        return {'new': self.new.as_dict(),
                'old': None if self.old is None else self.old.as_dict()}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> SiteContext:
        old = value.get('old')
        return cls(new=SiteState.from_dict(value['new']),
                   old=None if old is None else SiteState.from_dict(old))


def _plain(value: Any) -> Any:
    """Mappings and sequences of a design as dicts and lists."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _node(design: DesignNode, live: LiveNode | None, status: str,
          provision_state: str | None, pending_addition: bool = False,
          pending_deletion: bool = False) -> NodeState:
    return NodeState(
        name=design.name, uuid=live.uuid if live else None,
        roles=tuple(design.roles), groups=tuple(design.groups),
        rack=design.rack, tags=tuple(design.tags),
        labels=dict(design.labels), provision_state=provision_state,
        status=status, pending_addition=pending_addition,
        pending_deletion=pending_deletion,
        properties=_plain(design.properties),
        network_scheme=_plain(design.network_scheme))


def cluster_status(deployed: DesignState | None,
                   nodes: Iterable[NodeState]) -> str:
    """``$.cluster.status`` (see the module's docstring)."""
    if deployed is not None:
        return OPERATIONAL
    if any(node.provision_state in _DEPLOYED_OR_DEPLOYING and
           not node.pending_deletion for node in nodes):
        return PARTIALLY_DEPLOYED
    return NEW


def build_context(target: DesignState, live: Iterable[LiveNode],
                  deployed: DesignState | None) -> SiteContext:
    """The new and the old state of a site.

    ``target``: the design revision the action deploys; ``live``:
    Ironside's nodes now (nodes not listed are not enrolled);
    ``deployed``: the design of the last successful site action, None
    for a site without one.
    """
    live_by_name = {node.name: node for node in live}
    old_names = {n.name for n in deployed.nodes} if deployed else set()
    new_names = {n.name for n in target.nodes}
    nodes = []
    for design in target.nodes:
        node = live_by_name.get(design.name)
        state = node.provision_state if node else None
        nodes.append(_node(design, node,
                           node_status(state, design.name in old_names),
                           state,
                           pending_addition=design.name not in old_names))
    for design in deployed.nodes if deployed else ():
        if design.name in new_names:
            continue
        node = live_by_name.get(design.name)
        state = node.provision_state if node else None
        nodes.append(_node(design, node, node_status(state, True), state,
                           pending_deletion=True))
    new = SiteState(nodes=tuple(nodes), configs=_plain(target.configs),
                    settings=_plain(target.settings),
                    cluster_status=cluster_status(deployed, nodes),
                    revision=target.revision)
    old = None
    if deployed is not None:
        old = SiteState(
            nodes=tuple(_node(design, live_by_name.get(design.name), READY,
                              states.ACTIVE)
                        for design in deployed.nodes),
            configs=_plain(deployed.configs),
            settings=_plain(deployed.settings),
            cluster_status=OPERATIONAL, revision=deployed.revision)
    return SiteContext(new=new, old=old)
