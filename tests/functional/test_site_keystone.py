"""``openstack site`` and ``openstack baremetal`` against an all-in-one
under ``auth_strategy = keystone``, with the real Keystone.

Keystone (from PyPI: SQLite, fernet tokens, ``keystone-manage
bootstrap``, its own process; ``fixtures/keystone.py``) is started once
for the module, with system- and project-scoped admins, members and
readers and Ironside's service user. Everything is real: keystoneauth's
password plugin in the CLI gets a scoped token; keystonemiddleware's
``auth_token`` in Ironside gets a service token and validates the
callers' tokens; the policy reads the roles and scope keystone vouches
for, with ``[oslo_policy] enforce_scope`` and ``enforce_new_defaults``
(Ironic 39's defaults).
"""

from __future__ import annotations

import pytest

from tests.functional import site_cli_flow
from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import keystone as keystone_fixture

# One keystone and one Ironside for the module: its tests on one worker.
pytestmark = [pytest.mark.functional,
              pytest.mark.xdist_group('site_keystone')]


@pytest.fixture(scope='module')
def keystone(tmp_path_factory):
    with keystone_fixture.Keystone(
            tmp_path_factory.mktemp('keystone')) as server:
        yield server


@pytest.fixture(scope='module')
def deployment(tmp_path_factory, keystone):
    options = keystone.authtoken_options()
    options['site'] = {'action_check_interval': 0.2,
                       'node_poll_interval': 0.1}
    server = ironside_process.AllInOne(tmp_path_factory.mktemp('ironside'),
                                       options=options)
    keystone.set_endpoint('baremetal', server.endpoint)
    with server:
        yield server
    assert server.process.process.returncode == 0, server.log()


def _cli(deployment, keystone, prefix: str, user: str,
         password: str | None = None) -> clients.InProcessCli:
    auth = keystone.client_env(user)
    if password is not None:
        auth['OS_PASSWORD'] = password
    return clients.InProcessCli(deployment.endpoint, prefix, auth)


def test_openstack_site_under_keystone(deployment, keystone, tmp_path):
    wrong = _cli(deployment, keystone, 'site', 'system-admin', 'nope')(
        'strategy', 'list', check=False)
    assert isinstance(wrong, clients.CliFailed)
    assert '401' in wrong.stderr

    uuid = site_cli_flow.deploy_a_rack(
        _cli(deployment, keystone, 'baremetal', 'system-admin'),
        _cli(deployment, keystone, 'site', 'system-admin'), tmp_path,
        'keyed')

    # A system reader reads the site but starts nothing.
    auditor = _cli(deployment, keystone, 'site', 'system-reader')
    assert [s['Name'] for s in auditor('strategy', 'list', '-f', 'json')] \
        == ['keyed']
    assert [a['UUID'] for a in auditor('action', 'list', '-f', 'json')] == \
        [uuid]
    refused = auditor('action', 'create', 'deploy_site', '--strategy',
                      'keyed', check=False)
    assert isinstance(refused, clients.CliFailed)
    assert 'HTTP 403' in refused.stderr
    # A project's member sees none of the system's nodes.
    tenant = _cli(deployment, keystone, 'site', 'project-member')
    assert tenant('node', 'status', '-f', 'json') == []
    # Ironside's middleware validated the callers' tokens with keystone.
    assert ('GET', '/v3/auth/tokens', 200) in keystone.requests()


def test_personas_under_keystone(deployment, keystone):
    """Ironic's defaults with keystone's own tokens: the service user
    sees only its project's nodes; a project admin creates and deletes
    its project's nodes; the system reads everything."""
    def baremetal(user: str) -> clients.InProcessCli:
        return _cli(deployment, keystone, 'baremetal', user)

    system_admin = baremetal('system-admin')
    system_admin('node', 'create', '--driver', 'fake-hardware', '--name',
                 'system-node', '-f', 'json')
    # The service project's service user is not elevated by default.
    assert baremetal('ironside')('node', 'list', '-f', 'json') == []
    # A project admin's node is its project's.
    project_admin = baremetal('project-admin')
    node = project_admin('node', 'create', '--driver', 'fake-hardware',
                         '--name', 'tenant-node', '-f', 'json')
    assert node['owner'] == keystone.projects['tenant']
    assert [n['name'] for n in baremetal('project-reader')(
        'node', 'list', '-f', 'json')] == ['tenant-node']
    refused = baremetal('project-member')(
        'node', 'create', '--driver', 'fake-hardware', check=False)
    assert 'HTTP 403' in refused.stderr
    outsider = baremetal('other-admin')
    assert outsider('node', 'list', '-f', 'json') == []
    missing = outsider('node', 'delete', 'tenant-node', check=False)
    assert isinstance(missing, clients.CliFailed)
    assert {'system-node', 'tenant-node'} <= {n['name'] for n in baremetal(
        'system-reader')('node', 'list', '-f', 'json')}
    refused = baremetal('system-member')('node', 'delete', 'tenant-node',
                                         check=False)
    assert 'HTTP 403' in refused.stderr
    project_admin('node', 'delete', 'tenant-node')
    # The system's rules refuse a project's token (scope).
    refused = project_admin('driver', 'list', check=False)
    assert 'HTTP 403' in refused.stderr
