"""A decommission's Kubernetes operations (:class:`.k8s.KubernetesNodes`)
through the official ``kubernetes`` client.

Apart from :mod:`.k8s` so that what only plans or checks a decommission
(the API, a design's validation) does not load the client: it is large,
and only the conductor that runs a decommission talks to a cluster.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Mapping
from typing import Any

import kubernetes
import urllib3
from kubernetes.client import exceptions as k8s_exc

from ironside.common import exception
from ironside.strategy.decommission import status as st
from ironside.strategy.decommission.k8s import CLEAR_LABELS_TIMEOUT
from ironside.strategy.decommission.k8s import DECOMMISSION_LABEL
from ironside.strategy.decommission.k8s import DECOMMISSION_VALUE
from ironside.strategy.decommission.k8s import DRAIN_GRACE_PERIOD
from ironside.strategy.decommission.k8s import DRAIN_TIMEOUT
from ironside.strategy.decommission.k8s import MIRROR_ANNOTATION
from ironside.strategy.decommission.k8s import POLL_INTERVAL
from ironside.strategy.decommission.k8s import REQUEST_TIMEOUT
from ironside.strategy.decommission.k8s import check_drain_parameters
from ironside.strategy.decommission.k8s import system_label

LOG = logging.getLogger(__name__)

# The client's V1Pod and V1Node as the API server answers them: with
# metadata and spec, which the client's models declare optional (a
# request body may leave them out). Any, so that reading them does not
# check for what an answer always has.
Pod = Any
Node = Any


def _failed(reason: str, text: str, *messages: st.Message
            ) -> exception.DecommissionFailed:
    return exception.DecommissionFailed(st.failure(reason, text, messages))


def _pod_name(pod: Pod) -> str:
    return '%s/%s' % (pod.metadata.namespace, pod.metadata.name)


def _owned_by_daemonset(pod: Pod) -> bool:
    return any(o.kind == 'DaemonSet'
               for o in pod.metadata.owner_references or ())


def _mirror(pod: Pod) -> bool:
    return MIRROR_ANNOTATION in (pod.metadata.annotations or {})


def _local_data(pod: Pod) -> bool:
    return any(v.empty_dir is not None for v in pod.spec.volumes or ())


def _finished(pod: Pod) -> bool:
    return bool(pod.status and pod.status.phase in ('Succeeded', 'Failed'))


class KubernetesApi:
    """KubernetesNodes over the ``kubernetes`` client's CoreV1Api."""

    def __init__(self, api_client: kubernetes.client.ApiClient,
                 poll_interval: float = POLL_INTERVAL,
                 request_timeout: float = REQUEST_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.core = kubernetes.client.CoreV1Api(api_client)
        # The API server, as errors name it.
        self.endpoint = st.endpoint(api_client.configuration.host)
        self.poll_interval = poll_interval
        self.request_timeout = request_timeout
        self._clock = clock
        self._sleep = sleep

    @classmethod
    def from_kubeconfig(cls, kubeconfig: str | Mapping[str, Any],
                        context: str | None = None, **kwargs: Any
                        ) -> KubernetesApi:
        """From a kubeconfig file's path, or its parsed content."""
        # The kubernetes client's loaders have no type hints (nor stubs).
        if isinstance(kubeconfig, Mapping):
            load = kubernetes.config.new_client_from_config_dict
            client = load(dict(kubeconfig),  # type: ignore[no-untyped-call]
                          context=context)
        else:
            read = kubernetes.config.new_client_from_config
            client = read(kubeconfig,  # type: ignore[no-untyped-call]
                          context=context)
        return cls(client, **kwargs)

    # Calls

    def _call(self, reason: str, what: str, func: Callable[..., Any],
              *args: Any, deadline: float | None = None,
              node: str | None = None,
              answers: Mapping[int, Any] | None = None, **kwargs: Any
              ) -> Any:
        """``func(*args)``; a Kubernetes error becomes ``reason``.

        A 404 becomes NotFound when the call is about ``node``; statuses
        in ``answers`` return the value given for them instead.
        """
        timeout = self.request_timeout
        if deadline is not None:
            timeout = max(0.1, min(timeout, deadline - self._clock()))
        try:
            return func(*args, _request_timeout=timeout, **kwargs)
        except k8s_exc.ApiException as exc:
            if answers and exc.status in answers:
                return answers[exc.status]
            if exc.status == 404 and node is not None:
                raise exception.DecommissionFailed(
                    st.not_found(node)) from None
            raise _failed(reason, 'Kubernetes at %s refused to %s: %s %s'
                          % (self.endpoint, what, exc.status,
                             exc.reason)) from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise _failed(reason, 'Kubernetes at %s did not answer while '
                          'trying to %s: %s' % (
                              self.endpoint, what,
                              st.unreachable(exc))) from None

    def _node(self, node: str, reason: str, deadline: float | None = None
              ) -> Node:
        return self._call(reason, 'read node %s' % node,
                          self.core.read_node, node, deadline=deadline,
                          node=node)

    def _patch_node(self, node: str, body: dict[str, Any], reason: str,
                    what: str, deadline: float | None = None) -> Node:
        return self._call(reason, what, self.core.patch_node, node, body,
                          deadline=deadline, node=node)

    def _pods(self, node: str, reason: str, deadline: float | None = None
              ) -> list[Pod]:
        pods: list[Pod] = self._call(
            reason, 'list the pods of node %s' % node,
            self.core.list_pod_for_all_namespaces,
            field_selector='spec.nodeName=%s' % node,
            deadline=deadline).items  # a V1PodList
        return pods

    @staticmethod
    def _answer(func: Callable[[], st.Status]) -> st.Status:
        try:
            return func()
        except exception.DecommissionFailed as exc:
            return st.carried(exc)

    def _wait(self, deadline: float) -> bool:
        """Sleep one poll interval; False if the deadline has passed."""
        left = deadline - self._clock()
        if left <= 0:
            return False
        self._sleep(min(self.poll_interval, left))
        return True

    # Drain

    def drain(self, node: str, timeout: int = DRAIN_TIMEOUT,
              grace_period: int = DRAIN_GRACE_PERIOD) -> st.Status:
        problem = check_drain_parameters(timeout, grace_period)
        if problem is not None:
            return problem
        return self._answer(lambda: self._drain(node, timeout,
                                                grace_period))

    def _drain(self, node: str, timeout: int, grace: int) -> st.Status:
        reason = st.DRAIN_NODE_ERROR
        deadline = self._clock() + timeout
        current = self._node(node, reason, deadline)
        if not current.spec.unschedulable:
            self._patch_node(node, {'spec': {'unschedulable': True}},
                             reason, 'cordon node %s' % node, deadline)
        pending = {}
        skipped = []
        for pod in self._pods(node, reason, deadline):
            if _owned_by_daemonset(pod) or _mirror(pod):
                skipped.append(_pod_name(pod))
                continue
            pending[_pod_name(pod)] = pod
        to_evict = {name: pod for name, pod in pending.items()
                    if not (_local_data(pod) or _finished(pod))}
        for name, pod in pending.items():
            if name not in to_evict and not pod.metadata.deletion_timestamp:
                self._delete_pod(pod, grace, deadline)
        while True:
            for name, pod in list(to_evict.items()):
                if pod.metadata.deletion_timestamp or \
                        self._evict(pod, grace, deadline):
                    del to_evict[name]
            pending = {name: pod for name, pod in pending.items()
                       if self._exists(pod, reason, deadline)}
            if not pending:
                break
            if not self._wait(deadline):
                raise _failed(reason, 'Node %s was not drained within %d s;'
                              ' pods still on it: %s' % (
                                  node, timeout, ', '.join(sorted(pending))),
                              *(st.Message('not evicted' if n in to_evict
                                           else 'still terminating', name=n,
                                           error=True, kind=st.STEP_MESSAGE)
                                for n in sorted(pending)))
        return st.success('Node %s drained' % node, [
            st.Message('DaemonSet or mirror pod left on the node', name=n,
                       kind=st.STEP_MESSAGE) for n in sorted(skipped)])

    def _delete_pod(self, pod: Pod, grace: int, deadline: float) -> None:
        self._call(st.DRAIN_NODE_ERROR, 'delete pod %s' % _pod_name(pod),
                   self.core.delete_namespaced_pod, pod.metadata.name,
                   pod.metadata.namespace, grace_period_seconds=grace,
                   deadline=deadline, answers={404: None})

    def _evict(self, pod: Pod, grace: int, deadline: float) -> bool:
        """Ask for the pod's eviction; False if a disruption budget
        forbids it for now."""
        body = kubernetes.client.V1Eviction(
            metadata=kubernetes.client.V1ObjectMeta(
                name=pod.metadata.name, namespace=pod.metadata.namespace),
            delete_options=kubernetes.client.V1DeleteOptions(
                grace_period_seconds=grace))
        answer = self._call(st.DRAIN_NODE_ERROR,
                            'evict pod %s' % _pod_name(pod),
                            self.core.create_namespaced_pod_eviction,
                            pod.metadata.name, pod.metadata.namespace, body,
                            deadline=deadline,
                            answers={404: True, 429: False})
        if answer is False:
            LOG.info('Eviction of pod %s refused for now (disruption '
                     'budget); trying again', _pod_name(pod))
        return answer is not False

    def _exists(self, pod: Pod, reason: str, deadline: float) -> bool:
        current = self._call(reason, 'read pod %s' % _pod_name(pod),
                             self.core.read_namespaced_pod,
                             pod.metadata.name, pod.metadata.namespace,
                             deadline=deadline, answers={404: None})
        return current is not None and \
            current.metadata.uid == pod.metadata.uid

    # Labels

    def clear_labels(self, node: str, keys: Collection[str],
                     timeout: int = CLEAR_LABELS_TIMEOUT) -> st.Status:
        if timeout < 0:
            return st.failure(st.BAD_REQUEST, 'clear-labels timeout must not '
                              'be negative, not %s' % timeout)
        return self._answer(lambda: self._clear_labels(node, set(keys),
                                                       timeout))

    def _clear_labels(self, node: str, keys: set[str], timeout: int
                      ) -> st.Status:
        reason = st.CLEAR_LABELS_ERROR
        deadline = self._clock() + timeout
        labels = self._node(node, reason, deadline).metadata.labels or {}
        present = sorted(keys & set(labels))
        if present:
            self._patch_node(node, {'metadata': {'labels': {
                key: None for key in present}}}, reason,
                'remove labels %s from node %s' % (', '.join(present), node),
                deadline)
        while True:
            waiting = self._unsettled(node, keys, deadline)
            if not waiting:
                return st.success('Labels %s cleared from node %s' % (
                    ', '.join(present) or '(none present)', node))
            if not self._wait(deadline):
                raise _failed(reason, 'Node %s did not settle within %d s '
                              'after its labels were cleared: %s'
                              % (node, timeout, '; '.join(waiting)))

    def _unsettled(self, node: str, keys: set[str], deadline: float
                   ) -> list[str]:
        """Why the node has not settled: labels still there, pods that
        select a removed label or are terminating."""
        reason = st.CLEAR_LABELS_ERROR
        labels = self._node(node, reason, deadline).metadata.labels or {}
        waiting = ['label %s still set' % k for k in sorted(keys & set(
            labels))]
        for pod in self._pods(node, reason, deadline):
            selects = sorted(keys & set(pod.spec.node_selector or {}))
            if selects:
                waiting.append('pod %s selects %s' % (_pod_name(pod),
                                                      ', '.join(selects)))
            elif pod.metadata.deletion_timestamp:
                waiting.append('pod %s is terminating' % _pod_name(pod))
        return waiting

    # Kubelet

    def shutdown_kubelet(self, node: str) -> st.Status:
        return self._answer(lambda: self._shutdown_kubelet(node))

    def _shutdown_kubelet(self, node: str) -> st.Status:
        reason = st.SHUTDOWN_KUBELET_ERROR
        self._node(node, reason)
        node_obj = self._patch_node(
            node, {'metadata': {'labels': {
                DECOMMISSION_LABEL: DECOMMISSION_VALUE}}},
            reason, 'label node %s %s=%s' % (node, DECOMMISSION_LABEL,
                                              DECOMMISSION_VALUE))
        if (node_obj.metadata.labels or {}).get(DECOMMISSION_LABEL) != \
                DECOMMISSION_VALUE:
            raise _failed(reason, 'Node %s did not keep the label %s=%s'
                          % (node, DECOMMISSION_LABEL, DECOMMISSION_VALUE))
        return st.success('Node %s labelled %s=%s: its kubelet is shut down '
                          'by the decommission DaemonSet'
                          % (node, DECOMMISSION_LABEL, DECOMMISSION_VALUE))

    # Removal

    def remove_from_cluster(self, node: str) -> st.Status:
        return self._answer(lambda: self._remove(node))

    def _remove(self, node: str) -> st.Status:
        reason = st.DELETE_NODE_ERROR
        current = self._node(node, reason)
        problems = []
        if not current.spec.unschedulable:
            problems.append('it is not cordoned')
        extra = sorted(k for k, v in (current.metadata.labels or {}).items()
                       if not system_label(k) and
                       (k, v) != (DECOMMISSION_LABEL, DECOMMISSION_VALUE))
        if extra:
            problems.append('it still has labels %s' % ', '.join(extra))
        left = sorted(_pod_name(p) for p in self._pods(node, reason)
                      if not (_owned_by_daemonset(p) or _mirror(p)))
        if left:
            problems.append('it is not drained (pods %s)' % ', '.join(left))
        if problems:
            return st.failure(st.CONFLICT, 'Node %s cannot be deleted: %s'
                              % (node, '; '.join(problems)))
        self._call(reason, 'delete node %s' % node, self.core.delete_node,
                   node, node=node)
        return st.success('Node %s removed from the Kubernetes cluster'
                          % node)
