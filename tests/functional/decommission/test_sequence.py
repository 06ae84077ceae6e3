"""The whole decommission of a control node against the Kubernetes API
emulator (an emulator, not a real API server: none runs here) and a real
3-member etcd cluster; both read back from the peers."""

from __future__ import annotations

from ironside.strategy.decommission import etcd_gateway
from ironside.strategy.decommission import k8s_client
from ironside.strategy.decommission.sequence import Decommission
from ironside.strategy.decommission.sequence import DecommissionOptions
from ironside.strategy.reader import etcd_clusters
from tests.functional.fixtures.etcd_cluster import EtcdCluster
from tests.functional.fixtures.k8s_emulator import KubernetesEmulator


def test_decommission_a_control_node_hosting_an_etcd_member(tmp_path):
    """Emulator for Kubernetes, real etcd."""
    with KubernetesEmulator() as emulator, EtcdCluster(3) as cluster:
        for name in cluster.names:
            emulator.add_node(name, labels={
                'site/role': 'control', 'kubernetes.io/hostname': name})
        emulator.add_pod('api', 'node-0')
        emulator.add_pod('agent', 'node-0', owner='DaemonSet')
        kube = k8s_client.KubernetesApi.from_kubeconfig(
            emulator.kubeconfig(tmp_path / 'kubeconfig'),
            poll_interval=0.05)
        gateway = etcd_gateway.EtcdGateway(etcd_clusters.load(
            cluster.document(minimum_healthy_members=2)))
        options = DecommissionOptions.from_parameters(
            {'drain-node-timeout': 30, 'drain-node-grace-period': 5,
             'etcd-ready-timeout': 30}, etcd_poll_interval=0.2)
        records = []

        status = Decommission(kube, gateway, options).run(
            'node-0', ['site/role'], record=records.append)

        assert (status.reason, status.code) == ('Success', 200), status
        assert [(r.step, r.state) for r in records][1::2] == [
            ('drain-node', 'succeeded'), ('clear-labels', 'succeeded'),
            ('remove-etcd', 'succeeded'), ('etcd-ready', 'succeeded'),
            ('shutdown-kubelet', 'succeeded')]
        node = emulator.node('node-0')
        assert node['spec']['unschedulable'] is True
        assert node['metadata']['labels'] == {
            'kubernetes.io/hostname': 'node-0',
            'promenade-decomission': 'enabled'}
        assert emulator.pod_names('node-0') == ['agent']
        assert cluster.member_names(1) == ['node-1', 'node-2']

        removed = kube.remove_from_cluster('node-0')
        assert removed.succeeded, removed
        assert emulator.node('node-0') is None
        assert emulator.node('node-1') is not None
