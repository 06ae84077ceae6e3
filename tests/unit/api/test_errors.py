"""Every error answers in Ironic's format and changes nothing."""

from __future__ import annotations

import json

import pytest

from ironside.api import app as api_app
from ironside.common.conf import CONF
from ironside.db import nodes as nodes_db
from tests.unit.api.conftest import ApiClient
from tests.unit.api.conftest import error_of


class Broken:
    def on_get(self, req, resp):
        raise RuntimeError('database password is hunter2')


def _register_broken(app, prefix, rpcapi):
    app.add_route(prefix + '/broken', Broken())


def test_unexpected_error_is_a_generic_500(rpc, caplog):
    app = api_app.build_app(rpc, extra_apis=[('site', _register_broken)])
    response = ApiClient(app).get('/site/broken')
    assert response.status_code == 500
    message = error_of(response)
    request_id = response.headers['X-OpenStack-Request-Id']
    assert message == ('Internal server error; the details are logged '
                       'with request id %s.' % request_id)
    assert 'hunter2' not in response.text
    assert 'hunter2' in caplog.text


def test_extra_apis_mount_beside_v1(rpc):
    app = api_app.build_app(rpc, extra_apis=[('/site/', _register_broken)])
    assert ApiClient(app).get('/v1/site/broken').status_code == 404


def test_malformed_json(api, create_node):
    node = create_node()
    response = api.request('PATCH', '/v1/nodes/%s' % node['uuid'],
                           raw=b'[{"op": "add",')
    assert response.status_code == 400
    assert error_of(response).startswith('Request body is not valid JSON')
    response = api.request('POST', '/v1/nodes', raw=b'\xff\xfe')
    assert response.status_code == 400
    assert error_of(response) == 'Request body is not valid UTF-8'


def test_deeply_nested_json_is_a_400(api, create_node):
    # Found by the fuzz run: json.loads raised RecursionError (a 500).
    node = create_node()
    response = api.request('PATCH', '/v1/nodes/%s' % node['uuid'],
                           raw=b'[' * 100000)
    assert response.status_code == 400
    assert error_of(response) == ('Request body is not valid JSON: nested '
                                  'too deeply')
    assert nodes_db.get_node(node['uuid']).updated_at is None


@pytest.mark.parametrize('raw,message', [
    (b'{"extra": {"a": -9223372036854775809}}',
     'integer -9223372036854775809 is out of the 64-bit range'),
    (b'{"extra": {"a": 18446744073709551616}}',
     'integer 18446744073709551616 is out of the 64-bit range'),
    (b'{"extra": {"a": NaN}}', 'NaN is not a JSON value'),
    (b'{"extra": {"a": -Infinity}}', '-Infinity is not a JSON value'),
])
def test_json_past_what_answers_carry_is_a_400(api, raw, message):
    # Found by the fuzz run: the chassis was created, then its answer
    # failed with 500 (orjson writes 64-bit integers only), and so did
    # every later list of chassis.
    response = api.request('POST', '/v1/chassis', raw=raw)
    assert response.status_code == 400
    assert error_of(response) == 'Request body is not valid JSON: ' + message
    assert api.get('/v1/chassis').json['chassis'] == []


def test_json_integers_within_64_bits_are_kept(api):
    response = api.post('/v1/chassis', {'extra': {'big': 2 ** 63 - 1,
                                                  'small': -2 ** 63}})
    assert response.status_code == 201, response.text
    assert response.json['extra'] == {'big': 2 ** 63 - 1, 'small': -2 ** 63}


def test_oversized_body_is_refused(api, conf, create_node):
    conf.set('api', max_body_size=1024)
    node = create_node()
    patch = [{'op': 'add', 'path': '/extra/big', 'value': 'x' * 2000}]
    response = api.patch('/v1/nodes/%s' % node['uuid'], patch)
    assert response.status_code == 413
    assert 'more than the 1024 bytes [api]max_body_size allows' in \
        error_of(response)
    assert set(response.json) == {'error_message'}
    assert nodes_db.get_node(node['uuid']).extra == {}


def test_default_body_limit_takes_a_large_configdrive():
    # Nova sends the configdrive inline; Ironic takes bodies of many MiB.
    assert CONF.api.max_body_size == 64 * 1024 * 1024


def test_unexpected_query_parameters(api):
    response = api.get('/v1/nodes', bogus='1', other='2')
    assert response.status_code == 400
    assert error_of(response) == 'Unexpected arguments: bogus, other'


def test_error_body_is_double_encoded_json(api):
    response = api.get('/v1/nodes/does-not-exist')
    assert response.status_code == 404
    assert set(response.json) == {'error_message'}
    fault = json.loads(response.json['error_message'])
    assert fault == {'faultcode': 'Client',
                     'faultstring': 'Node does-not-exist could not be '
                                    'found.',
                     'debuginfo': None}


def test_empty_answers_are_not_json(api, create_node):
    node = create_node()
    response = api.put('/v1/nodes/%s/maintenance' % node['uuid'], {})
    assert response.status_code == 202
    assert response.content == b''
    assert 'json' not in response.headers['content-type']
    response = api.put('/v1/nodes/%s/traits/CUSTOM_A' % node['uuid'])
    assert response.status_code == 204
    assert 'content-type' not in response.headers


def test_a_refusal_rebuilt_from_rpc_shows_no_traceback(rpc):
    """oslo.messaging rebuilds a conductor's exception with the remote
    traceback appended to ``str()``; the answer shows the message only
    (issue 17, finding 5). Serialised and rebuilt by oslo.messaging's own
    functions, as its transports do."""
    import sys

    from oslo_messaging._drivers import common as rpc_common

    from ironside.common import exception
    from ironside.common import rpc_base

    class Conductor:
        def update_node(self, *args, **kwargs):
            try:
                raise exception.DuplicateName(name='twice')
            except exception.DuplicateName:
                data = rpc_common.serialize_remote_exception(sys.exc_info())
            raise rpc_common.deserialize_remote_exception(
                data, rpc_base.ALLOWED_EXMODS)

        def __getattr__(self, name):
            return getattr(rpc, name)

    node = ApiClient(api_app.build_app(rpc)).post(
        '/v1/nodes', {'driver': 'fake-hardware'}).json
    client = ApiClient(api_app.build_app(Conductor()))
    # maintenance is changed by the conductor (extra would be merged by
    # the API itself).
    response = client.patch('/v1/nodes/%s' % node['uuid'], [
        {'op': 'replace', 'path': '/maintenance', 'value': True}])
    assert response.status_code == 409
    assert error_of(response) == 'A node with name twice already exists.'
    assert 'Traceback' not in response.text


def test_oversized_json_field_is_refused(api, conf, create_node):
    conf.set('api', max_json_field_size=4096)
    node = create_node()
    patch = [{'op': 'add', 'path': '/extra/big', 'value': 'x' * 5000}]
    response = api.patch('/v1/nodes/%s' % node['uuid'], patch)
    assert response.status_code == 413
    assert 'field extra is 5010 bytes of JSON, more than the 4096 bytes ' \
        '[api]max_json_field_size allows' in error_of(response)
    assert nodes_db.get_node(node['uuid']).extra == {}
    response = api.post('/v1/nodes', {'driver': 'fake-hardware',
                                      'properties': {'x': 'y' * 5000}})
    assert response.status_code == 413
    assert 'field properties is' in error_of(response)
    # Under the limit, all is as before.
    patch = [{'op': 'add', 'path': '/extra/small', 'value': 'x' * 4000}]
    assert api.patch('/v1/nodes/%s' % node['uuid'], patch
                     ).status_code == 200
