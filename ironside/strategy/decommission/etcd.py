"""etcd: the members a node hosts, their removal, and cluster health;
what a decommission asks of the site's etcd clusters
(:class:`EtcdMembership`), which :class:`.etcd_gateway.EtcdGateway` does
over etcd's HTTP gateway (a module of its own: its client, etcd3gw, loads
eventlet, and only a decommission of a site with etcd clusters needs it).
The clusters, their endpoints, credentials and thresholds come from the
EtcdClusters document (:mod:`..reader.etcd_clusters`).

Health, per member, in the spec's words: ``Healthy`` when its ``/health``
answers true, ``Unhealthy`` when it answers otherwise, ``Unable to access
Etcd`` when none of its client URLs answers. A member hosted on the node
being decommissioned is left out of every health count.

Waiting polls every ``interval`` seconds, :data:`POLL_INTERVAL` (2 s) by
default: twice etcd's default election timeout (1 s), so each poll after
the first sees the outcome of at least one leader election, and cheap
(one member list and one ``/health`` per member). The spec's 30 s would
leave a recovered cluster unnoticed for up to half a minute. Every
request is bounded by what is left of the timeout, so a wait fails at
its timeout, not later, even when a member stops answering mid-request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Protocol

from ironside.strategy.decommission import status as st

POLL_INTERVAL = 2.0
ETCD_READY_TIMEOUT = 600
REMOVE_ETCD_TIMEOUT = 1800
REQUEST_TIMEOUT = 5.0


@dataclasses.dataclass(frozen=True)
class Member:
    """A member of a running cluster, as etcd lists it."""

    id: int
    name: str
    peer_urls: tuple[str, ...]
    client_urls: tuple[str, ...]

    @property
    def hex_id(self) -> str:
        """The id as etcdctl shows it."""
        return '%x' % self.id

    def __str__(self) -> str:
        return '%s (%s)' % (self.name or '<unstarted>', self.hex_id)


class EtcdMembership(Protocol):
    """What a decommission needs of the site's etcd clusters."""

    def clusters_hosting(self, node: str) -> list[str]:
        """Names of the clusters with a member on ``node``: in the
        document, or live (a cluster that cannot be read counts by the
        document only)."""

    def members_on_node(self, cluster: str, node: str) -> list[Member]:
        """The live members of ``cluster`` hosted on ``node``.

        Raises DecommissionFailed (EtcdNotAccessible) if no endpoint of
        the cluster answers."""

    def remove_node_members(self, node: str,
                            timeout: float = REMOVE_ETCD_TIMEOUT) -> Status:
        """Remove every member hosted on ``node`` from its cluster.

        Refused (RemoveEtcdError), before any member is removed, when a
        cluster would be left with fewer healthy members than its
        minimum. A node without members (already removed) succeeds."""

    def health(self, cluster: str, ignore_node: str | None = None
               ) -> Status:
        """One HealthMessage per member; Success even when some are
        unhealthy, EtcdNotAccessible when no member answers."""

    def wait_until_healthy(self, node: str, clusters: Iterable[str],
                           timeout: float = ETCD_READY_TIMEOUT,
                           interval: float = POLL_INTERVAL) -> Status:
        """Wait until each cluster has at least its minimum of healthy
        members besides those on ``node``, and none on ``node``;
        RemoveEtcdError at ``timeout``."""


Status = st.Status
