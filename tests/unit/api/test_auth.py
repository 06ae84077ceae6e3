"""Authentication strategies around the API application."""

from __future__ import annotations

import base64

import bcrypt
import falcon.testing
import pytest

from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import versions
from ironside.common import exception
from tests.unit.api.conftest import error_of


def _client(rpc):
    return falcon.testing.TestClient(auth.wrap(api_app.build_app(rpc)))


def _basic(user: str, password: str) -> dict:
    token = base64.b64encode(('%s:%s' % (user, password)).encode()).decode()
    return {'Authorization': 'Basic ' + token}


@pytest.fixture
def htpasswd(tmp_path, conf):
    path = tmp_path / 'htpasswd'
    digest = bcrypt.hashpw(b's3cret', bcrypt.gensalt(rounds=4)).decode()
    path.write_text('admin:%s\n' % digest)
    conf.set(auth_strategy='http_basic', http_basic_auth_user_file=str(path))
    return path


def test_http_basic(rpc, htpasswd):
    client = _client(rpc)
    assert client.simulate_get('/v1/nodes', headers=_basic(
        'admin', 's3cret')).status_code == 200
    for headers in (_basic('admin', 'wrong'), _basic('nobody', 's3cret'),
                    {}):
        response = client.simulate_get('/v1/nodes', headers=headers)
        assert response.status_code == 401
        assert error_of(response) == 'Authentication required'
        assert response.headers['WWW-Authenticate'] == \
            'Basic realm="Baremetal API"'
        assert response.headers[versions.MAX_HEADER] == '1.115'
    assert client.simulate_get('/').status_code == 200
    assert client.simulate_get('/v1/').status_code == 200


def test_http_basic_refuses_a_missing_file(conf, tmp_path):
    conf.set(auth_strategy='http_basic',
             http_basic_auth_user_file=str(tmp_path / 'missing'))
    with pytest.raises(exception.ConfigInvalid) as error:
        auth.check_strategy('127.0.0.1')
    assert 'is not usable' in str(error.value)
    # Formatted, and saying what is wrong (oslo.middleware's own message
    # is "Invalid configuration file. %(error_msg)s", placeholder and all).
    assert '%(' not in str(error.value)
    assert 'cannot be read: No such file or directory' in str(error.value)


def test_http_basic_names_the_line_of_a_bad_entry(conf, tmp_path):
    user_file = tmp_path / 'htpasswd'
    user_file.write_text('# users\nalice:{SHA}notbcrypt\n')
    conf.set(auth_strategy='http_basic',
             http_basic_auth_user_file=str(user_file))
    with pytest.raises(exception.ConfigInvalid) as error:
        auth.check_strategy('127.0.0.1')
    assert 'line 2: Only bcrypt digested passwords are supported for ' \
           'alice' in str(error.value)


def test_keystone_without_a_token_is_401(rpc, conf):
    from keystonemiddleware import auth_token  # registers its options
    assert auth_token.AuthProtocol
    conf.set(auth_strategy='keystone')
    conf.set('keystone_authtoken',
             www_authenticate_uri='http://keystone.invalid/identity')
    client = _client(rpc)
    response = client.simulate_get('/v1/nodes')
    assert response.status_code == 401
    assert error_of(response) == \
        'The request you have made requires authentication.'
    assert response.headers[versions.MIN_HEADER] == '1.1'
    assert client.simulate_get('/v1').status_code == 200
    assert client.simulate_get('/openapi.json').status_code == 200


@pytest.mark.parametrize('host,allowed', [
    ('127.0.0.1', True), ('::1', True), ('localhost', True),
    ('0.0.0.0', False), ('10.1.2.3', False)])
def test_noauth_only_on_loopback(conf, host, allowed):
    conf.set(auth_strategy='noauth')
    if allowed:
        auth.check_strategy(host)
    else:
        with pytest.raises(exception.ConfigInvalid) as error:
            auth.check_strategy(host)
        assert 'lets anyone who reaches %s control every node' % host in \
            str(error.value)
        conf.set('api', allow_insecure_noauth=True)
        auth.check_strategy(host)
