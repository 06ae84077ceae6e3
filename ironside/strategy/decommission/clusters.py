"""What a decommission acts on: the clusters a design revision declares.

A decommission applies what the site has, as its design says it
(``redeploy_server`` runs on sites with and without Kubernetes):

- **Kubernetes** when a document declares it: an
  ``ironside/KubernetesCluster/v1`` document
  (:mod:`..reader.kubernetes_cluster`), or one of Promenade's
  (``promenade/Genesis/v1``, ``promenade/KubernetesNetwork/v1``,
  ``promenade/KubernetesNode/v1``: an Airship design). Without one,
  draining, clearing labels, shutting the kubelet down and removing the
  node from the cluster are ``not applicable``.
- **etcd** when the design has an EtcdClusters document; without one,
  removing the node's members and waiting for the clusters' health are
  ``not applicable``.

A design that declares Kubernetes needs ``[redeploy]kubeconfig``: a
``redeploy_server`` action is refused when it is created without one
(:func:`missing_kubeconfig`, checked by :mod:`..plan.redeploy`), and
fails its first step on a conductor configured without one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.strategy.decommission import status as st
from ironside.strategy.reader import etcd_clusters
from ironside.strategy.reader import kubernetes_cluster
from ironside.strategy.reader.documents import DesignDocument

KUBERNETES_SCHEMAS = (kubernetes_cluster.SCHEMA,) + \
    kubernetes_cluster.PROMENADE_SCHEMAS

# Why a step does not apply, as the action's report says it.
NO_KUBERNETES = 'not applicable: the site design declares no Kubernetes ' \
                'cluster (no %s document)' % kubernetes_cluster.SCHEMA
NO_ETCD = 'not applicable: the site design names no etcd clusters (no ' \
          'EtcdClusters document)'


def kubernetes_documents(documents: Sequence[DesignDocument]) -> list[str]:
    """The documents that declare Kubernetes, as ``schema name``."""
    return ['%s %s' % (d.schema, d.name) for d in documents
            if d.schema in KUBERNETES_SCHEMAS]


def summary(documents: Sequence[DesignDocument]) -> str:
    """What a decommission will act on, for the action's log: the
    declaring documents, or why a peer is not applicable (saying so when
    a kubeconfig is set that the design gives no use)."""
    kubernetes = kubernetes_documents(documents)
    etcd = ['%s %s' % (d.schema, d.name) for d in documents
            if d.schema in etcd_clusters.SCHEMAS]
    if kubernetes:
        k8s_part = ', '.join(kubernetes)
    else:
        k8s_part = 'not applicable, the design declares none'
        if CONF.redeploy.kubeconfig:
            k8s_part += ' ([redeploy]kubeconfig is set, and not used)'
    etcd_part = ', '.join(etcd) if etcd else \
        'not applicable, the design names no etcd clusters'
    return 'Decommission: Kubernetes: %s; etcd: %s' % (k8s_part, etcd_part)


def missing_kubeconfig(revision: int, declared: Sequence[str]
                       ) -> str | None:
    """Why this process cannot reach the Kubernetes cluster ``declared``
    (documents, :func:`kubernetes_documents`) declares; None when it can
    or when nothing declares one."""
    if not declared or CONF.redeploy.kubeconfig:
        return None
    return ('Design revision %d declares a Kubernetes cluster (%s), and '
            'this Ironside has no [redeploy]kubeconfig to reach it: set it '
            'on the API and the conductors' % (revision, ', '.join(declared)))


def failed(text: str) -> exception.DecommissionFailed:
    """The error of a decommission that can not reach the peers the
    design declares (DisassociateStepFailure)."""
    return exception.DecommissionFailed(
        st.failure(st.DISASSOCIATE_STEP_FAILURE, text))


def etcd_document(documents: Sequence[DesignDocument], revision: int
                  ) -> etcd_clusters.EtcdClusters | None:
    """The revision's EtcdClusters document, read; None without one.
    Raises DecommissionFailed (DisassociateStepFailure) for more than
    one, or one that does not read."""
    found = [d for d in documents if d.schema in etcd_clusters.SCHEMAS]
    if not found:
        return None
    if len(found) > 1:
        raise failed('Design revision %d has %d EtcdClusters documents; '
                      'it needs one' % (revision, len(found)))
    try:
        return etcd_clusters.load(dict(found[0].body), found[0].name)
    except exception.InvalidDesignDocument as exc:
        raise failed('The EtcdClusters document of design revision %d is '
                      'invalid: %s' % (revision, exc)) from None
