"""Peers that do not answer: the errors name the endpoint tried, never a
secret. The fault is real: a kubeconfig and an EtcdClusters document
pointing at a 127.0.0.1 port that is bound and not listening (connection
refused, and no other process can take the port meanwhile)."""

from __future__ import annotations

import socket

import pytest

from ironside.strategy.decommission import etcd_gateway
from ironside.strategy.decommission import k8s_client
from ironside.strategy.decommission import status as st
from ironside.strategy.reader import etcd_clusters

TOKEN = 's3cret-token-of-the-site'
PASSWORD = 's3cret-etcd-password'


@pytest.fixture
def closed_port():
    """A 127.0.0.1 port that refuses connections while the test runs."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        yield sock.getsockname()[1]


def _kubeconfig(port: int) -> dict:
    return {
        'apiVersion': 'v1', 'kind': 'Config',
        'clusters': [{'name': 'site', 'cluster': {
            'server': 'https://127.0.0.1:%d' % port,
            'insecure-skip-tls-verify': True}}],
        'users': [{'name': 'admin', 'user': {'token': TOKEN}}],
        'contexts': [{'name': 'site', 'context': {'cluster': 'site',
                                                  'user': 'admin'}}],
        'current-context': 'site'}


def test_kubernetes_that_does_not_answer_is_named(closed_port):
    api = k8s_client.KubernetesApi.from_kubeconfig(_kubeconfig(closed_port),
                                            request_timeout=5)
    status = api.drain('ctl01', timeout=10, grace_period=1)
    assert (status.reason, status.code) == ('DrainNodeError', 500)
    assert status.message == (
        'Kubernetes at https://127.0.0.1:%d did not answer while trying to '
        'read node ctl01: MaxRetryError: Connection refused' % closed_port)
    removed = api.remove_from_cluster('ctl01')
    assert removed.reason == 'DeleteNodeError'
    assert 'https://127.0.0.1:%d' % closed_port in removed.message
    for answer in (status, removed):
        assert TOKEN not in str(answer.as_dict())


def test_etcd_that_does_not_answer_is_named(closed_port):
    url = 'http://127.0.0.1:%d' % closed_port
    document = etcd_clusters.load({
        'schema': 'promenade/EtcdClusters/v1',
        'metadata': {'name': 'etcd-clusters'},
        'data': {'clusters': [{
            'name': 'kubernetes',
            'members': [{'node': 'ctl01', 'client_url': url}],
            'auth': {'username': 'root', 'password': PASSWORD}}]}})
    gateway = etcd_gateway.EtcdGateway(document, request_timeout=2)
    status = gateway.health('kubernetes')
    assert (status.reason, status.code) == ('EtcdNotAccessible', 500)
    assert status.message == (
        'No endpoint of etcd cluster kubernetes answered (%s: '
        'ConnectionFailedError: Connection refused)' % url)
    assert PASSWORD not in str(status.as_dict())


@pytest.mark.parametrize('url,named', [
    ('https://admin:pw@10.0.0.1:6443/k8s?token=x', 'https://10.0.0.1:6443'),
    ('http://[fd00::1]:2379', 'http://[fd00::1]:2379'),
    ('https://api.site.example', 'https://api.site.example'),
    ('10.0.0.1:6443', '10.0.0.1:6443')])
def test_an_endpoint_is_named_without_credentials(url, named):
    assert st.endpoint(url) == named
