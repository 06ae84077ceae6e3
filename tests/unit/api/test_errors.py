"""Every error answers in Ironic's format and changes nothing."""

from __future__ import annotations

import json

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
