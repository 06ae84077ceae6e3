"""The decommission sequence: order, outcomes, resuming.

Kubernetes and etcd are in-memory twins here (the real implementations
are tested against the Kubernetes API emulator and a real etcd cluster in
tests/functional/decommission/); what matters is the order, the records
and that no step acts twice.
"""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy.decommission import sequence
from ironside.strategy.decommission import status as st
from ironside.strategy.decommission.sequence import Decommission
from ironside.strategy.decommission.sequence import DecommissionOptions
from ironside.strategy.decommission.sequence import StepRecord


class KubernetesTwin:
    def __init__(self, nodes=('n1',), labels=None):
        self.nodes = {n: dict(labels or {'site/role': 'control'})
                      for n in nodes}
        self.cordoned = set()
        self.calls = []
        self.effects = []
        self.fail = {}

    def _answer(self, name, node, effect):
        self.calls.append(name)
        if node not in self.nodes:
            return st.not_found(node)
        if name in self.fail:
            return st.failure(self.fail[name], '%s failed' % name)
        if effect:
            self.effects.append(name)
        return st.success(name)

    def drain(self, node, timeout=3600, grace_period=1800):
        answer = self._answer('drain', node, node not in self.cordoned)
        if answer.succeeded:
            self.cordoned.add(node)
        return answer

    def clear_labels(self, node, keys, timeout=1800):
        present = set(keys) & set(self.nodes.get(node, {}))
        answer = self._answer('clear_labels', node, bool(present))
        if answer.succeeded:
            for key in present:
                del self.nodes[node][key]
        return answer

    def shutdown_kubelet(self, node):
        answer = self._answer('shutdown_kubelet', node, 'promenade-'
                              'decomission' not in self.nodes.get(node, {}))
        if answer.succeeded:
            self.nodes[node]['promenade-decomission'] = 'enabled'
        return answer

    def remove_from_cluster(self, node):
        raise AssertionError('not part of the decommission')


class EtcdTwin:
    def __init__(self, members=('n1', 'n2', 'n3')):
        self.members = {'kubernetes': set(members)}
        self.calls = []
        self.removed = []
        self.fail = {}

    def clusters_hosting(self, node):
        return ['kubernetes']

    def members_on_node(self, cluster, node):
        return [node] if node in self.members[cluster] else []

    def remove_node_members(self, node, timeout=1800):
        self.calls.append('remove')
        if 'remove' in self.fail:
            return st.failure(self.fail['remove'], 'refused')
        if node in self.members['kubernetes']:
            self.members['kubernetes'].discard(node)
            self.removed.append(node)
        return st.success('removed')

    def health(self, cluster, ignore_node=None):
        raise AssertionError('not used')

    def wait_until_healthy(self, node, clusters, timeout=600, interval=2.0):
        self.calls.append(('wait', tuple(clusters), timeout, interval))
        if 'wait' in self.fail:
            return st.failure(self.fail['wait'], 'not healthy')
        return st.success('healthy')


def _run(kube, etcd, options=None, **kwargs):
    records = []
    status = Decommission(kube, etcd, options or DecommissionOptions()).run(
        'n1', ['site/role'], record=records.append, **kwargs)
    return status, records


def test_success_runs_every_step_in_order():
    kube, etcd = KubernetesTwin(), EtcdTwin()
    status, records = _run(kube, etcd, DecommissionOptions(
        etcd_ready_timeout=42, etcd_poll_interval=0.5))
    assert (status.reason, status.code) == ('Success', 200)
    assert [(r.step, r.state) for r in records] == [
        (step, state) for step in sequence.STEPS
        for state in ('running', 'succeeded')]
    assert kube.calls == ['drain', 'clear_labels', 'shutdown_kubelet']
    assert etcd.calls == ['remove', ('wait', ('kubernetes',), 42, 0.5)]
    assert records[4].clusters == ('kubernetes',)
    assert [m.name for m in status.messages] == list(sequence.STEPS)
    assert status.error_count == 0


def test_bad_parameters_are_refused_before_anything():
    kube, etcd = KubernetesTwin(), EtcdTwin()
    status, records = _run(kube, etcd, DecommissionOptions(
        drain_timeout=10, drain_grace_period=11))
    assert (status.reason, status.code) == ('BadRequest', 400)
    assert (records, kube.calls, etcd.calls) == ([], [], [])


def test_unknown_node_is_not_found_and_changes_nothing():
    kube, etcd = KubernetesTwin(nodes=()), EtcdTwin()
    status, records = _run(kube, etcd)
    assert (status.reason, status.code) == ('NotFound', 404)
    assert kube.effects == [] and etcd.calls == []
    assert [r.step for r in records] == ['drain-node', 'drain-node']


@pytest.mark.parametrize('where,reason,step', [
    ('drain', 'DrainNodeError', 'drain-node'),
    ('clear_labels', 'ClearLabelsError', 'clear-labels'),
    ('remove', 'RemoveEtcdError', 'remove-etcd'),
    ('remove', 'EtcdNotAccessible', 'remove-etcd'),
    ('wait', 'RemoveEtcdError', 'etcd-ready')])
def test_a_failed_step_stops_the_decommission(where, reason, step):
    kube, etcd = KubernetesTwin(), EtcdTwin()
    (etcd if where in ('remove', 'wait') else kube).fail[where] = reason
    status, _ = _run(kube, etcd)
    assert (status.reason, status.code) == ('DisassociateStepFailure', 500)
    assert status.message == 'Decommission of node n1 failed at step %s' \
        % step
    by_step = {m.name: m for m in status.messages}
    assert by_step[step].error is True
    assert by_step[step].message.startswith(reason + ': ')
    assert by_step['shutdown-kubelet'].message == 'not run'
    assert 'shutdown_kubelet' not in kube.calls


def test_kubelet_shutdown_failure_does_not_hold_up_the_process():
    kube, etcd = KubernetesTwin(), EtcdTwin()
    kube.fail['shutdown_kubelet'] = 'ShutdownKubeletError'
    status, records = _run(kube, etcd)
    assert (status.reason, status.code) == ('Success', 200)
    assert 'shutdown-kubelet failed; not blocking' in status.message
    assert status.error_count == 1
    assert records[-1].state == 'failed'
    assert records[-1].status.reason == 'ShutdownKubeletError'


def test_resume_skips_done_steps_and_repeats_the_one_in_flight_once():
    kube, etcd = KubernetesTwin(), EtcdTwin()
    first = Decommission(kube, etcd)
    records = []

    class ConductorDied(Exception):
        pass

    def record_and_die(record):
        records.append(record)
        # The conductor dies right after etcd removed the member, before
        # the step's outcome is written.
        if record.step == 'remove-etcd' and record.state == 'running':
            etcd.remove_node_members('n1')
            raise ConductorDied

    with pytest.raises(ConductorDied):
        first.run('n1', ['site/role'], record=record_and_die)
    stored = [StepRecord.from_dict(r.as_dict()) for r in records]
    assert [(r.step, r.state) for r in stored][-1] == ('remove-etcd',
                                                       'running')
    kube.calls.clear()

    status, more = _run(kube, etcd, done=stored)
    assert status.succeeded, status
    assert kube.calls == ['shutdown_kubelet']    # drain, labels skipped
    assert [r.step for r in more] == ['remove-etcd', 'remove-etcd',
                                      'etcd-ready', 'etcd-ready',
                                      'shutdown-kubelet',
                                      'shutdown-kubelet']
    # Every step had its effect once.
    assert kube.effects == ['drain', 'clear_labels', 'shutdown_kubelet']
    assert etcd.removed == ['n1']
    assert [m.name for m in status.messages] == list(sequence.STEPS)


def test_a_failed_step_runs_again_on_resume():
    kube, etcd = KubernetesTwin(), EtcdTwin()
    kube.fail['clear_labels'] = 'ClearLabelsError'
    records = []
    Decommission(kube, etcd).run('n1', ['site/role'], record=records.append)
    del kube.fail['clear_labels']
    status, _ = _run(kube, etcd, done=records)
    assert status.succeeded
    assert kube.effects == ['drain', 'clear_labels', 'shutdown_kubelet']


def test_without_etcd_clusters_the_etcd_steps_are_not_applicable():
    kube = KubernetesTwin()
    status, records = _run(kube, None)
    assert status.succeeded
    assert status.message == 'Node n1 decommissioned'
    assert [(r.step, r.state) for r in records
            if r.step in ('remove-etcd', 'etcd-ready')] == [
        ('remove-etcd', 'not applicable'), ('etcd-ready', 'not applicable')]
    by_step = {m.name: m.message for m in status.messages}
    assert by_step['remove-etcd'] == by_step['etcd-ready'] == (
        'not applicable: the site design names no etcd clusters (no '
        'EtcdClusters document)')
    assert by_step['drain-node'] == 'Success: drain'
    assert kube.calls == ['drain', 'clear_labels', 'shutdown_kubelet']


def test_without_kubernetes_only_the_etcd_steps_run():
    etcd = EtcdTwin()
    status, records = _run(None, etcd)
    assert status.succeeded
    assert [(r.step, r.state) for r in records] == [
        ('drain-node', 'not applicable'), ('clear-labels', 'not applicable'),
        ('remove-etcd', 'running'), ('remove-etcd', 'succeeded'),
        ('etcd-ready', 'running'), ('etcd-ready', 'succeeded'),
        ('shutdown-kubelet', 'not applicable')]
    assert etcd.removed == ['n1']
    by_step = {m.name: m for m in status.messages}
    assert by_step['drain-node'].message == (
        'not applicable: the site design declares no Kubernetes cluster '
        '(no ironside/KubernetesCluster/v1 document)')
    assert not any(m.error for m in status.messages)


def test_without_either_nothing_runs_and_a_resume_runs_nothing_again():
    decommission = Decommission(None, None)
    assert not decommission.applies
    records = []
    status = decommission.run('n1', ['site/role'], record=records.append)
    assert (status.reason, status.code) == ('Success', 200)
    assert status.message == (
        'Nothing to decommission node n1 from: the site design declares '
        'no Kubernetes cluster and names no etcd clusters')
    assert [(r.step, r.state) for r in records] == [
        (step, 'not applicable') for step in sequence.STEPS]
    again = []
    assert Decommission(None, None).run('n1', [], done=records,
                                        record=again.append) == status
    assert again == []


def test_options_from_action_parameters():
    options = DecommissionOptions.from_parameters({
        'drain-node-timeout': '600', 'drain-node-grace-period': 60,
        'etcd-ready-timeout': 30, 'target-revision': 'committed'},
        etcd_poll_interval=0.5)
    assert options == DecommissionOptions(
        drain_timeout=600, drain_grace_period=60, etcd_ready_timeout=30,
        etcd_poll_interval=0.5)
    assert DecommissionOptions.from_parameters({}) == DecommissionOptions()
    assert (DecommissionOptions().drain_timeout,
            DecommissionOptions().drain_grace_period,
            DecommissionOptions().clear_labels_timeout,
            DecommissionOptions().remove_etcd_timeout,
            DecommissionOptions().etcd_ready_timeout) == \
        (3600, 1800, 1800, 1800, 600)
    for bad, text in [
            ({'drain-node-grace-period': 3601},
             'drain grace period (3601 s) must not be longer than the '
             'drain timeout (3600 s)'),
            ({'etcd-ready-timeout': 'soon'},
             "etcd-ready-timeout must be a whole number of seconds, not "
             "'soon'"),
            ({'clear-labels-timeout': -1},
             'clear-labels-timeout must be a whole number of seconds, '
             'not -1')]:
        with pytest.raises(exception.DecommissionFailed) as err:
            DecommissionOptions.from_parameters(bad)
        assert (err.value.status.reason, err.value.code) == \
            ('BadRequest', 400)
        assert err.value.status.message == text
