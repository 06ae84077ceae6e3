"""``openstack site`` and ``openstack baremetal`` against an all-in-one
under ``auth_strategy = keystone``.

Keystone itself cannot run on these machines: the identity service is
the keystone emulator of ``tests/functional/fixtures/keystone_emulator.py``
(real HTTP, keystone's JSON). Everything else is real: keystoneauth's
password plugin in the CLI gets a token and finds Ironside in the token's
catalog; keystonemiddleware's ``auth_token`` in Ironside gets a service
token and validates the callers' tokens; the policy reads the roles and
scope it vouches for.
"""

from __future__ import annotations

import pytest

from tests.functional import site_cli_flow
from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import keystone_emulator

USERS = [
    keystone_emulator.User('ironside', 'service-secret', ('service', 'admin'),
                           project='service'),
    keystone_emulator.User('operator', 'op-secret', ('admin',)),
    keystone_emulator.User('auditor', 'aud-secret', ('reader',)),
    keystone_emulator.User('tenant', 'ten-secret', ('member',),
                           project='tenant'),
]


@pytest.fixture
def deployment(tmp_path):
    with keystone_emulator.KeystoneEmulator(USERS, '') as keystone:
        ironside = ironside_process.AllInOne(tmp_path / 'ironside', options={
            'DEFAULT': {'auth_strategy': 'keystone'},
            'keystone_authtoken': {
                'www_authenticate_uri': keystone.url + '/v3',
                'auth_url': keystone.url + '/v3',
                'auth_type': 'password',
                'username': 'ironside', 'password': 'service-secret',
                'project_name': 'service',
                'user_domain_name': 'Default',
                'project_domain_name': 'Default'},
            'site': {'action_check_interval': 0.2,
                     'node_poll_interval': 0.1}})
        keystone.baremetal_url = ironside.endpoint
        with ironside:
            yield ironside, keystone
        assert ironside.process.process.returncode == 0, ironside.log()


def _cli(deployment, prefix: str, user: str, password: str,
         system: bool = True) -> clients.InProcessCli:
    ironside, keystone = deployment
    auth = {'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': keystone.url + '/v3',
            'OS_IDENTITY_API_VERSION': '3', 'OS_USERNAME': user,
            'OS_PASSWORD': password, 'OS_USER_DOMAIN_NAME': 'Default',
            'OS_INTERFACE': 'public', 'OS_REGION_NAME': 'RegionOne'}
    if system:
        auth['OS_SYSTEM_SCOPE'] = 'all'
    else:
        auth.update(OS_PROJECT_NAME=user, OS_PROJECT_DOMAIN_NAME='Default')
    return clients.InProcessCli(ironside.endpoint, prefix, auth)


def test_openstack_site_under_keystone(deployment, tmp_path):
    _ironside, keystone = deployment
    wrong = _cli(deployment, 'site', 'operator', 'nope')('strategy', 'list',
                                                        check=False)
    assert isinstance(wrong, clients.CliFailed)
    assert '401' in wrong.stderr

    uuid = site_cli_flow.deploy_a_rack(
        _cli(deployment, 'baremetal', 'operator', 'op-secret'),
        _cli(deployment, 'site', 'operator', 'op-secret'), tmp_path, 'keyed')

    # A system reader reads the site but starts nothing.
    auditor = _cli(deployment, 'site', 'auditor', 'aud-secret')
    assert [s['Name'] for s in auditor('strategy', 'list', '-f', 'json')] \
        == ['keyed']
    assert [a['UUID'] for a in auditor('action', 'list', '-f', 'json')] == \
        [uuid]
    refused = auditor('action', 'create', 'deploy_site', '--strategy',
                      'keyed', check=False)
    assert isinstance(refused, clients.CliFailed)
    assert 'HTTP 403' in refused.stderr
    # A project's member sees none of the system's nodes.
    tenant = _cli(deployment, 'site', 'tenant', 'ten-secret', system=False)
    assert tenant('node', 'status', '-f', 'json') == []
    # Ironside's middleware validated the callers' tokens with keystone.
    assert ('GET', '/v3/auth/tokens') in keystone.requests
