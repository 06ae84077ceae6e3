"""The peers a redeploy_server action decommissions its node from, as
its design revision declares them (:mod:`..decommission.clusters`): the
site's Kubernetes API, reached with ``[redeploy]kubeconfig`` on the
conductor, when the design declares Kubernetes; the etcd clusters of its
EtcdClusters document when it has one. Either is None when the site has
none: the decommission's steps for it are not applicable."""

from __future__ import annotations

import dataclasses

from ironside.common.conf import CONF
from ironside.db import site_models
from ironside.strategy.decommission import clusters
from ironside.strategy.decommission import etcd
from ironside.strategy.decommission import k8s
from ironside.strategy.designs import store
from ironside.strategy.reader.etcd_clusters import EtcdClusters


@dataclasses.dataclass(frozen=True)
class Peers:
    kubernetes: k8s.KubernetesNodes | None
    etcd: etcd.EtcdMembership | None


def _kubernetes() -> k8s.KubernetesNodes:
    # The ``kubernetes`` client (several MiB) is loaded by the first
    # decommission of a site that declares Kubernetes, not by every
    # conductor.
    from ironside.strategy.decommission import k8s_client
    try:
        return k8s_client.KubernetesApi.from_kubeconfig(
            CONF.redeploy.kubeconfig, CONF.redeploy.kubernetes_context,
            poll_interval=CONF.redeploy.kubernetes_poll_interval)
    except Exception as exc:
        raise clusters.failed('The kubeconfig %s cannot be used: %s' % (
            CONF.redeploy.kubeconfig, type(exc).__name__)) from None


def _etcd(document: EtcdClusters) -> etcd.EtcdMembership:
    # etcd3gw (and eventlet, which it loads: ~1 s of CPU) is loaded by
    # the first decommission of a site with etcd clusters, not by every
    # conductor.
    from ironside.strategy.decommission import etcd_gateway
    return etcd_gateway.EtcdGateway(document)


def from_config(action: site_models.SiteAction) -> Peers:
    """The peers the action's revision declares, as this conductor is
    configured to reach them; raises DecommissionFailed
    (DisassociateStepFailure) when it cannot."""
    revision = action.revision_id
    if revision is None:
        raise clusters.failed('The action names no design revision')
    # The documents alone: the design's models are not needed here.
    _, documents = store.documents(revision)
    declared = clusters.kubernetes_documents(documents)
    problem = clusters.missing_kubeconfig(revision, declared)
    if problem is not None:
        raise clusters.failed(problem)
    document = clusters.etcd_document(documents, revision)
    return Peers(_kubernetes() if declared else None,
                 _etcd(document) if document else None)
