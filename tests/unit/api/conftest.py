"""Fixtures for API tests: the Falcon app over an in-process conductor."""

from __future__ import annotations

import json
from typing import Any

import falcon.testing
import pytest

from ironside.api import app as api_app
from ironside.api import versions
from ironside.db import nodes as nodes_db
from tests import utils

LATEST = versions.MAX_VERSION_STRING


class ApiClient:
    """falcon.testing with Ironic's version header and JSON bodies."""

    def __init__(self, app, version: str | None = LATEST) -> None:
        self.client = falcon.testing.TestClient(app)
        self.version = version

    def request(self, method: str, path: str, body: Any = None,
                version: str | None = '', headers: dict | None = None,
                raw: bytes | None = None, **params):
        headers = dict(headers or {})
        version = self.version if version == '' else version
        if version is not None:
            headers.setdefault(versions.VERSION_HEADER, version)
        if body is not None:
            raw = json.dumps(body).encode()
        if raw is not None:
            headers.setdefault('Content-Type', 'application/json')
        return self.client.simulate_request(
            method, path, body=raw, headers=headers,
            params=params or None)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, body=body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, body=body, **kwargs)

    def patch(self, path, body=None, **kwargs):
        return self.request('PATCH', path, body=body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)


def error_of(response) -> str:
    """The faultstring of an error answer (checking the format on the way)."""
    assert response.headers['content-type'].startswith('application/json')
    fault = json.loads(response.json['error_message'])
    assert set(fault) == {'faultcode', 'faultstring', 'debuginfo'}
    assert fault['debuginfo'] is None
    assert fault['faultcode'] == ('Client' if response.status_code < 500
                                  else 'Server')
    return fault['faultstring']


@pytest.fixture
def app(rpc):
    return api_app.build_app(rpc)


@pytest.fixture
def api(app):
    return ApiClient(app)


@pytest.fixture
def node_values():
    return utils.fake_node_values


@pytest.fixture
def create_node(api):
    """Create a node through the API; returns its JSON."""
    def _create(**values):
        body = utils.fake_node_values(**values)
        response = api.post('/v1/nodes', body)
        assert response.status_code == 201, response.text
        return response.json
    return _create


@pytest.fixture
def available_node(api, create_node):
    """A node moved to available through the API."""
    def _make(**values):
        node = create_node(**values)
        uuid = node['uuid']
        for verb, state in (('manage', 'manageable'),
                            ('provide', 'available')):
            response = api.put('/v1/nodes/%s/states/provision' % uuid,
                               {'target': verb})
            assert response.status_code == 202, response.text
            utils.wait_for(
                lambda s=state: nodes_db.get_node(uuid).provision_state == s,
                what='node %s to reach %s' % (uuid, state))
        return api.get('/v1/nodes/%s' % uuid).json
    return _make


def identity(roles, project=None, system=False) -> dict:
    """Headers of a keystone-authenticated caller (auth_token's)."""
    headers = {'X-Roles': ','.join(roles), 'X-User-Id': 'u1',
               'X-Identity-Status': 'Confirmed'}
    if system:
        headers['OpenStack-System-Scope'] = 'all'
    if project:
        headers['X-Project-Id'] = project
    return headers
