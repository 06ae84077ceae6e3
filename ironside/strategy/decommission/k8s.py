"""Kubernetes: drain a node, clear its labels, shut its kubelet down,
delete it — what a decommission asks of the cluster
(:class:`KubernetesNodes`) and its rules; :mod:`.k8s_client` does it
through the official ``kubernetes`` client, which only a conductor
running a decommission loads.

Each operation answers with a :class:`~.status.Status` carrying the
spec's reason: ``NotFound`` (404) when the node does not exist, the
step's own error (500) when Kubernetes fails it, ``BadRequest`` (400)
for parameters that cannot work and ``Conflict`` (409) for a node that
may not be deleted yet. All of them may be repeated: a drained node
drains at once, cleared labels clear at once, the kubelet label is set
again.

Drain does what ``kubectl drain --ignore-daemonsets --delete-emptydir-data
--force --grace-period G --timeout T`` does: cordon, then evict every
pod through the eviction API with the grace period (a pod a disruption
budget protects is tried again until the timeout), delete the pods that
keep data in an ``emptyDir`` (and finished ones), leave DaemonSet and
mirror pods alone, and wait until the pods are gone.

Labels of the system's own (their key's domain is ``kubernetes.io``,
``k8s.io`` or a subdomain: set by the kubelet and restored by it) are
never the design's and do not stop a node from being deleted.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from ironside.strategy.decommission import status as st

DRAIN_TIMEOUT = 3600
DRAIN_GRACE_PERIOD = 1800
CLEAR_LABELS_TIMEOUT = 1800
POLL_INTERVAL = 1.0
REQUEST_TIMEOUT = 30.0

# The spec's spelling, typo included: the DaemonSet that stops kubelets
# selects on it.
DECOMMISSION_LABEL = 'promenade-decomission'
DECOMMISSION_VALUE = 'enabled'

MIRROR_ANNOTATION = 'kubernetes.io/config.mirror'

class KubernetesNodes(Protocol):
    """What a decommission needs of the Kubernetes cluster."""

    def drain(self, node: str, timeout: int = DRAIN_TIMEOUT,
              grace_period: int = DRAIN_GRACE_PERIOD) -> st.Status:
        """Cordon and empty the node (DrainNodeError on failure or at
        the timeout; BadRequest when grace_period > timeout)."""

    def clear_labels(self, node: str, keys: Collection[str],
                     timeout: int = CLEAR_LABELS_TIMEOUT) -> st.Status:
        """Remove the label ``keys`` and wait until the pods that
        selected them are gone (ClearLabelsError)."""

    def shutdown_kubelet(self, node: str) -> st.Status:
        """Label the node ``promenade-decomission: enabled``
        (ShutdownKubeletError)."""

    def remove_from_cluster(self, node: str) -> st.Status:
        """Delete the node: Conflict unless cordoned, drained and
        without labels but the system's and the decommission label
        (DeleteNodeError)."""


def system_label(key: str) -> bool:
    """Whether a label key belongs to Kubernetes itself."""
    if '/' not in key:
        return False
    domain = key.split('/', 1)[0]
    return any(domain == d or domain.endswith('.' + d)
               for d in ('kubernetes.io', 'k8s.io'))


def check_drain_parameters(timeout: int, grace_period: int
                           ) -> st.Status | None:
    """BadRequest for a drain that cannot work; None if it can."""
    for name, value in (('drain timeout', timeout),
                        ('drain grace period', grace_period)):
        if isinstance(value, bool) or not isinstance(value, int) or \
                value < 0:
            return st.failure(st.BAD_REQUEST, '%s must be a whole number of '
                              'seconds, not %r' % (name, value))
    if grace_period > timeout:
        return st.failure(st.BAD_REQUEST, 'drain grace period (%d s) must '
                          'not be longer than the drain timeout (%d s)'
                          % (grace_period, timeout))
    return None
