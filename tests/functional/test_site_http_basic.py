"""``openstack site`` against an all-in-one that asks for HTTP basic auth.

The all-in-one runs with ``auth_strategy = http_basic`` and an htpasswd
file; the CLI authenticates as an operator would, with keystoneauth's
``http_basic`` plugin (``OS_AUTH_TYPE=http_basic``, a user and a
password, and the endpoint). The site API, its web view and /v1 share
the one authentication layer.

Keystone is exercised by tests/functional/test_site_keystone.py
(against the real Keystone); the policy of each persona by
tests/unit/strategy/test_site_policy.py.
"""

from __future__ import annotations

import bcrypt
import pytest

from tests.functional import site_cli_flow
from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process


@pytest.fixture
def ironside(tmp_path):
    users = tmp_path / 'htpasswd'
    digest = bcrypt.hashpw(b's3cret', bcrypt.gensalt(rounds=4)).decode()
    users.write_text('operator:%s\n' % digest)
    yield from ironside_process.serve(
        tmp_path / 'ironside',
        options={'DEFAULT': {'auth_strategy': 'http_basic',
                             'http_basic_auth_user_file': str(users)},
                 'site': {'action_check_interval': 0.2,
                          'node_poll_interval': 0.1}})


def _auth(password: str) -> dict[str, str]:
    return {'OS_AUTH_TYPE': 'http_basic', 'OS_USERNAME': 'operator',
            'OS_PASSWORD': password}


def test_openstack_site_under_http_basic(ironside, tmp_path):
    wrong = clients.InProcessCli(ironside.endpoint, 'site', _auth('nope'))
    failed = wrong('strategy', 'list', check=False)
    assert isinstance(failed, clients.CliFailed)
    assert 'HTTP 401' in failed.stderr
    site_cli_flow.deploy_a_rack(
        clients.InProcessCli(ironside.endpoint, 'baremetal', _auth('s3cret')),
        clients.InProcessCli(ironside.endpoint, 'site', _auth('s3cret')),
        tmp_path, 'basic')
