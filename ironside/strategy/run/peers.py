"""The peers a redeploy_server action decommissions its node from: the
site's Kubernetes API (``[redeploy]kubeconfig`` on the conductor) and the
etcd clusters of the EtcdClusters document of the action's design
revision (none: the site runs no etcd Ironside knows of)."""

from __future__ import annotations

import dataclasses

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.db import site_models
from ironside.strategy.decommission import etcd
from ironside.strategy.decommission import k8s
from ironside.strategy.decommission import status as st
from ironside.strategy.designs import store
from ironside.strategy.reader import etcd_clusters


@dataclasses.dataclass(frozen=True)
class Peers:
    kubernetes: k8s.KubernetesNodes
    etcd: etcd.EtcdMembership | None


def _failed(text: str) -> exception.DecommissionFailed:
    return exception.DecommissionFailed(
        st.failure(st.DISASSOCIATE_STEP_FAILURE, text))


def etcd_document(revision: int) -> etcd_clusters.EtcdClusters | None:
    """The revision's EtcdClusters document, read; None without one."""
    found = store.design(revision).documents_of_kind(
        etcd_clusters.KIND.name)
    if not found:
        return None
    if len(found) > 1:
        raise _failed('Design revision %d has %d EtcdClusters documents; '
                      'it needs one' % (revision, len(found)))
    try:
        return etcd_clusters.load(dict(found[0].body), found[0].name)
    except exception.InvalidDesignDocument as exc:
        raise _failed('The EtcdClusters document of design revision %d is '
                      'invalid: %s' % (revision, exc)) from None


def from_config(action: site_models.SiteAction) -> Peers:
    """The peers as this conductor is configured to reach them; raises
    DecommissionFailed (DisassociateStepFailure) when it cannot."""
    if not CONF.redeploy.kubeconfig:
        raise _failed('This conductor has no [redeploy]kubeconfig: it '
                      'cannot reach the site\'s Kubernetes API')
    try:
        kubernetes = k8s.KubernetesApi.from_kubeconfig(
            CONF.redeploy.kubeconfig, CONF.redeploy.kubernetes_context,
            poll_interval=CONF.redeploy.kubernetes_poll_interval)
    except Exception as exc:
        raise _failed('The kubeconfig %s cannot be used: %s' % (
            CONF.redeploy.kubeconfig, type(exc).__name__)) from None
    document = etcd_document(action.revision_id)
    return Peers(kubernetes,
                 etcd.EtcdGateway(document) if document else None)
