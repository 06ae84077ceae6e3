"""Status responses and the EtcdClusters document."""

from __future__ import annotations

import json

import pytest

from ironside.common import exception
from ironside.strategy.decommission import status as st
from ironside.strategy.reader import etcd_clusters


def test_status_response_shape_and_round_trip():
    failed = st.failure(st.DISASSOCIATE_STEP_FAILURE, 'drain failed', [
        st.Message('DrainNodeError: timed out', name='drain-node',
                   error=True, kind=st.STEP_MESSAGE),
        st.Message('not run', name='clear-labels', kind=st.STEP_MESSAGE)])
    body = failed.as_dict()
    assert body == {
        'kind': 'status', 'apiVersion': 'v1.0', 'metadata': {},
        'status': 'Failure', 'message': 'drain failed',
        'reason': 'DisassociateStepFailure', 'code': 500,
        'details': {'errorCount': 1, 'messageList': [
            {'message': 'DrainNodeError: timed out', 'error': True,
             'kind': 'StepMessage', 'name': 'drain-node'},
            {'message': 'not run', 'error': False, 'kind': 'StepMessage',
             'name': 'clear-labels'}]},
        'retry': False}
    assert st.Status.from_dict(json.loads(json.dumps(body))) == failed
    ok = st.success('done')
    assert (ok.status, ok.code, ok.reason, ok.succeeded) == \
        ('Success', 200, 'Success', True)


@pytest.mark.parametrize('reason,code', [
    ('NotFound', 404), ('BadRequest', 400), ('Conflict', 409),
    ('DrainNodeError', 500), ('ClearLabelsError', 500),
    ('RemoveEtcdError', 500), ('EtcdNotAccessible', 500),
    ('ShutdownKubeletError', 500), ('DeleteNodeError', 500),
    ('DisassociateStepFailure', 500)])
def test_codes_of_the_spec(reason, code):
    assert st.failure(reason, 'x').code == code


def test_unknown_reason_is_a_programming_error():
    with pytest.raises(ValueError):
        st.failure('Success', 'x')
    with pytest.raises(ValueError):
        st.failure('Oops', 'x')


DOCUMENT = """\
schema: promenade/EtcdClusters/v1
metadata:
  name: etcd-clusters
data:
  clusters:
    - name: kubernetes
      members:
        - node: control-0
          client_url: https://10.0.0.10:2379
          peer_url: https://10.0.0.10:2380
        - node: control-1
          name: etcd-c1
          client_url: https://10.0.0.11:2379
        - node: control-2
          client_url: https://10.0.0.12:2379
      tls:
        ca_cert: /etc/ironside/etcd/ca.pem
        client_cert: /etc/ironside/etcd/client.pem
        client_key: /etc/ironside/etcd/client-key.pem
      auth:
        username: root
        password: s3cret-pw
    - name: calico
      minimum_healthy_members: 1
      members:
        - node: control-0
          client_url: http://10.0.0.10:6666
"""


def test_document_model():
    model = etcd_clusters.load(DOCUMENT, 'site.yaml')
    assert model.name == 'etcd-clusters'
    kube = model.cluster('kubernetes')
    assert kube.minimum_healthy_members == 2      # a majority of 3
    assert kube.members[1].name == 'etcd-c1'
    assert kube.members[0].name == 'control-0'
    assert kube.endpoints == ('https://10.0.0.10:2379',
                              'https://10.0.0.11:2379',
                              'https://10.0.0.12:2379')
    assert [c.name for c in model.clusters_on('control-0')] == [
        'kubernetes', 'calico']
    assert [c.name for c in model.clusters_on('control-1')] == [
        'kubernetes']
    assert 's3cret-pw' not in repr(model)
    assert 'client-key.pem' not in repr(model)
    assert model.cluster('calico').minimum_healthy_members == 1


def test_ironside_schema_name_is_accepted():
    model = etcd_clusters.load(DOCUMENT.replace(
        'promenade/EtcdClusters/v1', 'ironside/EtcdClusters/v1'))
    assert model.schema == 'ironside/EtcdClusters/v1'


def test_document_errors_name_document_field_and_line():
    bad = DOCUMENT.replace('https://10.0.0.11:2379', 'not-a-url').replace(
        'minimum_healthy_members: 1', 'minimum_healthy_members: 2').replace(
        '        client_key: /etc/ironside/etcd/client-key.pem\n', '')
    with pytest.raises(exception.InvalidDesignDocument) as err:
        etcd_clusters.load(bad, 'site.yaml')
    assert [str(e) for e in err.value.errors] == [
        'document "etcd-clusters", field "data.clusters[0].members[1]'
        '.client_url": must be an http(s) URL with a host and a port, not '
        "'not-a-url' (line 13)",
        'document "etcd-clusters", field "data.clusters[0].tls": '
        'client_cert and client_key go together (line 16)',
        'document "etcd-clusters", field "data.clusters[1]'
        '.minimum_healthy_members": must be at most the number of members '
        '(1), not 2 (line 23)']
    assert err.value.code == 400
    assert 's3cret-pw' not in str(err.value)


def test_schema_errors():
    document = {'schema': 'promenade/EtcdClusters/v1',
                'metadata': {'name': 'etcd'},
                'data': {'clusters': [{'name': 'k', 'members': [
                    {'node': 'n', 'client_url': 'http://h:1', 'x': 1}]},
                    {'name': 'k', 'members': []}]}}
    errors = [str(e) for e in etcd_clusters.check(document)]
    assert 'document "etcd", field "data.clusters[0].members[0].x": ' \
        'unknown field' in errors
    assert 'document "etcd", field "data.clusters[1].name": duplicate ' \
        'cluster name; cluster #1 has it too' in errors
    assert any('data.clusters[1].members' in e for e in errors)


def test_stream_without_the_document():
    with pytest.raises(exception.InvalidDesignDocument) as err:
        etcd_clusters.load('schema: other/Thing/v1\n', 'site.yaml')
    assert '0 documents with schema promenade/EtcdClusters/v1' in \
        str(err.value)
