"""etcd member removal and health against a real 3-member etcd cluster
(Debian's etcd-server), read back with etcdctl."""

from __future__ import annotations

import threading
import time

import pytest

from ironside.strategy.decommission import etcd_gateway
from ironside.strategy.decommission import status as st
from ironside.strategy.reader import etcd_clusters
from tests.functional.fixtures.etcd_cluster import EtcdCluster
from tests.utils import wait_for


@pytest.fixture
def cluster():
    with EtcdCluster(3) as running:
        yield running


def gateway(cluster, **fields) -> etcd_gateway.EtcdGateway:
    document = etcd_clusters.load(cluster.document(**fields))
    return etcd_gateway.EtcdGateway(document, request_timeout=2)


def test_remove_then_wait_leaves_two_healthy_members(cluster):
    gw = gateway(cluster, minimum_healthy_members=2)
    assert gw.clusters_hosting('node-0') == ['kubernetes']
    assert [m.name for m in gw.members_on_node('kubernetes', 'node-0')] == \
        ['node-0']

    removed = gw.remove_node_members('node-0', timeout=30)
    assert removed.succeeded, removed
    assert removed.code == 200
    assert removed.messages[0].name == 'kubernetes'
    assert removed.messages[0].message.startswith('removed member node-0 (')

    waited = gw.wait_until_healthy('node-0', ['kubernetes'], timeout=30,
                                   interval=0.2)
    assert waited.succeeded, waited
    assert [(m.name, m.message, m.kind) for m in waited.messages] == [
        ('kubernetes/node-1', 'Healthy', 'HealthMessage'),
        ('kubernetes/node-2', 'Healthy', 'HealthMessage')]
    # The peers' own view, through etcdctl.
    assert cluster.member_names(1) == ['node-1', 'node-2']
    assert cluster.member_names(2) == ['node-1', 'node-2']
    health = cluster.etcdctl('endpoint', 'health', '-w', 'json',
                             endpoints=cluster.endpoints[1:])
    assert [h['health'] for h in health] == [True, True]
    # The removed member leaves on its own.
    wait_for(lambda: not cluster.running(0), timeout=15,
             what='the removed member to exit')


def test_removing_again_is_a_success_that_changes_nothing(cluster):
    gw = gateway(cluster)
    assert gw.remove_node_members('node-0', timeout=30).succeeded
    again = gw.remove_node_members('node-0', timeout=30)
    assert again.succeeded, again
    assert again.message == 'Node node-0 hosts no etcd member'
    assert cluster.member_names(1) == ['node-1', 'node-2']


def test_removal_below_the_minimum_is_refused(cluster):
    gw = gateway(cluster, minimum_healthy_members=3)
    refused = gw.remove_node_members('node-0', timeout=30)
    assert (refused.reason, refused.code, refused.status) == \
        ('RemoveEtcdError', 500, 'Failure')
    assert 'would leave 2 healthy members, fewer than its minimum of 3' \
        in refused.message
    assert cluster.member_names(0) == ['node-0', 'node-1', 'node-2']


def test_removal_with_a_member_down_is_refused(cluster):
    cluster.kill(1)
    wait_for(lambda: cluster.healthy(0) and cluster.healthy(2), timeout=15,
             what='a new leader')
    gw = gateway(cluster, minimum_healthy_members=2)
    refused = gw.remove_node_members('node-0', timeout=30)
    assert refused.reason == 'RemoveEtcdError'
    assert 'would leave 1 healthy members' in refused.message
    assert ('kubernetes/node-1', 'Unable to access Etcd', True) in [
        (m.name, m.message, m.error) for m in refused.messages]
    assert cluster.member_names(0) == ['node-0', 'node-1', 'node-2']


def _wait_in_thread(gw, timeout, interval):
    outcome = {}

    def _run():
        started = time.monotonic()
        outcome['status'] = gw.wait_until_healthy(
            'node-0', ['kubernetes'], timeout=timeout, interval=interval)
        outcome['elapsed'] = time.monotonic() - started

    thread = threading.Thread(target=_run)
    thread.start()
    return thread, outcome


def test_wait_fails_at_its_timeout_when_a_second_member_dies(cluster):
    gw = gateway(cluster, minimum_healthy_members=2)
    assert gw.remove_node_members('node-0', timeout=30).succeeded
    # node-2 stops answering (its sockets still accept), so the wait
    # cannot be satisfied; then node-1 is killed while it waits.
    cluster.freeze(2)
    thread, outcome = _wait_in_thread(gw, timeout=4, interval=0.3)
    time.sleep(1)   # let the wait poll a few times before the kill
    assert thread.is_alive()
    cluster.kill(1)
    thread.join(30)
    failed = outcome['status']
    assert (failed.reason, failed.code) == ('RemoveEtcdError', 500)
    assert 'within 4s' in failed.message
    assert 4.0 <= outcome['elapsed'] < 4.6, outcome['elapsed']
    assert ('kubernetes/node-2', 'Unable to access Etcd') in [
        (m.name, m.message) for m in failed.messages]


def test_wait_succeeds_once_the_cluster_recovers(cluster):
    gw = gateway(cluster, minimum_healthy_members=2)
    assert gw.remove_node_members('node-0', timeout=30).succeeded
    cluster.freeze(2)
    thread, outcome = _wait_in_thread(gw, timeout=30, interval=0.3)
    time.sleep(1)
    assert thread.is_alive()
    cluster.thaw(2)
    thread.join(40)
    assert outcome['status'].succeeded, outcome['status']
    assert outcome['elapsed'] < 20


def test_health_per_member(cluster):
    gw = gateway(cluster)
    cluster.kill(2)
    # If node-2 led, the others elect a new leader first.
    wait_for(lambda: cluster.healthy(0) and cluster.healthy(1), timeout=15,
             what='a new leader')
    health = gw.health('kubernetes')
    assert (health.status, health.code) == ('Success', 200)
    assert [(m.name, m.message, m.error) for m in health.messages] == [
        ('kubernetes/node-0', 'Healthy', False),
        ('kubernetes/node-1', 'Healthy', False),
        ('kubernetes/node-2', 'Unable to access Etcd', True)]
    assert health.as_dict()['details']['errorCount'] == 1


def test_etcd_not_accessible(cluster):
    gw = gateway(cluster)
    for index in range(3):
        cluster.kill(index)
    health = gw.health('kubernetes')
    assert (health.reason, health.code) == ('EtcdNotAccessible', 500)
    assert {m.message for m in health.messages} == {st.UNABLE_TO_ACCESS_ETCD}
    removal = gw.remove_node_members('node-0', timeout=5)
    assert (removal.reason, removal.code) == ('EtcdNotAccessible', 500)


def test_members_found_by_peer_url(cluster):
    document = cluster.document()
    document['data']['clusters'][0]['members'][0]['node'] = 'control-a'
    gw = etcd_gateway.EtcdGateway(etcd_clusters.load(document),
                                  request_timeout=2)
    assert [m.name for m in gw.members_on_node('kubernetes', 'control-a')] \
        == ['node-0']
    assert gw.remove_node_members('control-a', timeout=30).succeeded
    assert cluster.member_names(1) == ['node-1', 'node-2']


def test_cluster_with_authentication(cluster):
    cluster.etcdctl('user', 'add', 'root:r00t-pw')
    cluster.etcdctl('auth', 'enable')
    gw = gateway(cluster, auth={'username': 'root', 'password': 'r00t-pw'})
    assert gw.health('kubernetes').succeeded
    assert gw.remove_node_members('node-0', timeout=30).succeeded
    assert 'r00t-pw' not in repr(gw.document)
    names = cluster.etcdctl('--user', 'root:r00t-pw', 'member', 'list',
                            '-w', 'json', endpoints=cluster.endpoints[1:2])
    assert sorted(m['name'] for m in names['members']) == ['node-1', 'node-2']
