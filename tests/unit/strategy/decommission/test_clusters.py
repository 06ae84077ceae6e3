"""What a design declares that a decommission acts on: Kubernetes (the
KubernetesCluster document, or Promenade's) and etcd clusters."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy.decommission import clusters
from ironside.strategy.designs import store
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import stage_example


def _document(schema: str, name: str, data=None) -> dict:
    return {'schema': schema, 'metadata': {'name': name},
            'data': {} if data is None else data}


def test_a_design_declares_kubernetes_by_document(db):
    stage_example()
    store.commit()
    assert clusters.kubernetes_documents(store.design(1).documents) == []
    stage('kubernetes', _document('ironside/KubernetesCluster/v1',
                                  'kubernetes', {'description': 'ucp'}),
          _document('promenade/KubernetesNetwork/v1', 'kubernetes-network',
                    {'dns': {'service_ip': '10.96.0.10'}}))
    store.commit()
    declared = clusters.kubernetes_documents(store.design(2).documents)
    assert declared == ['ironside/KubernetesCluster/v1 kubernetes',
                        'promenade/KubernetesNetwork/v1 kubernetes-network']
    assert store.design(2).of_kind('KubernetesCluster')[
        'kubernetes'].description == 'ucp'


def test_missing_kubeconfig_only_matters_where_kubernetes_is_declared(conf):
    declared = ['ironside/KubernetesCluster/v1 kubernetes']
    conf.set('redeploy', kubeconfig=None)
    assert clusters.missing_kubeconfig(3, []) is None
    assert clusters.missing_kubeconfig(3, declared) == (
        'Design revision 3 declares a Kubernetes cluster (ironside/'
        'KubernetesCluster/v1 kubernetes), and this Ironside has no '
        '[redeploy]kubeconfig to reach it: set it on the API and the '
        'conductors')
    conf.set('redeploy', kubeconfig='/etc/ironside/kubeconfig')
    assert clusters.missing_kubeconfig(3, declared) is None


def test_a_commit_checks_the_kubernetes_cluster_document(db):
    stage_example()
    stage('kubernetes', _document('ironside/KubernetesCluster/v1',
                                  'kubernetes', {'api': 'https://x:6443'}),
          name='kubernetes.yaml')
    with pytest.raises(exception.InvalidDesign) as err:
        store.commit()
    assert 'document "kubernetes", field "data.api": unknown field ' \
        '(line 5)' in str(err.value)


def test_the_summary_says_what_applies(conf):
    conf.set('redeploy', kubeconfig='/etc/ironside/kubeconfig')
    assert clusters.summary([]) == (
        'Decommission: Kubernetes: not applicable, the design declares '
        'none ([redeploy]kubeconfig is set, and not used); etcd: not '
        'applicable, the design names no etcd clusters')
