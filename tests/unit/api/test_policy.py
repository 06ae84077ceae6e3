"""Policy with keystone: Ironic's personas, owner and lessee scoping.

The app is built without keystonemiddleware (no keystone here); requests
carry the identity headers auth_token would set after validating a token.
"""

from __future__ import annotations

import pytest

from ironside.api import policy
from ironside.common import context as ironside_context
from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of
from tests.unit.api.conftest import identity

SYSTEM_ADMIN = identity(['admin', 'member', 'reader'], system=True)
SYSTEM_READER = identity(['reader'], system=True)
OWNER_MEMBER = identity(['member', 'reader'], project='p1')
LESSEE_READER = identity(['reader'], project='p2')
NOBODY = identity([], project='p3')


@pytest.fixture
def nodes(keystone, api):
    def _create(**values):
        response = api.post('/v1/nodes', utils.fake_node_values(**values),
                            headers=SYSTEM_ADMIN)
        assert response.status_code == 201, response.text
        return response.json
    owned = _create(name='owned', owner='p1', lessee='p2')
    other = _create(name='other', owner='p9')
    utils.update_node(owned['uuid'], {'last_error': 'BMC 10.0.0.1 down'})
    return owned, other


def _names(api, headers, **params):
    response = api.get('/v1/nodes', headers=headers, **params)
    assert response.status_code == 200, response.text
    return sorted(n['name'] for n in response.json['nodes'])


def test_system_users_see_everything(api, nodes):
    assert _names(api, SYSTEM_ADMIN) == ['other', 'owned']
    assert _names(api, SYSTEM_READER) == ['other', 'owned']
    shown = api.get('/v1/nodes/owned', headers=SYSTEM_READER).json
    assert shown['last_error'] == 'BMC 10.0.0.1 down'


def test_projects_see_their_nodes_only(api, nodes):
    assert _names(api, OWNER_MEMBER) == ['owned']
    assert _names(api, LESSEE_READER) == ['owned']
    assert _names(api, OWNER_MEMBER, detail='True') == ['owned']
    response = api.get('/v1/nodes/other', headers=OWNER_MEMBER)
    assert response.status_code == 404
    assert error_of(response) == 'Node other could not be found.'
    assert _names(api, OWNER_MEMBER, owner='p9') == []
    response = api.get('/v1/nodes', project='p9', headers=OWNER_MEMBER)
    assert response.status_code == 403
    assert error_of(response) == ('Access was denied to the following '
                                  'resource: baremetal:node:list_all')


def test_lessee_sees_redacted_fields(api, nodes):
    utils.update_node(nodes[0]['uuid'], {'reservation': 'conductor-7'})
    shown = api.get('/v1/nodes/owned', headers=LESSEE_READER).json
    assert shown['last_error'] == ('** Value Redacted - Requires '
                                   'baremetal:node:get:last_error '
                                   'permission. **')
    assert shown['reservation'].startswith('** Redacted')
    assert shown['driver_info'] == {
        'content': '** Redacted - requires baremetal:node:get:driver_info '
                   'permission. **'}
    owner_view = api.get('/v1/nodes/owned', headers=OWNER_MEMBER).json
    assert owner_view['last_error'] == 'BMC 10.0.0.1 down'


def test_what_each_persona_may_change(api, nodes):
    extra = [{'op': 'add', 'path': '/extra/a', 'value': 1}]
    owner = [{'op': 'replace', 'path': '/owner', 'value': 'p1'}]
    assert api.patch('/v1/nodes/owned', extra,
                     headers=OWNER_MEMBER).status_code == 200
    response = api.patch('/v1/nodes/owned', owner, headers=OWNER_MEMBER)
    assert response.status_code == 403
    assert error_of(response) == ('Access was denied to the following '
                                  'resource: baremetal:node:update:owner')
    response = api.patch('/v1/nodes/owned', extra, headers=LESSEE_READER)
    assert response.status_code == 403
    response = api.patch('/v1/nodes/owned', extra, headers=SYSTEM_READER)
    assert response.status_code == 403
    assert api.patch('/v1/nodes/owned', owner,
                     headers=SYSTEM_ADMIN).status_code == 200
    response = api.delete('/v1/nodes/other', headers=OWNER_MEMBER)
    assert response.status_code == 404
    response = api.post('/v1/nodes', utils.fake_node_values(),
                        headers=OWNER_MEMBER)
    assert response.status_code == 403
    assert error_of(response) == ('Access was denied to the following '
                                  'resource: baremetal:node:create')


def test_no_role_no_list(api, nodes):
    response = api.get('/v1/nodes', headers=NOBODY)
    assert response.status_code == 403


SERVICE = dict(identity(['service'], project='svc-id'),
               **{'X-Project-Name': 'service'})


def test_service_role_sees_only_its_projects_nodes(api, nodes):
    """Ironic elevates the service project's service users only with
    [DEFAULT]rbac_service_role_elevated_access (off by default)."""
    assert _names(api, SERVICE) == []
    response = api.get('/v1/nodes/other', headers=SERVICE)
    assert response.status_code == 404
    response = api.patch('/v1/nodes/other', [
        {'op': 'add', 'path': '/extra/a', 'value': 1}], headers=SERVICE)
    assert response.status_code == 404
    response = api.get('/v1/nodes', project='p9', headers=SERVICE)
    assert response.status_code == 403
    api.patch('/v1/nodes/other', [{'op': 'replace', 'path': '/owner',
                                   'value': 'svc-id'}], headers=SYSTEM_ADMIN)
    assert _names(api, SERVICE) == ['other']


def test_service_role_elevated_by_the_option(api, nodes, conf):
    conf.set(rbac_service_role_elevated_access=True)
    assert _names(api, SERVICE) == ['other', 'owned']
    assert api.get('/v1/nodes/owned', headers=SERVICE).json[
        'last_error'] == 'BMC 10.0.0.1 down'
    # Only the service project's service users.
    elsewhere = dict(SERVICE, **{'X-Project-Name': 'tenant'})
    assert _names(api, elsewhere) == []
    conf.set(rbac_service_project_name='services')
    assert _names(api, SERVICE) == []


OWNER_ADMIN = identity(['admin', 'member', 'reader'], project='p1')
LESSEE_ADMIN = identity(['admin', 'member', 'reader'], project='p2')


def test_project_admin_creates_and_deletes_its_own_nodes(api, nodes):
    response = api.post('/v1/nodes', utils.fake_node_values(name='mine'),
                        headers=OWNER_ADMIN)
    assert response.status_code == 201, response.text
    assert response.json['owner'] == 'p1'
    response = api.post('/v1/nodes', utils.fake_node_values(owner='p9'),
                        headers=OWNER_ADMIN)
    assert response.status_code == 400
    assert error_of(response) == ('Cannot create a node as a project scoped '
                                  'admin with an owner other than your own '
                                  'project.')
    # A system admin still names any owner.
    response = api.post('/v1/nodes', utils.fake_node_values(
        name='theirs', owner='p9'), headers=SYSTEM_ADMIN)
    assert response.json['owner'] == 'p9'
    # The lessee's admin may see the node but not delete it.
    response = api.delete('/v1/nodes/owned', headers=LESSEE_ADMIN)
    assert response.status_code == 403
    assert error_of(response) == (
        'Access was denied to the following resource: '
        'baremetal:node:delete:self_owned_node')
    assert api.delete('/v1/nodes/other',
                      headers=OWNER_ADMIN).status_code == 404
    assert api.delete('/v1/nodes/mine', headers=OWNER_ADMIN).status_code \
        == 204
    assert api.delete('/v1/nodes/owned', headers=OWNER_ADMIN).status_code \
        == 204
    assert _names(api, SYSTEM_READER) == ['other', 'theirs']


def test_project_admins_manage_no_nodes_without_the_option(api, nodes,
                                                           conf):
    conf.set('api', project_admin_can_manage_own_nodes=False)
    response = api.post('/v1/nodes', utils.fake_node_values(),
                        headers=OWNER_ADMIN)
    assert response.status_code == 403
    response = api.delete('/v1/nodes/owned', headers=OWNER_ADMIN)
    assert response.status_code == 403
    assert error_of(response) == ('Access was denied to the following '
                                  'resource: baremetal:node:delete')


LESSEE_MEMBER = identity(['member', 'reader'], project='p2')


def test_lessee_sets_boot_mode_and_secure_boot_and_reads_indicators(
        api, nodes):
    path = '/v1/nodes/owned/'
    for what, target in (('boot_mode', 'bios'), ('secure_boot', True)):
        response = api.put(path + 'states/' + what, {'target': target},
                           headers=LESSEE_MEMBER)
        assert response.status_code == 202, response.text
        utils.wait_for(lambda w=what, t=target: getattr(
            nodes_db.get_node(nodes[0]['uuid']), w) == t)
    response = api.get(path + 'management/indicators', headers=LESSEE_READER)
    assert response.status_code == 200, response.text
    response = api.get(path + 'management/indicators/led@system',
                       headers=LESSEE_READER)
    assert response.json == {'state': 'OFF'}
    # Setting an indicator stays the owner's and the system's.
    response = api.put(path + 'management/indicators/led@system',
                       {'state': 'ON'}, headers=LESSEE_MEMBER)
    assert response.status_code == 403
    response = api.put(path + 'states/boot_mode', {'target': 'uefi'},
                       headers=LESSEE_READER)
    assert response.status_code == 403


def test_ports_follow_their_node(api, nodes):
    owned, other = nodes
    for node, mac in ((owned, '52:54:00:00:00:01'),
                      (other, '52:54:00:00:00:02')):
        response = api.post('/v1/ports', {'address': mac,
                                          'node_uuid': node['uuid']},
                            headers=SYSTEM_ADMIN)
        assert response.status_code == 201
    listed = api.get('/v1/ports', headers=OWNER_MEMBER).json['ports']
    assert [p['address'] for p in listed] == ['52:54:00:00:00:01']
    other_port = api.get('/v1/ports', headers=SYSTEM_ADMIN).json['ports'][1]
    assert api.get('/v1/ports/%s' % other_port['uuid'],
                   headers=OWNER_MEMBER).status_code == 404


def test_secrets_masked_even_for_system_admin(api, nodes):
    owned, _ = nodes
    api.patch('/v1/nodes/owned', [{'op': 'add',
                                   'path': '/driver_info/ipmi_password',
                                   'value': 'hunter2'}],
              headers=SYSTEM_ADMIN)
    shown = api.get('/v1/nodes/owned', headers=SYSTEM_ADMIN).json
    assert shown['driver_info']['ipmi_password'] == '******'


def test_allocations_are_scoped_to_their_owner(api, nodes):
    response = api.post('/v1/allocations', {'resource_class': 'baremetal'},
                        headers=OWNER_MEMBER)
    assert response.status_code == 201, response.text
    assert response.json['owner'] == 'p1'
    response = api.post('/v1/allocations', {'resource_class': 'baremetal',
                                            'owner': 'p9'},
                        headers=OWNER_MEMBER)
    assert response.status_code == 403
    assert api.get('/v1/allocations', headers=LESSEE_READER).json == {
        'allocations': []}
    assert len(api.get('/v1/allocations', headers=OWNER_MEMBER).json[
        'allocations']) == 1


PROJECT_MANAGER = identity(['manager', 'member', 'reader'], project='p1')
OTHER_MANAGER = identity(['manager', 'member', 'reader'], project='p2')
RUNBOOK = {'name': 'CUSTOM_RB', 'steps': [
    {'interface': 'bios', 'step': 'factory_reset', 'order': 0}]}


def test_runbooks_project_and_system_scoped(api, keystone):
    # A project manager creates runbooks for its own project only.
    response = api.post('/v1/runbooks', dict(RUNBOOK, owner='p2'),
                        headers=PROJECT_MANAGER)
    assert response.status_code == 400
    response = api.post('/v1/runbooks', dict(RUNBOOK, public=True),
                        headers=PROJECT_MANAGER)
    assert response.status_code == 400
    assert api.post('/v1/runbooks', RUNBOOK,
                    headers=OWNER_MEMBER).status_code == 403
    own = api.post('/v1/runbooks', RUNBOOK, headers=PROJECT_MANAGER)
    assert own.status_code == 201, own.text
    assert own.json['owner'] == 'p1'
    public = api.post('/v1/runbooks', dict(RUNBOOK, name='CUSTOM_PUB',
                                           public=True),
                      headers=SYSTEM_ADMIN)
    assert public.json['owner'] is None
    # Another project sees the public one only, and cannot change it.
    names = [r['name'] for r in api.get(
        '/v1/runbooks', headers=OTHER_MANAGER).json['runbooks']]
    assert names == ['CUSTOM_PUB']
    assert api.get('/v1/runbooks/CUSTOM_RB',
                   headers=OTHER_MANAGER).status_code == 403
    assert api.get('/v1/runbooks/CUSTOM_PUB',
                   headers=OTHER_MANAGER).status_code == 200
    assert api.delete('/v1/runbooks/CUSTOM_RB',
                      headers=OTHER_MANAGER).status_code == 403
    # Making a runbook public is for the system.
    response = api.patch('/v1/runbooks/CUSTOM_RB', [
        {'op': 'replace', 'path': '/public', 'value': True}],
        headers=PROJECT_MANAGER)
    assert response.status_code == 403
    response = api.patch('/v1/runbooks/CUSTOM_RB', [
        {'op': 'add', 'path': '/extra/k', 'value': 'v'}],
        headers=PROJECT_MANAGER)
    assert response.status_code == 200, response.text
    assert sorted(r['name'] for r in api.get(
        '/v1/runbooks', headers=SYSTEM_READER).json['runbooks']) == [
        'CUSTOM_PUB', 'CUSTOM_RB']
    assert api.delete('/v1/runbooks/CUSTOM_RB',
                      headers=PROJECT_MANAGER).status_code == 204


def test_volume_follows_its_node_and_target_properties_are_redacted(
        api, nodes):
    owned, other = nodes
    utils.update_node(owned['uuid'], {'power_state': 'power off'})
    target = api.post('/v1/volume/targets', {
        'node_uuid': owned['uuid'], 'volume_type': 'iscsi',
        'boot_index': 0, 'volume_id': 'v1',
        'properties': {'auth_password': 'secret'}}, headers=SYSTEM_ADMIN)
    assert target.status_code == 201, target.text
    path = '/v1/volume/targets/%s' % target.json['uuid']
    # Secrets are masked even for those who may see the properties.
    assert api.get(path, headers=SYSTEM_READER).json['properties'] == {
        'auth_password': '******'}
    shown = api.get(path, headers=OWNER_MEMBER).json
    assert shown['properties'] == {'redacted_contents': (
        '** Value redacted: Requires permission '
        'baremetal:volume:view_target_properties access. Permission '
        'denied. **')}
    listed = api.get('/v1/volume/targets', detail='True',
                     headers=OWNER_MEMBER).json['targets']
    assert [t['properties'] for t in listed] == [shown['properties']]
    # Another project sees neither the node's targets nor the node.
    outsider = identity(['member', 'reader'], project='p9')
    assert api.get(path, headers=outsider).status_code == 404
    assert api.get('/v1/volume/targets', headers=outsider).json == {
        'targets': []}
    assert api.delete(path, headers=LESSEE_READER).status_code == 403
    assert api.delete(path, headers=SYSTEM_ADMIN).status_code == 204


# Ironic's roles before scopes: a baremetal_admin of the baremetal project.
LEGACY_ADMIN = dict(identity(['baremetal_admin'], project='p5'),
                    **{'X-Project-Name': 'baremetal',
                       'X-Project-Domain-Id': 'default'})


def test_old_defaults_come_back_without_enforce_new_defaults(api, nodes,
                                                            conf):
    response = api.get('/v1/nodes', headers=LEGACY_ADMIN)
    assert response.status_code == 403
    policy.get_enforcer()       # registers [oslo_policy]
    conf.set('oslo_policy', enforce_new_defaults=False)
    policy.reset()
    assert _names(api, LEGACY_ADMIN) == ['other', 'owned']
    response = api.post('/v1/nodes', utils.fake_node_values(name='old'),
                        headers=LEGACY_ADMIN)
    assert response.status_code == 201, response.text
    assert api.delete('/v1/nodes/old',
                      headers=LEGACY_ADMIN).status_code == 204
    assert policy.evaluate('baremetal:node:vendor_passthru',
                           policy_context(LEGACY_ADMIN),
                           policy.node_target('p1', None))
    # Scopes still hold: the system's rules refuse a project's token.
    assert not policy.evaluate('baremetal:events:post',
                               policy_context(LEGACY_ADMIN))


def policy_context(headers: dict):
    """The request context the API makes of keystone's headers."""
    environ = {'HTTP_' + name.upper().replace('-', '_'): value
               for name, value in headers.items()}
    return ironside_context.RequestContext.from_environ(environ)


@pytest.mark.parametrize('rule, allowed, refused', [
    ('baremetal:node:vendor_passthru', [SYSTEM_ADMIN], [
        SYSTEM_READER, OWNER_ADMIN, identity(['member'], system=True)]),
    ('baremetal:driver:vendor_passthru', [SYSTEM_ADMIN], [OWNER_ADMIN]),
    ('baremetal:events:post', [SYSTEM_ADMIN],
     [identity(['member', 'reader'], system=True), OWNER_ADMIN]),
    ('baremetal:node:set_provision_state:service_steps',
     [SYSTEM_ADMIN, OWNER_MEMBER, LESSEE_ADMIN],
     [LESSEE_MEMBER, LESSEE_READER, SYSTEM_READER]),
    ('baremetal:node:ipa_heartbeat', [{}, NOBODY], []),
    ('baremetal:driver:ipa_lookup', [{}, NOBODY], []),
    ('baremetal:driver:ipa_continue_inspection', [{}, NOBODY], []),
    ('baremetal:node:vmedia:attach', [OWNER_MEMBER, LESSEE_MEMBER],
     [LESSEE_READER]),
])
def test_ironic_rules_with_their_defaults(keystone, rule, allowed, refused):
    target = policy.node_target('p1', 'p2')
    for headers in allowed:
        assert policy.evaluate(rule, policy_context(headers), target), \
            headers
    for headers in refused:
        assert not policy.evaluate(rule, policy_context(headers), target), \
            headers
