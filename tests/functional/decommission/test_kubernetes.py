"""Drain, clear labels, kubelet shutdown and node deletion through the
official ``kubernetes`` client against the Kubernetes API emulator
(tests/functional/fixtures/k8s_emulator.py) — an emulator, not a real
API server: none can run on these machines. kubectl reads the
emulator's nodes as a second opinion."""

from __future__ import annotations

import json
import shutil
import subprocess
import time

import pytest

from ironside.strategy.decommission import k8s_client
from tests.functional.fixtures import services
from tests.functional.fixtures.k8s_emulator import KubernetesEmulator


@pytest.fixture(scope='module')
def emulator():
    """The Kubernetes API emulator (not a real API server)."""
    with KubernetesEmulator() as running:
        yield running


@pytest.fixture
def kubeconfig(emulator, tmp_path):
    return emulator.kubeconfig(tmp_path / 'kubeconfig')


@pytest.fixture
def api(kubeconfig):
    return k8s_client.KubernetesApi.from_kubeconfig(
        kubeconfig, poll_interval=0.05, request_timeout=5)


@pytest.fixture
def kubectl(kubeconfig, tmp_path):
    binary = shutil.which('kubectl')
    services.require(binary is not None, 'kubectl (kubernetes-client)')

    def _run(*args):
        result = subprocess.run(
            [binary, '--kubeconfig', kubeconfig, '--cache-dir',
             str(tmp_path / 'kube-cache'), *args],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout
    return _run


def _node_row(kubectl, name):
    for line in kubectl('get', 'nodes').splitlines()[1:]:
        if line.split()[0] == name:
            return line.split()
    return None


def test_drain_evicts_deletes_and_leaves_daemonsets(emulator, api, kubectl):
    """Emulator, not a real API server."""
    emulator.add_node('drain-1')
    emulator.add_pod('web', 'drain-1')
    emulator.add_pod('slow', 'drain-1', shutdown_seconds=0.5)
    emulator.add_pod('bare', 'drain-1', owner=None)
    emulator.add_pod('cache', 'drain-1', empty_dir=True)
    emulator.add_pod('agent', 'drain-1', owner='DaemonSet')
    emulator.add_pod('elsewhere', 'other-node')

    drained = api.drain('drain-1', timeout=30, grace_period=10)

    assert (drained.status, drained.code, drained.reason) == \
        ('Success', 200, 'Success')
    assert emulator.pod_names('drain-1') == ['agent']
    assert emulator.pod_names('other-node') == ['elsewhere']
    assert emulator.node('drain-1')['spec']['unschedulable'] is True
    calls = [(m, p) for m, p, _ in emulator.requests()]
    for pod in ('web', 'slow', 'bare'):
        assert ('POST', '/api/v1/namespaces/default/pods/%s/eviction'
                % pod) in calls
    assert ('DELETE', '/api/v1/namespaces/default/pods/cache') in calls
    assert not any('agent' in p for m, p in calls if m != 'GET')
    assert _node_row(kubectl, 'drain-1')[1] == 'Ready,SchedulingDisabled'

    again = api.drain('drain-1', timeout=30, grace_period=10)
    assert again.succeeded


def test_grace_period_longer_than_timeout_is_refused_first(emulator, api):
    """Emulator, not a real API server."""
    emulator.add_node('drain-2')
    before = len(emulator.requests())
    refused = api.drain('drain-2', timeout=60, grace_period=61)
    assert (refused.reason, refused.code, refused.status) == \
        ('BadRequest', 400, 'Failure')
    assert 'grace period (61 s)' in refused.message
    assert len(emulator.requests()) == before
    assert not emulator.node('drain-2')['spec'].get('unschedulable')


def test_unknown_node_is_not_found_everywhere(api):
    """Emulator, not a real API server."""
    for answer in (api.drain('ghost'), api.clear_labels('ghost', ['a']),
                   api.shutdown_kubelet('ghost'),
                   api.remove_from_cluster('ghost')):
        assert (answer.reason, answer.code) == ('NotFound', 404)
        assert answer.message == 'Node ghost could not be found in ' \
            'Kubernetes'


def test_drain_fails_at_its_timeout(emulator, api):
    """Emulator, not a real API server: the pod takes 30 s to stop."""
    emulator.add_node('drain-3')
    emulator.add_pod('stubborn', 'drain-3', shutdown_seconds=30)
    started = time.monotonic()
    failed = api.drain('drain-3', timeout=1, grace_period=1)
    elapsed = time.monotonic() - started
    assert (failed.reason, failed.code) == ('DrainNodeError', 500)
    assert 'not drained within 1 s' in failed.message
    assert 'default/stubborn' in failed.message
    assert 1 <= elapsed < 2
    assert [(m.name, m.message) for m in failed.messages] == [
        ('default/stubborn', 'still terminating')]


def test_drain_of_a_pod_its_budget_protects_times_out(emulator, api):
    """Emulator, not a real API server: eviction answers 429."""
    emulator.add_node('drain-4')
    emulator.add_pod('guarded', 'drain-4', eviction_blocked=True)
    failed = api.drain('drain-4', timeout=1, grace_period=0)
    assert failed.reason == 'DrainNodeError'
    assert [(m.name, m.message) for m in failed.messages] == [
        ('default/guarded', 'not evicted')]
    assert emulator.pod_names('drain-4') == ['guarded']


def test_drain_api_error(emulator, api):
    """Emulator, not a real API server: it answers 500 once."""
    emulator.add_node('drain-5')
    emulator.fault('GET', '/api/v1/pods', 500)
    failed = api.drain('drain-5', timeout=10, grace_period=1)
    assert (failed.reason, failed.code) == ('DrainNodeError', 500)
    assert 'Kubernetes at %s refused to list the pods of node drain-5: ' \
        '500' % api.endpoint in failed.message


def test_clear_labels_waits_for_the_pods_that_selected_them(emulator, api,
                                                            kubectl):
    """Emulator, not a real API server: it deletes the DaemonSet pods
    whose node selector no longer matches, as the controller would."""
    emulator.add_node('labels-1', labels={
        'site/role': 'control', 'site/rack': 'r1',
        'kubernetes.io/hostname': 'labels-1'})
    emulator.add_pod('ctl-agent', 'labels-1', owner='DaemonSet',
                     node_selector={'site/role': 'control'},
                     shutdown_seconds=0.5)
    emulator.add_pod('any-agent', 'labels-1', owner='DaemonSet')

    cleared = api.clear_labels('labels-1', ['site/role', 'site/rack',
                                            'site/absent'], timeout=30)

    assert cleared.succeeded, cleared
    assert emulator.node('labels-1')['metadata']['labels'] == {
        'kubernetes.io/hostname': 'labels-1'}
    assert emulator.pod_names('labels-1') == ['any-agent']
    shown = json.loads(kubectl('get', 'node', 'labels-1', '-o', 'json'))
    assert shown['metadata']['labels'] == {
        'kubernetes.io/hostname': 'labels-1'}
    assert api.clear_labels('labels-1', ['site/role'], timeout=5).succeeded


def test_clear_labels_fails_when_pods_do_not_settle(emulator, api):
    """Emulator, not a real API server: the pod takes 30 s to stop."""
    emulator.add_node('labels-2', labels={'site/role': 'control'})
    emulator.add_pod('ctl-agent', 'labels-2', owner='DaemonSet',
                     node_selector={'site/role': 'control'},
                     shutdown_seconds=30)
    failed = api.clear_labels('labels-2', ['site/role'], timeout=1)
    assert (failed.reason, failed.code) == ('ClearLabelsError', 500)
    assert 'pod default/ctl-agent selects site/role' in failed.message


def test_clear_labels_api_error(emulator, api):
    """Emulator, not a real API server: it answers 500 once."""
    emulator.add_node('labels-3', labels={'site/role': 'control'})
    emulator.fault('PATCH', '/api/v1/nodes/labels-3', 500)
    failed = api.clear_labels('labels-3', ['site/role'], timeout=5)
    assert (failed.reason, failed.code) == ('ClearLabelsError', 500)
    assert emulator.node('labels-3')['metadata']['labels'] == {
        'site/role': 'control'}


def test_shutdown_kubelet_labels_the_node(emulator, api):
    """Emulator, not a real API server."""
    emulator.add_node('kubelet-1')
    done = api.shutdown_kubelet('kubelet-1')
    assert done.succeeded
    assert emulator.node('kubelet-1')['metadata']['labels'] == {
        'promenade-decomission': 'enabled'}
    assert api.shutdown_kubelet('kubelet-1').succeeded

    emulator.add_node('kubelet-2')
    emulator.fault('PATCH', '/api/v1/nodes/kubelet-2', 500)
    failed = api.shutdown_kubelet('kubelet-2')
    assert (failed.reason, failed.code) == ('ShutdownKubeletError', 500)


def test_remove_from_cluster_refuses_until_drained_and_unlabelled(
        emulator, api, kubectl):
    """Emulator, not a real API server."""
    emulator.add_node('remove-1', labels={'site/role': 'control',
                                          'kubernetes.io/hostname':
                                          'remove-1'})
    emulator.add_pod('web', 'remove-1')
    emulator.add_pod('agent', 'remove-1', owner='DaemonSet')

    refused = api.remove_from_cluster('remove-1')
    assert (refused.reason, refused.code) == ('Conflict', 409)
    assert refused.message == (
        'Node remove-1 cannot be deleted: it is not cordoned; it still has '
        'labels site/role; it is not drained (pods default/web)')

    assert api.drain('remove-1', timeout=10, grace_period=1).succeeded
    refused = api.remove_from_cluster('remove-1')
    assert refused.message == ('Node remove-1 cannot be deleted: it still '
                               'has labels site/role')

    assert api.clear_labels('remove-1', ['site/role'], timeout=5).succeeded
    assert api.shutdown_kubelet('remove-1').succeeded
    emulator.fault('DELETE', '/api/v1/nodes/remove-1', 500)
    failed = api.remove_from_cluster('remove-1')
    assert (failed.reason, failed.code) == ('DeleteNodeError', 500)
    assert _node_row(kubectl, 'remove-1') is not None

    removed = api.remove_from_cluster('remove-1')
    assert (removed.reason, removed.code) == ('Success', 200)
    assert emulator.node('remove-1') is None
    assert _node_row(kubectl, 'remove-1') is None
    assert api.remove_from_cluster('remove-1').reason == 'NotFound'
