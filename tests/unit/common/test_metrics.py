"""Prometheus metrics: each family counts what it says, at the place it
happens, and the API and a conductor serve them."""

from __future__ import annotations

import socket
import urllib.request

import pytest
from falcon import testing
from prometheus_client.parser import text_string_to_metric_families

from ironside.api import app as api_app
from ironside.api import metrics as api_metrics
from ironside.api import site as site_api
from ironside.common import exception
from ironside.common import metrics
from ironside.common import states
from ironside.conductor import periodics
from ironside.db import nodes as nodes_db
from ironside.strategy import actions
from tests import utils
from tests.unit.conductor.test_flows import _to_available
from tests.unit.conductor.test_flows import _wait_state
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.conftest import INVENTORY
from tests.unit.strategy.conftest import SPEC_STRATEGY


def value(name: str, **labels) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


class Delta:
    """How much samples grew since it was made."""

    def __init__(self, *samples: tuple) -> None:
        self.before = {s: value(s[0], **dict(s[1:])) for s in samples}

    def __call__(self, name: str, **labels) -> float:
        key = (name,) + tuple(labels.items())
        return value(name, **labels) - self.before[key]


def _sample(name, **labels):
    return (name,) + tuple(labels.items())


def test_lock_waits_and_conflicts(conductor, context, make_node):
    free, held = make_node(), make_node()
    nodes_db.reserve_node('other-host', held.id)
    grew = Delta(_sample('ironside_node_lock_wait_seconds_count'),
                 _sample('ironside_node_lock_conflicts_total',
                         result='retried'),
                 _sample('ironside_node_lock_conflicts_total',
                         result='refused'))
    with conductor.acquire(context, free.uuid):
        pass
    with pytest.raises(exception.NodeLocked):
        conductor.acquire(context, held.uuid)
    assert grew('ironside_node_lock_wait_seconds_count') == 1
    # node_locked_retry_attempts = 2: two retries, then refused.
    assert grew('ironside_node_lock_conflicts_total', result='retried') == 2
    assert grew('ironside_node_lock_conflicts_total', result='refused') == 1


def test_a_merge_meeting_a_held_node_counts_its_conflicts(conf, make_node):
    """A PATCH merged without the lock still meets a task's lock: it waits
    as a task does, and counts as one (the metric operators watch)."""
    conf.set('conductor', node_locked_retry_attempts=2,
             node_locked_retry_interval=0.01)
    held = make_node(extra={})
    nodes_db.reserve_node('other-host', held.id)
    grew = Delta(_sample('ironside_node_lock_conflicts_total',
                         result='retried'),
                 _sample('ironside_node_lock_conflicts_total',
                         result='refused'))

    def read():
        return {'uuid': held.uuid, 'reservation': 'other-host',
                'row_version': 0}
    with pytest.raises(exception.NodeLocked, match='other-host'):
        nodes_db.merge_node(held.id, read, lambda row: {'extra': {}})
    assert grew('ironside_node_lock_conflicts_total', result='retried') == 2
    assert grew('ironside_node_lock_conflicts_total', result='refused') == 1


def test_transitions_steps_and_rpc(rpc, context, make_node):
    node = make_node(driver_info={'fake_fail_steps': ['deploy.write_image']})
    step = {'flow': 'deploy', 'interface': 'deploy', 'step': 'write_image'}
    grew = Delta(
        _sample('ironside_provision_state_transitions_total',
                from_state='enroll', to_state='verifying'),
        _sample('ironside_provision_state_transitions_total',
                from_state='wait call-back', to_state='deploy failed'),
        _sample('ironside_step_duration_seconds_count',
                flow='clean', interface='deploy',
                step='erase_devices_metadata', outcome='success'),
        _sample('ironside_step_duration_seconds_count', outcome='failed',
                **step),
        _sample('ironside_step_duration_seconds_count', outcome='success',
                flow='deploy', interface='deploy', step='deploy'),
        _sample('ironside_rpc_calls_total', method='do_node_deploy'),
        _sample('ironside_rpc_failures_total', method='do_node_deploy',
                error='InvalidStateRequested'),
        _sample('ironside_rpc_call_duration_seconds_count',
                method='do_provisioning_action'))
    with pytest.raises(exception.InvalidStateRequested):
        rpc.do_node_deploy(context, node.uuid)
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.DEPLOYFAIL)
    assert grew('ironside_provision_state_transitions_total',
                from_state='enroll', to_state='verifying') == 1
    # write_image goes on asynchronously and fails when polled.
    assert grew('ironside_provision_state_transitions_total',
                from_state='wait call-back', to_state='deploy failed') == 1
    assert grew('ironside_step_duration_seconds_count', flow='clean',
                interface='deploy', step='erase_devices_metadata',
                outcome='success') == 1
    assert grew('ironside_step_duration_seconds_count', outcome='failed',
                **step) == 1
    assert grew('ironside_step_duration_seconds_count', outcome='success',
                flow='deploy', interface='deploy', step='deploy') == 1
    assert grew('ironside_rpc_calls_total', method='do_node_deploy') == 2
    assert grew('ironside_rpc_failures_total', method='do_node_deploy',
                error='InvalidStateRequested') == 1
    assert grew('ironside_rpc_call_duration_seconds_count',
                method='do_provisioning_action') == 2


def test_asynchronous_step_is_timed_to_its_end(rpc, context, make_node):
    """write_image waits for a poll; its time runs until it ends."""
    node = make_node(driver_info={'fake_step_delays': {
        'deploy.write_image': 0.3}})
    labels = {'flow': 'deploy', 'interface': 'deploy',
              'step': 'write_image', 'outcome': 'success'}
    grew = Delta(_sample('ironside_step_duration_seconds_count', **labels),
                 _sample('ironside_step_duration_seconds_sum', **labels))
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.ACTIVE)
    assert grew('ironside_step_duration_seconds_count', **labels) == 1
    assert grew('ironside_step_duration_seconds_sum', **labels) >= 0.3


def test_power_sync_passes_and_failures(conductor, make_node, conf):
    conf.set('conductor', power_state_sync_max_retries=10)
    node = make_node(driver_info={'fake_power_fail': ['get']})
    utils.update_node(node.id, {'provision_state': states.MANAGEABLE})
    grew = Delta(_sample('ironside_power_sync_duration_seconds_count'),
                 _sample('ironside_power_sync_failures_total'))
    periodics.sync_power_states(conductor)
    assert grew('ironside_power_sync_duration_seconds_count') == 1
    assert grew('ironside_power_sync_failures_total') == 1


# The API

@pytest.fixture
def client(rpc, conf):
    conf.set('metrics', enabled=True)
    return testing.TestClient(api_app.build_app(
        rpc, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))


def scrape(client) -> dict:
    response = client.simulate_get('/metrics')
    assert response.status_code == 200
    assert response.headers['content-type'].startswith('text/plain')
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text)
            for s in family.samples}


def test_requests_are_counted_by_route_template(client, make_node):
    node = make_node(name='node-with-a-name')
    labels = {'method': 'GET', 'route': '/v1/nodes/{node_ident}'}
    grew = Delta(_sample('ironside_api_requests_total', status='200',
                         **labels),
                 _sample('ironside_api_requests_total', status='404',
                         **labels),
                 _sample('ironside_api_request_duration_seconds_count',
                         **labels),
                 _sample('ironside_api_requests_total', method='GET',
                         route='(unmatched)', status='404'))
    headers = {'X-OpenStack-Ironic-API-Version': 'latest'}
    assert client.simulate_get('/v1/nodes/' + node.name,
                               headers=headers).status_code == 200
    assert client.simulate_get('/v1/nodes/missing',
                               headers=headers).status_code == 404
    assert client.simulate_get('/nowhere').status_code == 404
    assert grew('ironside_api_requests_total', status='200', **labels) == 1
    assert grew('ironside_api_requests_total', status='404', **labels) == 1
    assert grew('ironside_api_request_duration_seconds_count',
                **labels) == 2
    assert grew('ironside_api_requests_total', method='GET',
                route='(unmatched)', status='404') == 1
    scraped = scrape(client)
    assert not [key for key in scraped if 'node-with-a-name' in str(key)]


def test_database_families(client, make_node):
    site = memory_nodes.MemoryNodes()
    for entry in INVENTORY['nodes']:
        site.add(entry['name'], rack=entry['rack'], tags=entry['tags'])
    actions.create_strategy(SPEC_STRATEGY)
    make_node(name='a')
    make_node(name='b')
    manageable = make_node(name='c')
    utils.update_node(manageable.id, {
        'provision_state': states.MANAGEABLE, 'maintenance': True,
        'fault': 'power failure'})
    actions.create_action(site, 'deploy_site', 'deployment-strategy')
    scraped = scrape(client)
    assert scraped[('ironside_database_up', ())] == 1
    assert scraped[('ironside_nodes', (('provision_state', 'enroll'),))] \
        == 2
    assert scraped[('ironside_nodes',
                    (('provision_state', 'manageable'),))] == 1
    assert scraped[('ironside_nodes_maintenance',
                    (('fault', 'power failure'),))] == 1
    assert scraped[('ironside_site_actions',
                    (('result', 'none'), ('state', 'queued')))] == 1
    assert scraped[('ironside_site_groups', (('state', 'pending'),))] == 5
    assert scraped[('ironside_site_action_nodes',
                    (('in_flight', 'false'), ('status', 'not started')))] \
        == 14


@pytest.mark.parametrize('result, kind', [
    (None, 'none'), ('success', 'success'),
    ('success with some nodes or groups failed', 'partial'),
    ('failed: critical group ntp-node failed', 'failed')])
def test_action_results_are_classed(result, kind):
    assert api_metrics._result_class(result) == kind


def test_metrics_are_off_by_default(db):
    client = testing.TestClient(api_app.build_app(None))
    assert client.simulate_get('/metrics').status_code == 404


@pytest.mark.parametrize('enabled, unauthenticated, public', [
    (False, True, ()), (True, False, ()), (True, True, ('/metrics',))])
def test_metrics_public_only_when_asked(conf, enabled, unauthenticated,
                                        public):
    conf.set('metrics', enabled=enabled, api_unauthenticated=unauthenticated)
    assert api_metrics.public_paths() == public


# A conductor's own port

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_conductor_serves_its_own_port(conf):
    conf.set('metrics', enabled=True, conductor_port=_free_port())
    server = metrics.serve_conductor()
    try:
        url = 'http://127.0.0.1:%d/metrics' % server.server_port
        with urllib.request.urlopen(url, timeout=10) as response:
            text = response.read().decode()
        assert 'ironside_rpc_calls_total' in text or \
            '# TYPE ironside_rpc_calls counter' in text
        with pytest.raises(exception.ConfigInvalid,
                           match='cannot serve metrics on 127.0.0.1:%d'
                                 % server.server_port):
            conf.set('metrics', conductor_port=server.server_port)
            metrics.serve_conductor()
    finally:
        server.shutdown()
        server.server_close()


def test_conductor_serves_nothing_by_default():
    assert metrics.serve_conductor() is None


def test_database_statements_are_counted_by_kind(rpc, context, make_node):
    before = {kind: value('ironside_db_statements_total', kind=kind)
              for kind in ('select', 'insert', 'update')}
    node = make_node()
    utils.update_node(node.uuid, {'description': 'counted'})
    nodes_db.get_node(node.uuid)
    for kind in before:
        assert value('ironside_db_statements_total', kind=kind) > \
            before[kind], kind
