"""Vendor passthru routes: a node's and a driver's vendor methods, over a
real conductor (local transport) and the fake vendor interface."""

from __future__ import annotations

import json

import pytest

from ironside.api import versions
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of
from tests.unit.api.conftest import identity

SYSTEM_ADMIN = identity(['admin', 'member', 'reader'], system=True)
SYSTEM_READER = identity(['reader'], system=True)
OWNER_ADMIN = identity(['admin', 'member', 'reader'], project='p1')
OWNER_MEMBER = identity(['member', 'reader'], project='p1')


def call(api, verb, path, body=None, headers=None, **query):
    """A request with a query (``method`` is also ApiClient's own word)."""
    headers = dict(headers or {})
    headers.setdefault(versions.VERSION_HEADER, versions.MAX_VERSION_STRING)
    raw = None if body is None else json.dumps(body).encode()
    if raw is not None:
        headers['Content-Type'] = 'application/json'
    return api.client.simulate_request(verb, path, body=raw,
                                       headers=headers, params=query or None)


def _passthru(node):
    return '/v1/nodes/%s/vendor_passthru' % node['uuid']


def _outcome(node):
    return nodes_db.get_node(node['uuid']).driver_internal_info.get(
        'fake_vendor')


def test_node_methods_listed(api, create_node):
    node = create_node()
    response = api.get(_passthru(node) + '/methods', version='1.1')
    assert response.status_code == 200, response.text
    assert response.json['first_method'] == {
        'http_methods': ['POST'], 'async': True, 'attach': False,
        'require_exclusive_lock': True,
        'description': 'Test if the value of bar is baz; the outcome is '
                       'kept in driver_internal_info fake_vendor'}
    assert response.json['second_method']['async'] is False
    assert response.json['second_method']['require_exclusive_lock'] is False
    assert response.json['fake_log']['attach'] is True
    # Driver methods are not node methods.
    assert set(response.json) == {'first_method', 'second_method',
                                  'fake_log'}


def test_node_async_method_answers_202_and_runs(api, create_node):
    node = create_node()
    response = call(api, 'POST', _passthru(node), {'bar': 'baz'},
                    method='first_method')
    assert response.status_code == 202, response.text
    assert response.text == ''
    assert utils.wait_for(lambda: _outcome(node)) == {
        'first_method': {'bar': 'baz', 'result': True}}
    # And the node's lock is free again once it ran.
    utils.wait_for(lambda: nodes_db.get_node(node['uuid']).reservation
                   is None)


@pytest.mark.parametrize('style', ['query', 'path'])
def test_node_sync_method_answers_its_value(api, create_node, style):
    node = create_node(name='vendor-node')
    call(api, 'POST', _passthru(node), {'bar': 'other'},
         method='first_method')
    utils.wait_for(lambda: _outcome(node))
    if style == 'query':
        response = call(api, 'POST', '/v1/nodes/vendor-node/vendor_passthru',
                        {'bar': 'kazoo'}, method='second_method')
    else:
        response = api.post('/v1/nodes/vendor-node/vendor_passthru/'
                            'second_method', {'bar': 'kazoo'})
    assert response.status_code == 200, response.text
    assert response.json == {'http_method': 'POST', 'bar': 'kazoo',
                             'result': True, 'first_method': {
                                 'bar': 'other', 'result': False}}


def test_node_get_method_takes_no_body(api, create_node):
    node = create_node()
    response = api.get(_passthru(node) + '/second_method', raw=b'')
    assert response.status_code == 400
    assert error_of(response) == ("Parameter 'bar' not passed to method "
                                  "'second_method'.")
    response = call(api, 'GET', _passthru(node), {'bar': 'x'},
                    method='second_method')
    assert response.status_code == 200
    assert response.json['http_method'] == 'GET'


def test_node_attach_method_answers_raw(api, create_node):
    node = create_node()
    response = call(api, 'GET', _passthru(node), method='fake_log')
    assert response.status_code == 200
    assert response.headers['content-type'].startswith('text/plain')
    assert response.text == 'fake BMC log of node %s\n' % node['uuid']


@pytest.mark.parametrize('verb,path,params,body,status,message', [
    ('POST', '', {}, {}, 400, 'Method not specified'),
    ('POST', '', {'method': 'nope'}, {}, 400, 'No handler for method nope'),
    ('PUT', '', {'method': 'first_method'}, {'bar': 'baz'}, 400,
     'The method first_method does not support HTTP PUT'),
    ('DELETE', '/fake_log', {}, None, 400,
     'The method fake_log does not support HTTP DELETE'),
    ('POST', '', {'method': 'first_method'}, {}, 400,
     "Parameter 'bar' not passed to method 'first_method'."),
    ('POST', '', {'method': 'first_method', 'other': '1'}, {}, 400,
     'Unexpected arguments: other'),
    ('POST', '', {'method': 'first_method'}, ['bar'], 400,
     'The arguments of vendor method first_method must be a JSON object, '
     'not list'),
])
def test_node_errors(api, create_node, verb, path, params, body, status,
                     message):
    node = create_node()
    response = call(api, verb, _passthru(node) + path, body, **params)
    assert response.status_code == status
    assert error_of(response) == message
    assert _outcome(node) is None


def test_unknown_node(api):
    response = call(api, 'POST', '/v1/nodes/missing/vendor_passthru', {},
                    method='first_method')
    assert response.status_code == 404
    assert error_of(response) == 'Node missing could not be found.'
    response = api.get('/v1/nodes/missing/vendor_passthru/methods')
    assert response.status_code == 404


def test_async_failure_is_kept_in_history(api, create_node):
    node = create_node(driver_info={
        'fake_fail_steps': ['vendor.first_method']})
    response = call(api, 'POST', _passthru(node), {'bar': 'baz'},
                    method='first_method')
    assert response.status_code == 202

    def failure():
        rows = history_db.list_for_node(nodes_db.get_node(node['uuid']).id)
        return [r for r in rows if r.event_type == 'vendor_passthru']
    rows = utils.wait_for(failure)
    assert rows[0].severity == 'ERROR'
    assert rows[0].event.startswith(
        'Vendor passthru method first_method failed: ')
    # The failure is recorded before the worker lets the lock go.
    shown = utils.wait_for(lambda: (lambda n: n if n['reservation'] is None
                                    else None)(
        api.get('/v1/nodes/%s' % node['uuid']).json), what='lock released')
    assert shown['provision_state'] == node['provision_state']


def test_no_vendor_interface_has_no_methods(api, create_node):
    node = create_node(vendor_interface='no-vendor')
    response = api.get(_passthru(node) + '/methods')
    assert response.json == {}
    response = call(api, 'POST', _passthru(node), {}, method='first_method')
    assert response.status_code == 400
    assert error_of(response) == 'No handler for method first_method'


def test_driver_methods(api, create_node):
    create_node()
    path = '/v1/drivers/fake-hardware/vendor_passthru'
    response = api.get(path + '/methods', version='1.1')
    assert response.status_code == 200
    assert response.json == {
        'first_method': {
            'http_methods': ['POST'], 'async': False, 'attach': False,
            'description': 'Test if the value of bar is baz'},
        'second_method': {
            'http_methods': ['POST'], 'async': True, 'attach': False,
            'description': 'Take bar, in a worker, and forget it'}}
    response = call(api, 'POST', path, {'bar': 'baz'}, method='first_method')
    assert response.status_code == 200, response.text
    assert response.json == {'http_method': 'POST', 'bar': 'baz',
                             'result': True}
    response = api.post(path + '/first_method', {'bar': 'no'})
    assert response.json['result'] is False
    response = call(api, 'POST', path, {}, method='first_method')
    assert response.status_code == 400
    assert error_of(response) == ("Parameter 'bar' not passed to method "
                                  "'first_method'.")
    response = call(api, 'GET', path, method='first_method')
    assert error_of(response) == ('The method first_method does not '
                                  'support HTTP GET')
    response = call(api, 'POST', path, {'bar': 'x'}, method='second_method')
    assert response.status_code == 202
    assert response.text == ''
    response = call(api, 'POST', path, {}, method='second_method')
    assert error_of(response) == ("Parameter 'bar' not passed to method "
                                  "'second_method'.")
    response = call(api, 'POST', path, {}, method='third_method')
    assert error_of(response) == 'No handler for method third_method'


def test_unknown_driver(api):
    for response in (
            api.get('/v1/drivers/nope/vendor_passthru/methods'),
            call(api, 'POST', '/v1/drivers/nope/vendor_passthru', {},
                    method='first_method')):
        assert response.status_code == 404
        assert error_of(response) == ('Could not find the following '
                                      'driver(s) or hardware type(s): nope.')


def test_policy(keystone, api):
    created = api.post('/v1/nodes', utils.fake_node_values(owner='p1'),
                       headers=SYSTEM_ADMIN)
    assert created.status_code == 201, created.text
    node = created.json
    driver = '/v1/drivers/fake-hardware/vendor_passthru'
    # System admins call and list them.
    assert api.get(_passthru(node) + '/methods',
                   headers=SYSTEM_ADMIN).status_code == 200
    assert api.post(_passthru(node) + '/second_method', {'bar': 'x'},
                    headers=SYSTEM_ADMIN).status_code == 200
    assert api.get(driver + '/methods',
                   headers=SYSTEM_ADMIN).status_code == 200
    # A system reader may not; an owner sees the node but may not call.
    for headers in (SYSTEM_READER, OWNER_ADMIN, OWNER_MEMBER):
        response = api.post(_passthru(node) + '/second_method',
                            {'bar': 'x'}, headers=headers)
        assert response.status_code == 403, headers
        assert api.get(_passthru(node) + '/methods',
                       headers=headers).status_code == 403
        assert api.post(driver + '/first_method', {'bar': 'x'},
                        headers=headers).status_code == 403
