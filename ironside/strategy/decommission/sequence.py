"""The decommission of one node, in the teardown spec's order.

    drain-node → clear-labels → remove-etcd → etcd-ready → shutdown-kubelet

Each step is recorded twice through the ``record`` callback: as
``running`` before it starts and with its outcome when it ends. Whoever
runs the decommission (a site action) stores these records; a conductor
that takes the action over passes them back as ``done`` and the run goes
on where it stopped:

- a step recorded ``succeeded`` is skipped;
- a step recorded ``running`` (it was in flight when its conductor died)
  or ``failed`` runs again. Every step is idempotent, so running one again
  never acts twice: a drained node drains at once, cleared labels clear at
  once, an etcd member already removed is not looked for again, the
  health wait only reads, and the kubelet label is set to the value it
  has. A step that is not in :data:`IDEMPOTENT` and was in flight ends
  the run instead (none is today; the rule keeps a future one honest).

A step for what the site does not have (Kubernetes, etcd clusters: see
:mod:`.clusters`) is recorded once, ``not applicable``, with a Success
status saying why, and does not run.

The result: ``Success`` (200); ``NotFound`` (404) when the node is not in
Kubernetes — found out by the drain, before anything changed;
``BadRequest`` (400) for parameters that cannot work, before anything
runs; ``DisassociateStepFailure`` (500) when a step failed, the details
listing every step's outcome. A failed kubelet shutdown is recorded and
does not fail the decommission: destroying the server stops the kubelet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.strategy.decommission import clusters as site_clusters
from ironside.strategy.decommission import etcd as etcd_api
from ironside.strategy.decommission import k8s
from ironside.strategy.decommission import status as st

DRAIN_NODE = 'drain-node'
CLEAR_LABELS = 'clear-labels'
REMOVE_ETCD = 'remove-etcd'
ETCD_READY = 'etcd-ready'
SHUTDOWN_KUBELET = 'shutdown-kubelet'
STEPS = (DRAIN_NODE, CLEAR_LABELS, REMOVE_ETCD, ETCD_READY,
         SHUTDOWN_KUBELET)
KUBERNETES_STEPS = frozenset({DRAIN_NODE, CLEAR_LABELS, SHUTDOWN_KUBELET})
ETCD_STEPS = frozenset({REMOVE_ETCD, ETCD_READY})
# Steps that may run again after being interrupted (see the module doc).
IDEMPOTENT = frozenset(STEPS)
# Steps whose failure is recorded but does not stop the decommission.
NOT_BLOCKING = frozenset({SHUTDOWN_KUBELET})

RUNNING = 'running'
SUCCEEDED = 'succeeded'
FAILED = 'failed'
# A step for what the site does not have: it did not run, and needs not.
NOT_APPLICABLE = 'not applicable'
# The states of a step that a resumed run does not run again.
DONE = frozenset({SUCCEEDED, NOT_APPLICABLE})


@dataclasses.dataclass(frozen=True)
class StepRecord:
    """A step's progress, as stored by the caller."""

    step: str
    state: str
    status: st.Status | None = None
    # remove-etcd: the etcd clusters that host (or hosted) the node.
    clusters: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = {'step': self.step, 'state': self.state}
        if self.status is not None:
            value['status'] = self.status.as_dict()
        if self.clusters:
            value['clusters'] = list(self.clusters)
        return value

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> StepRecord:
        status = value.get('status')
        return cls(step=value['step'], state=value['state'],
                   status=st.Status.from_dict(status) if status else None,
                   clusters=tuple(value.get('clusters') or ()))


@dataclasses.dataclass(frozen=True)
class DecommissionOptions:
    """The timeouts of a decommission, in seconds; defaults as the spec
    and Shipyard give them."""

    drain_timeout: int = k8s.DRAIN_TIMEOUT
    drain_grace_period: int = k8s.DRAIN_GRACE_PERIOD
    clear_labels_timeout: int = k8s.CLEAR_LABELS_TIMEOUT
    remove_etcd_timeout: int = etcd_api.REMOVE_ETCD_TIMEOUT
    etcd_ready_timeout: int = etcd_api.ETCD_READY_TIMEOUT
    etcd_poll_interval: float = etcd_api.POLL_INTERVAL

    # The spec's action parameters, and the fields they set.
    PARAMETERS = {
        'drain-node-timeout': 'drain_timeout',
        'drain-node-grace-period': 'drain_grace_period',
        'clear-labels-timeout': 'clear_labels_timeout',
        'remove-etcd-timeout': 'remove_etcd_timeout',
        'etcd-ready-timeout': 'etcd_ready_timeout',
    }

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any],
                        **fields: Any) -> DecommissionOptions:
        """From action parameters (``drain-node-timeout``, ...; other
        keys are ignored). Whole numbers, given as numbers or strings.
        Raises DecommissionFailed (BadRequest) naming the parameter."""
        values = dict(fields)
        for name, field in cls.PARAMETERS.items():
            if parameters.get(name) is None:
                continue
            raw = parameters[name]
            try:
                if isinstance(raw, bool) or isinstance(raw, float):
                    raise ValueError
                number = int(raw)
            except (TypeError, ValueError):
                raise exception.DecommissionFailed(st.failure(
                    st.BAD_REQUEST, '%s must be a whole number of seconds, '
                    'not %r' % (name, raw))) from None
            values[field] = number
        options = cls(**values)
        problem = options.check()
        if problem is not None:
            raise exception.DecommissionFailed(problem)
        return options

    def check(self) -> st.Status | None:
        """BadRequest for options that cannot work; None if they can."""
        problem = k8s.check_drain_parameters(self.drain_timeout,
                                             self.drain_grace_period)
        if problem is not None:
            return problem
        for name in ('clear_labels_timeout', 'remove_etcd_timeout',
                     'etcd_ready_timeout'):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or \
                    value < 0:
                return st.failure(st.BAD_REQUEST, '%s must be a whole '
                                  'number of seconds, not %r'
                                  % (name.replace('_', '-'), value))
        if self.etcd_poll_interval <= 0:
            return st.failure(st.BAD_REQUEST, 'etcd poll interval must be '
                              'positive')
        return None


def _ignore(record: StepRecord) -> None:
    """The default ``record``: nothing is kept."""


class Decommission:
    """Takes one node out of Kubernetes and etcd (see the module doc);
    ``kubernetes`` or ``etcd`` None: the site has none."""

    def __init__(self, kubernetes: k8s.KubernetesNodes | None,
                 etcd: etcd_api.EtcdMembership | None,
                 options: DecommissionOptions = DecommissionOptions()
                 ) -> None:
        self.kubernetes = kubernetes
        self.etcd = etcd
        self.options = options

    @property
    def applies(self) -> bool:
        """Whether any step applies: the site has Kubernetes or etcd."""
        return self.kubernetes is not None or self.etcd is not None

    def not_applicable(self, step: str) -> str | None:
        """Why ``step`` does not apply to this site; None if it does."""
        if step in KUBERNETES_STEPS and self.kubernetes is None:
            return site_clusters.NO_KUBERNETES
        if step in ETCD_STEPS and self.etcd is None:
            return site_clusters.NO_ETCD
        return None

    def run(self, node: str, labels: Collection[str],
            done: Sequence[StepRecord] = (),
            record: Callable[[StepRecord], None] = _ignore) -> st.Status:
        """Decommission ``node``, clearing its label keys ``labels``.

        ``done``: the records of an earlier, interrupted run; ``record``
        is called with every new record, before and after each step.
        """
        problem = self.options.check()
        if problem is not None:
            return problem
        previous = {r.step: r for r in done}
        outcomes: dict[str, StepRecord] = {}
        for step in STEPS:
            prior = previous.get(step)
            if prior is not None and prior.state in DONE:
                outcomes[step] = prior
                continue
            why = self.not_applicable(step)
            if why is not None:
                outcome = StepRecord(step, NOT_APPLICABLE, st.success(why))
                record(outcome)
                outcomes[step] = outcome
                continue
            if prior is not None and prior.state == RUNNING and \
                    step not in IDEMPOTENT:
                return self._overall(node, outcomes, st.failure(
                    st.DISASSOCIATE_STEP_FAILURE, 'Step %s was interrupted '
                    'and cannot safely run again' % step))
            clusters = self._clusters(step, node, previous)
            record(StepRecord(step, RUNNING, clusters=clusters))
            status = self._run_step(step, node, labels, clusters)
            outcome = StepRecord(step, SUCCEEDED if status.succeeded
                                 else FAILED, status, clusters)
            record(outcome)
            outcomes[step] = outcome
            if status.succeeded or step in NOT_BLOCKING:
                continue
            if step == DRAIN_NODE and status.reason in (st.NOT_FOUND,
                                                        st.BAD_REQUEST):
                return status   # nothing has changed
            return self._overall(node, outcomes, None)
        return self._overall(node, outcomes, None)

    def _clusters(self, step: str, node: str,
                  previous: Mapping[str, StepRecord]) -> tuple[str, ...]:
        if step not in ETCD_STEPS or self.etcd is None:
            return ()
        known = list(previous[REMOVE_ETCD].clusters) \
            if REMOVE_ETCD in previous else []
        return tuple(dict.fromkeys(known + self.etcd.clusters_hosting(node)))

    def _run_step(self, step: str, node: str, labels: Collection[str],
                  clusters: tuple[str, ...]) -> st.Status:
        """Run a step that applies (its peer is there)."""
        options = self.options
        kubernetes, etcd = self.kubernetes, self.etcd
        if kubernetes is not None and step == DRAIN_NODE:
            return kubernetes.drain(node, options.drain_timeout,
                                    options.drain_grace_period)
        if kubernetes is not None and step == CLEAR_LABELS:
            return kubernetes.clear_labels(node, labels,
                                           options.clear_labels_timeout)
        if kubernetes is not None and step == SHUTDOWN_KUBELET:
            return kubernetes.shutdown_kubelet(node)
        if etcd is not None and step == REMOVE_ETCD:
            return etcd.remove_node_members(node, options.remove_etcd_timeout)
        if etcd is not None and step == ETCD_READY:
            return etcd.wait_until_healthy(node, clusters,
                                           options.etcd_ready_timeout,
                                           options.etcd_poll_interval)
        raise ValueError('step %s does not apply' % step)

    @staticmethod
    def _overall(node: str, outcomes: Mapping[str, StepRecord],
                 failure: st.Status | None) -> st.Status:
        messages = []
        failed = []
        for step in STEPS:
            outcome = outcomes.get(step)
            if outcome is None or outcome.status is None:
                messages.append(st.Message('not run', name=step,
                                           kind=st.STEP_MESSAGE))
                continue
            status = outcome.status
            if not status.succeeded:
                failed.append(step)
            messages.append(st.Message(
                status.message if outcome.state == NOT_APPLICABLE
                else '%s: %s' % (status.reason, status.message), name=step,
                error=not status.succeeded, kind=st.STEP_MESSAGE))
        if failure is not None:
            return dataclasses.replace(failure, messages=tuple(messages))
        blocking = [s for s in failed if s not in NOT_BLOCKING]
        if blocking:
            return st.failure(st.DISASSOCIATE_STEP_FAILURE,
                              'Decommission of node %s failed at step %s'
                              % (node, blocking[0]), messages)
        if all(o.state == NOT_APPLICABLE for o in outcomes.values()):
            return st.success('Nothing to decommission node %s from: the '
                              'site design declares no Kubernetes cluster '
                              'and names no etcd clusters' % node, messages)
        text = 'Node %s decommissioned' % node
        if failed:
            text += ' (%s failed; not blocking: destroying the server ' \
                    'stops the kubelet)' % ', '.join(failed)
        return st.success(text, messages)
