"""The URL forms Ironic 39 accepts, and which error comes first.

Ironic routes with pecan's object dispatch: paths without ``/v1``, a
``.json`` suffix below 1.91, the node after its sub-controller
(``/v1/nodes/states/console/{node}``) and a chassis' nodes all reach a
handler. Where a request is wrong in more than one way, the status is the
one Ironic's controllers raise first.
"""

from __future__ import annotations

import pytest

from ironside.api import app as api_app
from tests.unit.api.conftest import ApiClient
from tests.unit.api.conftest import error_of
from tests.unit.api.conftest import identity

MISSING = 'eeeeeeee-cccc-aaaa-bbbb-cccccccccccc'


@pytest.fixture
def node(create_node):
    return create_node(name='urls')


# 1. Paths without the /v1 prefix.

def test_paths_without_v1_are_read_under_v1(api, node):
    uuid = node['uuid']
    port = api.post('/v1/ports', {'node_uuid': uuid,
                                  'address': '52:54:00:00:00:a1'})
    assert port.status_code == 201, port.text
    assert api.get('/nodes/%s' % uuid).json['uuid'] == uuid
    found = api.get('/nodes/detail', instance_uuid=MISSING)
    assert found.status_code == 200 and found.json['nodes'] == []
    ports = api.get('/ports/detail', address='52:54:00:00:00:a1')
    assert [p['uuid'] for p in ports.json['ports']] == [port.json['uuid']]
    assert api.get('/drivers/fake-hardware/properties').status_code == 200
    # The node has no allocation: the allocation handler's 404, not the
    # router's.
    allocation = api.get('/nodes/%s/allocation' % uuid)
    assert allocation.status_code == 404
    assert 'Allocation of node' in error_of(allocation)
    # Writes too.
    changed = api.patch('/nodes/%s' % uuid, [
        {'op': 'add', 'path': '/extra/via', 'value': 'no-prefix'}])
    assert changed.status_code == 200, changed.text
    assert changed.json['extra'] == {'via': 'no-prefix'}


def test_root_v1_and_unknown_top_level_segments(api):
    assert api.get('/').json['name'] == 'OpenStack Ironic API'
    assert api.get('/v1').json['id'] == 'v1'
    assert api.get('/v1/').json['id'] == 'v1'
    assert api.request('POST', '/v1', body={}).status_code == 405
    for path in ('/foo', '/v1/foo', '/foo/bar', '/v1/v1/nodes'):
        response = api.get(path)
        assert response.status_code == 404, path
        assert error_of(response)
    # Paths of their own are not moved under /v1.
    assert api.get('/openapi.json').status_code == 200


def test_paths_outside_the_router_are_left_alone(conf, rpc, tmp_path):
    """Boot files are a static route, not in the router: a path under
    /boot must not be read as /v1/boot."""
    conf.set(group='deploy', serve_boot_files=True,
             http_root=str(tmp_path))
    (tmp_path / 'boot.ipxe').write_text('#!ipxe\n')
    api = ApiClient(api_app.build_app(rpc))
    served = api.get('/boot/boot.ipxe')
    assert served.status_code == 200
    assert served.text == '#!ipxe\n'
    assert api.get('/boot/absent.ipxe').status_code == 404
    assert api.get('/boot/boot.ipxe.json', version='1.90'
                   ).status_code == 404


# 2. The .json suffix, below 1.91.

def test_json_suffix_is_dropped_below_1_91(api, node):
    uuid = node['uuid']
    port_group = api.post('/v1/portgroups', {
        'node_uuid': uuid, 'address': '52:54:00:00:00:a2',
        'name': 'pg-urls'}).json['uuid']
    template = api.post('/v1/deploy_templates', {
        'name': 'CUSTOM_URLS', 'steps': [{
            'interface': 'deploy', 'step': 'deploy', 'args': {},
            'priority': 10}]}).json['uuid']
    allocation = api.post('/v1/allocations',
                          {'resource_class': 'urls'}).json['uuid']
    for path, uuid_of in (('/v1/nodes/%s' % uuid, uuid),
                          ('/v1/nodes/urls', uuid),
                          ('/v1/portgroups/%s' % port_group, port_group),
                          ('/v1/deploy_templates/%s' % template, template),
                          ('/v1/allocations/%s' % allocation, allocation)):
        shown = api.get(path + '.json', version='1.90')
        assert shown.status_code == 200, (path, shown.text)
        assert shown.json['uuid'] == uuid_of
        # From 1.91 the suffix is part of the identity.
        assert api.get(path + '.json').status_code in (400, 404), path
    assert api.get('/v1/nodes.json', version='1.90').json['nodes']
    assert api.get('/nodes.json', version='1.90').json['nodes']
    assert api.get('/nodes/%s.json' % uuid, version='1.90'
                   ).json['uuid'] == uuid
    changed = api.patch('/v1/nodes/%s.json' % uuid, [
        {'op': 'add', 'path': '/extra/a', 'value': 1}], version='1.90')
    assert changed.status_code == 200, changed.text


def test_json_suffix_needs_ironic_version_header(api, node):
    """Ironic's middleware reads only X-OpenStack-Ironic-API-Version."""
    assert api.get('/v1/nodes/%s.json' % node['uuid'],
                   version=None).status_code == 404
    assert api.get('/v1/nodes/%s.json' % node['uuid'], version=None,
                   headers={'OpenStack-API-Version': 'baremetal 1.90'}
                   ).status_code == 404


def test_names_ending_in_json_are_still_found(api, create_node):
    named = create_node(name='node.json')
    # Below 1.91: "node" is looked up first, then "node.json".
    shown = api.get('/v1/nodes/node.json', version='1.90')
    assert shown.status_code == 200, shown.text
    assert shown.json['uuid'] == named['uuid']
    shown = api.get('/v1/nodes/node.json')
    assert shown.json['uuid'] == named['uuid']


def test_other_names_ending_in_json_are_still_found(api, node):
    """Ironic retries with the dropped suffix for port groups,
    allocations and deploy templates too."""
    group = api.post('/v1/portgroups', {
        'node_uuid': node['uuid'], 'address': '52:54:00:00:00:a3',
        'name': 'pg.json'})
    assert group.status_code == 201, group.text
    allocation = api.post('/v1/allocations', {'resource_class': 'urls',
                                              'name': 'alloc.json'})
    assert allocation.status_code == 201, allocation.text
    for path, uuid in (('/v1/portgroups/pg.json', group.json['uuid']),
                       ('/v1/allocations/alloc.json',
                        allocation.json['uuid'])):
        shown = api.get(path, version='1.90')
        assert shown.status_code == 200, (path, shown.text)
        assert shown.json['uuid'] == uuid
    template = api.post('/v1/deploy_templates', {
        'name': 'CUSTOM_URLS', 'steps': [{
            'interface': 'deploy', 'step': 'deploy', 'args': {},
            'priority': 10}]}).json['uuid']
    # A trait-like name cannot hold a dot: its UUID with the suffix.
    path = '/v1/deploy_templates/%s.json' % template
    assert api.get(path, version='1.90').json['uuid'] == template
    assert api.delete(path, version='1.90').status_code == 204
    assert api.get('/v1/deploy_templates/%s' % template).status_code == 404


def test_openapi_json_keeps_its_name(api):
    assert api.get('/openapi.json', version='1.90').status_code == 200


# 3. The node after its sub-controller, as pecan dispatches it.

def test_node_after_its_sub_controller(api, node):
    uuid = node['uuid']
    console = api.get('/v1/nodes/states/console/%s' % uuid)
    assert console.status_code == 200, console.text
    assert console.json == api.get(
        '/v1/nodes/%s/states/console' % uuid).json
    assert api.get('/v1/nodes/states/%s' % uuid).json['power_state'] == \
        api.get('/v1/nodes/%s/states' % uuid).json['power_state']
    assert api.get('/v1/nodes/states/%s/console' % uuid).status_code == 200
    assert api.get('/nodes/states/console/urls').status_code == 200
    supported = api.get('/v1/nodes/management/boot_device/%s/supported'
                        % uuid)
    assert supported.status_code == 200, supported.text
    maintenance = api.put('/v1/nodes/maintenance/%s' % uuid,
                          {'reason': 'via pecan form'})
    assert maintenance.status_code == 202, maintenance.text
    assert api.get('/v1/nodes/%s' % uuid).json['maintenance'] is True


def test_sub_controller_without_a_node(api):
    assert api.get('/v1/nodes/states/console').status_code == 404
    response = api.put('/v1/nodes/states/power', {'target': 'power on'})
    assert response.status_code == 400
    assert error_of(response) == 'Missing mandatory parameter: node_ident'


# 4. A chassis' nodes.

def test_chassis_nodes(api, create_node):
    chassis = api.post('/v1/chassis', {}).json['uuid']
    inside = [create_node(chassis_uuid=chassis)['uuid'] for _ in range(2)]
    create_node()       # elsewhere
    listed = api.get('/v1/chassis/%s/nodes' % chassis)
    assert listed.status_code == 200, listed.text
    assert sorted(n['uuid'] for n in listed.json['nodes']) == sorted(inside)
    assert 'next' not in listed.json
    page = api.get('/v1/chassis/%s/nodes' % chassis, limit=1).json
    assert len(page['nodes']) == 1 and 'next' in page
    assert 'chassis_uuid=%s' % chassis in page['next']
    detail = api.get('/v1/chassis/%s/nodes/detail' % chassis).json
    assert sorted(n['uuid'] for n in detail['nodes']) == sorted(inside)
    assert 'driver_info' in detail['nodes'][0]
    assert api.get('/chassis/%s/nodes' % chassis).status_code == 200


def test_chassis_nodes_errors(api, node):
    chassis = api.post('/v1/chassis', {}).json['uuid']
    missing = api.get('/v1/chassis/%s/nodes' % MISSING)
    assert missing.status_code == 404
    assert MISSING in error_of(missing)
    assert api.get('/v1/nodes', chassis_uuid=MISSING).status_code == 404
    bad = api.get('/v1/chassis/not-a-uuid/nodes')
    assert bad.status_code == 400
    assert error_of(bad) == 'Expected UUID for chassis_uuid: not-a-uuid'
    nameless = api.get('/v1/chassis/nodes')
    assert nameless.status_code == 400
    assert error_of(nameless) == 'Chassis id not specified.'
    for method, path in (
            ('POST', '/v1/chassis/nodes'),
            ('POST', '/v1/chassis/%s/nodes' % chassis),
            ('PATCH', '/v1/chassis/%s/nodes' % chassis),
            ('DELETE', '/v1/chassis/%s/nodes' % chassis),
            ('GET', '/v1/chassis/%s/nodes/%s' % (chassis, node['uuid'])),
            ('DELETE', '/v1/chassis/%s/nodes/%s' % (chassis,
                                                    node['uuid']))):
        response = api.request(method, path, body={})
        assert response.status_code == 400, (method, path)
        assert error_of(response) == 'Malformed request URI.'
    assert api.get('/v1/nodes/%s' % node['uuid']).status_code == 200


# 5. A route newer than the request's microversion.

@pytest.mark.parametrize('method,path', [
    ('POST', '/v1/deploy_templates'),
    ('PATCH', '/v1/deploy_templates/CUSTOM_X'),
    ('DELETE', '/v1/deploy_templates/CUSTOM_X')])
def test_deploy_template_writes_below_1_55_are_405(api, method, path):
    response = api.request(method, path, body={}, version='1.54')
    assert response.status_code == 405, response.text
    assert error_of(response)
    assert api.get(path, version='1.54').status_code == 404


def test_allocation_delete_below_1_52_is_405(api):
    response = api.delete('/v1/allocations/%s' % MISSING, version='1.51')
    assert response.status_code == 405
    assert api.get('/v1/allocations/%s' % MISSING,
                   version='1.51').status_code == 404


def test_node_traits_below_1_37_answer_as_ironic(api, node):
    path = '/v1/nodes/%s/traits' % node['uuid']
    assert api.get(path, version='1.36').status_code == 406
    assert api.put(path, {'traits': []}, version='1.36').status_code == 405
    assert api.put(path + '/CUSTOM_A', version='1.36').status_code == 405
    assert api.delete(path, version='1.36').status_code == 404
    assert api.delete(path + '/CUSTOM_A', version='1.36').status_code == 404
    # The node is found first: an unknown one is 404 on GET.
    assert api.get('/v1/nodes/%s/traits' % MISSING,
                   version='1.36').status_code == 404


# 6. Volume connectors and targets named by something that is no UUID.

@pytest.mark.parametrize('kind', ['connector', 'target'])
def test_volume_ids_that_are_no_uuid_are_400(api, kind):
    path = '/v1/volume/%ss/not-a-uuid' % kind
    for response in (api.get(path), api.delete(path),
                     api.patch(path, [{'op': 'add', 'path': '/extra/a',
                                       'value': 1}])):
        assert response.status_code == 400
        assert error_of(response) == \
            'Expected UUID for %s_uuid: not-a-uuid' % kind
    # Below 1.32 the route is not there at all.
    assert api.get(path, version='1.31').status_code == 404


# 7. An incomplete path.

def test_heartbeat_without_a_node_is_400(api):
    for path in ('/v1/heartbeat', '/v1/heartbeat/', '/heartbeat'):
        response = api.post(path, {'callback_url': 'http://1.2.3.4:9999'})
        assert response.status_code == 400, path
        assert error_of(response) == \
            'Missing mandatory parameter: node_ident'
    assert api.get('/v1/heartbeat').status_code == 405


# 8. An unknown state of a node.

@pytest.mark.parametrize('method', ['GET', 'PUT', 'POST', 'DELETE'])
def test_unknown_node_state_is_405(api, node, method):
    response = api.request(method, '/v1/nodes/%s/states/bogus'
                           % node['uuid'], body={})
    assert response.status_code == 405
    assert error_of(response)


# 9. The policy before the version, where Ironic checks it first.

@pytest.mark.parametrize('setting,body', [
    ('boot_mode', {'target': 'uefi'}), ('secure_boot', {'target': True})])
def test_boot_settings_check_policy_before_version(api, keystone, setting,
                                                   body):
    admin = identity(['admin', 'member', 'reader'], system=True)
    reader = identity(['reader'], system=True)
    created = api.post('/v1/nodes', {'driver': 'fake-hardware'},
                       headers=admin)
    assert created.status_code == 201, created.text
    path = '/v1/nodes/%s/states/%s' % (created.json['uuid'], setting)
    refused = api.put(path, body, version='1.75', headers=reader)
    assert refused.status_code == 403, refused.text
    absent = api.put(path, body, version='1.75', headers=admin)
    assert absent.status_code == 404
    assert error_of(absent) == \
        'This endpoint is supported starting with the API version 1.76'
    # A node nobody can see is 404 as before.
    assert api.put('/v1/nodes/%s/states/%s' % (MISSING, setting), body,
                   version='1.75', headers=admin).status_code == 404


def test_deploy_template_version_before_policy(api, keystone):
    """Ironic's deploy templates controller checks the version first."""
    reader = identity(['reader'], system=True)
    assert api.post('/v1/deploy_templates', {}, version='1.54',
                    headers=reader).status_code == 405
    assert api.post('/v1/deploy_templates', {'name': 'CUSTOM_R', 'steps': []},
                    headers=reader).status_code == 403
