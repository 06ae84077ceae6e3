"""The API's access log: one line per request, with the method, the
path, the status, the time and the request id; never a credential."""

from __future__ import annotations

import base64
import logging
import re

import bcrypt
import falcon.testing
import pytest

from ironside.api import app as api_app
from ironside.api import auth

LINE = re.compile(r'^(\S+) (\S+) (\d{3}) (\d+\.\d)ms (req-[0-9a-f-]{36})$')


def _lines(caplog):
    return [LINE.match(r.getMessage()).groups() for r in caplog.records
            if r.name == 'ironside.api.access']


@pytest.fixture
def access(caplog):
    caplog.set_level(logging.INFO, logger='ironside.api.access')
    return caplog


def test_one_line_per_request(rpc, access):
    client = falcon.testing.TestClient(auth.wrap(api_app.build_app(rpc)))
    shown = client.simulate_get('/v1/nodes', params={'limit': '1'})
    missing = client.simulate_get('/v1/nodes/nope')
    lines = _lines(access)
    assert [line[:3] for line in lines] == [('GET', '/v1/nodes', '200'),
                                           ('GET', '/v1/nodes/nope', '404')]
    assert lines[0][4] == shown.headers['X-OpenStack-Request-Id']
    assert lines[1][4] == missing.headers['X-OpenStack-Request-Id']


def test_refused_authentication_is_logged_without_credentials(
        rpc, access, conf, tmp_path):
    users = tmp_path / 'htpasswd'
    digest = bcrypt.hashpw(b's3cret', bcrypt.gensalt(rounds=4)).decode()
    users.write_text('admin:%s\n' % digest)
    conf.set(auth_strategy='http_basic', http_basic_auth_user_file=str(users))
    client = falcon.testing.TestClient(auth.wrap(api_app.build_app(rpc)))
    for password in ('wrong', 's3cret'):
        token = base64.b64encode(b'admin:' + password.encode()).decode()
        client.simulate_post('/v1/nodes', json={'driver': 'fake-hardware'},
                             headers={'Authorization': 'Basic ' + token})
    refused, created = _lines(access)
    assert refused[:3] == ('POST', '/v1/nodes', '401')
    assert created[:3] == ('POST', '/v1/nodes', '201')
    assert 's3cret' not in access.text and 'wrong' not in access.text
    assert 'Basic' not in access.text


def test_control_characters_of_the_path_are_escaped(rpc, access):
    """``%0A`` in a path arrives decoded: one request, one line, the
    line feed written as ``\\x0a`` (it forged a line of its own)."""
    client = falcon.testing.TestClient(auth.wrap(api_app.build_app(rpc)))
    client.simulate_get('/v1/nodes/a\nFORGED 200\r\x1b[2J')
    messages = [r.getMessage() for r in access.records
                if r.name == 'ironside.api.access']
    assert len(messages) == 1
    assert '\n' not in messages[0] and '\r' not in messages[0]
    assert messages[0].startswith(
        'GET /v1/nodes/a\\x0aFORGED 200\\x0d\\x1b[2J 404 ')
