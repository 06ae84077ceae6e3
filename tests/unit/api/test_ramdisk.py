"""The agent's routes: lookup, heartbeat and continue_inspection.

The nodes here are fake-hardware nodes held in ``wait call-back`` by a
deploy step that waits for a callback (``fake_async_callback``), a state
in which an agent may look its node up; what a heartbeat then moves on
is in the functional tests, with the real agent.
"""

from __future__ import annotations

import base64

import bcrypt
import falcon.testing
import pytest

from ironside.api import app as api_app
from ironside.api import auth
from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of

MAC = '52:54:00:12:34:56'
CALLBACK = 'https://127.0.0.1:9999'


@pytest.fixture
def waiting_node(api, available_node):
    """A node in wait call-back with a port of MAC."""
    node = available_node(driver_info={'fake_async_callback': True})
    uuid = node['uuid']
    response = api.post('/v1/ports', {'node_uuid': uuid, 'address': MAC})
    assert response.status_code == 201, response.text
    response = api.put('/v1/nodes/%s/states/provision' % uuid,
                       {'target': 'active'})
    assert response.status_code == 202, response.text
    utils.wait_for(lambda: nodes_db.get_node(uuid).provision_state ==
                   'wait call-back', what='the node to wait')
    return uuid


def _lookup(api, **params):
    return api.get('/v1/lookup', **params)


def _token(api, uuid) -> str:
    response = _lookup(api, addresses=MAC)
    assert response.status_code == 200, response.text
    assert response.json['node']['uuid'] == uuid
    return response.json['config']['agent_token']


def _heartbeat(api, uuid, **body):
    body.setdefault('callback_url', CALLBACK)
    body.setdefault('agent_version', '13.0.0')
    return api.post('/v1/heartbeat/%s' % uuid, body)


def test_lookup_gives_the_token_once(api, waiting_node):
    response = _lookup(api, addresses='%s,52:54:00:00:00:01' % MAC.upper())
    assert response.status_code == 200, response.text
    body = response.json
    assert body['node']['uuid'] == waiting_node
    assert set(body['node']) == {'uuid', 'properties', 'instance_info',
                                 'driver_internal_info'}
    token = body['config']['agent_token']
    assert len(token) >= 32
    assert body['config']['agent_token_required'] is True
    assert body['config']['heartbeat_timeout'] == 300
    # The token is stored, never shown, and not given again.
    again = _lookup(api, node_uuid=waiting_node).json
    assert again['config']['agent_token'] == '******'
    stored = nodes_db.get_node(waiting_node).driver_internal_info
    assert stored['agent_secret_token'] == token
    shown = api.get('/v1/nodes/%s' % waiting_node).json
    assert shown['driver_internal_info']['agent_secret_token'] == '******'


def test_lookup_refuses_what_it_cannot_answer(api, waiting_node,
                                               available_node):
    assert _lookup(api, addresses=MAC, version='1.21').status_code == 404
    missing = _lookup(api)
    assert missing.status_code == 400
    assert 'addresses' in error_of(missing)
    assert _lookup(api, addresses='nonsense').status_code == 400
    assert _lookup(api, addresses='52:54:00:ff:ff:ff').status_code == 404
    idle = available_node()
    wrong_state = _lookup(api, node_uuid=idle['uuid'])
    assert wrong_state.status_code == 404
    assert 'available' in error_of(wrong_state)
    # Before 1.62 there is no token, and none is given out.
    old = _lookup(api, addresses=MAC, version='1.61')
    assert old.status_code == 200
    assert 'agent_token' not in old.json['config']
    assert 'agent_secret_token' not in \
        nodes_db.get_node(waiting_node).driver_internal_info


def test_heartbeat_needs_the_token(api, waiting_node):
    token = _token(api, waiting_node)
    for wrong in ({}, {'agent_token': 'x' * 43},
                  {'agent_token': token[:-1]}):
        response = _heartbeat(api, waiting_node, **wrong)
        assert response.status_code == 400, wrong
        assert 'agent token' in error_of(response)
    assert 'agent_url' not in \
        nodes_db.get_node(waiting_node).driver_internal_info
    response = _heartbeat(api, waiting_node, agent_token=token,
                          agent_verify_ca='-----BEGIN CERTIFICATE-----')
    assert response.status_code == 202, response.text
    info = utils.wait_for(
        lambda: nodes_db.get_node(waiting_node).driver_internal_info
        if 'agent_url' in nodes_db.get_node(waiting_node)
        .driver_internal_info else None, what='the heartbeat recorded')
    assert info['agent_url'] == CALLBACK
    assert info['agent_version'] == '13.0.0'
    assert info['agent_verify_ca'] == '-----BEGIN CERTIFICATE-----'
    assert info['agent_last_heartbeat']


def test_heartbeat_refusals_change_nothing(api, waiting_node, conf,
                                           available_node):
    token = _token(api, waiting_node)
    plain = _heartbeat(api, waiting_node, agent_token=token,
                       callback_url='http://127.0.0.1:9999')
    assert plain.status_code == 400
    assert 'TLS' in error_of(plain)
    assert _heartbeat(api, waiting_node, agent_token=token,
                      callback_url='ftp://x').status_code == 400
    assert _heartbeat(api, waiting_node, agent_token=token,
                      callback_url=None).status_code == 400
    assert _heartbeat(api, waiting_node, agent_token=token,
                      version='1.61').status_code == 400
    assert _heartbeat(api, waiting_node, agent_token=token,
                      agent_status='dancing').status_code == 400
    assert _heartbeat(api, waiting_node, agent_token=token,
                      unknown='x').status_code == 400
    assert _heartbeat(api, 'no-such-node',
                      agent_token=token).status_code == 404
    idle = available_node()
    wrong_state = _heartbeat(api, idle['uuid'], agent_token=token)
    assert wrong_state.status_code in (400, 409)
    assert 'agent_url' not in \
        nodes_db.get_node(waiting_node).driver_internal_info
    conf.set('agent', require_tls=False)
    assert _heartbeat(api, waiting_node, agent_token=token,
                      callback_url='http://127.0.0.1:9999'
                      ).status_code == 202


def test_agent_routes_are_rate_limited(api, waiting_node, conf):
    conf.set('api', ramdisk_rate_limit=3, ramdisk_rate_limit_per_second=0.01)
    answers = [_lookup(api, node_uuid=waiting_node).status_code
               for _ in range(5)]
    assert answers[:3] == [200, 200, 200]
    assert answers[3:] == [429, 429]


def test_agent_routes_need_no_credentials(rpc, conf, tmp_path, waiting_node):
    path = tmp_path / 'htpasswd'
    path.write_text('admin:%s\n' % bcrypt.hashpw(
        b's3cret', bcrypt.gensalt(rounds=4)).decode())
    conf.set(auth_strategy='http_basic', http_basic_auth_user_file=str(path))
    client = falcon.testing.TestClient(auth.wrap(api_app.build_app(rpc)))
    headers = {'X-OpenStack-Ironic-API-Version': '1.68'}
    assert client.simulate_get('/v1/nodes', headers=headers
                               ).status_code == 401
    response = client.simulate_get('/v1/lookup', headers=headers,
                                   params={'addresses': MAC})
    assert response.status_code == 200, response.text
    good = base64.b64encode(b'admin:s3cret').decode()
    assert client.simulate_get('/v1/nodes', headers=dict(
        headers, Authorization='Basic ' + good)).status_code == 200


def test_continue_inspection_needs_a_node_in_inspect_wait(api, waiting_node):
    inventory = {'interfaces': [{'name': 'eth0', 'mac_address': MAC}],
                 'cpu': {'count': 4, 'architecture': 'x86_64'}}
    response = api.post('/v1/continue_inspection',
                        {'inventory': inventory}, version='1.84')
    assert response.status_code == 404
    assert api.post('/v1/continue_inspection', {'inventory': 'x'},
                    version='1.84').status_code == 400
    assert api.post('/v1/continue_inspection', {'inventory': inventory},
                    version='1.83').status_code == 404


def test_a_node_that_moved_on_takes_no_heartbeat(api, waiting_node):
    token = _token(api, waiting_node)
    assert api.put('/v1/nodes/%s/states/provision' % waiting_node,
                   {'target': 'abort'}).status_code == 202
    utils.wait_for(lambda: nodes_db.get_node(waiting_node).provision_state
                   == 'deploy failed', what='the deploy to fail')
    # The failed node was powered off, its agent's token forgotten.
    response = _heartbeat(api, waiting_node, agent_token=token)
    assert response.status_code == 400
    assert 'agent token' in error_of(response)
    node = nodes_db.get_node(waiting_node)
    assert node.provision_state == 'deploy failed'
    assert 'agent_url' not in node.driver_internal_info


def test_fast_track_agents_heartbeat_between_flows(api, conf, available_node):
    node = available_node()
    uuid = node['uuid']
    assert api.post('/v1/ports', {'node_uuid': uuid, 'address': MAC}
                    ).status_code == 201
    assert _lookup(api, addresses=MAC).status_code == 404
    conf.set('deploy', fast_track=True)
    token = _token(api, uuid)
    assert _heartbeat(api, uuid, agent_token=token).status_code == 202
    utils.wait_for(lambda: 'agent_url' in nodes_db.get_node(uuid)
                   .driver_internal_info, what='the heartbeat recorded')
    assert nodes_db.get_node(uuid).provision_state == 'available'
    conf.set('deploy', fast_track=False)
    response = _heartbeat(api, uuid, agent_token=token)
    assert response.status_code == 409
    assert 'available' in error_of(response)
    conf.set('deploy', fast_track=True)
    # Powered off, the agent is gone: its token with it.
    assert api.put('/v1/nodes/%s/states/power' % uuid,
                   {'target': 'power off'}).status_code == 202
    info = utils.wait_for(
        lambda: nodes_db.get_node(uuid).driver_internal_info
        if 'agent_url' not in nodes_db.get_node(uuid).driver_internal_info
        else None, what='the agent forgotten')
    assert 'agent_secret_token' not in info
    assert _heartbeat(api, uuid, agent_token=token).status_code == 400
