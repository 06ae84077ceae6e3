"""Node management: boot device, NMI, maintenance, VIFs and validation."""

from __future__ import annotations

import pytest

from tests.unit.api.conftest import error_of

VIF = '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e0ff'


def test_boot_device(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/management/boot_device' % node['uuid']
    assert api.get(path).json == {'boot_device': 'disk', 'persistent': True}
    response = api.put(path, {'boot_device': 'pxe', 'persistent': 'false'})
    assert response.status_code == 204
    assert api.get(path).json == {'boot_device': 'pxe', 'persistent': False}
    assert api.get(path + '/supported').json == {
        'supported_boot_devices': ['pxe', 'disk', 'cdrom', 'bios']}
    response = api.put(path, {'boot_device': 'floppy'})
    assert response.status_code == 400
    assert error_of(response) == 'Invalid boot device floppy specified.'
    response = api.put(path, {})
    assert error_of(response) == 'Missing mandatory parameter: boot_device'
    # null is no device either: refused here, never sent to the conductor.
    response = api.put(path, {'boot_device': None})
    assert response.status_code == 400
    assert error_of(response) == 'Missing mandatory parameter: boot_device'


def test_inject_nmi(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/management/inject_nmi' % node['uuid']
    assert api.put(path, {}, version='1.28').status_code == 404
    assert api.put(path, {}).status_code == 204
    response = api.put(path, {'now': True})
    assert error_of(response) == 'Unexpected arguments: now'


def test_maintenance(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/maintenance' % node['uuid']
    assert api.put(path, {'reason': 'broken fan'}).status_code == 202
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['maintenance'] is True
    assert shown['maintenance_reason'] == 'broken fan'
    assert api.delete(path).status_code == 202
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['maintenance'] is False
    assert shown['maintenance_reason'] is None
    assert api.put(path, reason='by query').status_code == 202
    assert api.get('/v1/nodes/%s' % node['uuid']).json[
        'maintenance_reason'] == 'by query'


def test_vifs(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/vifs' % node['uuid']
    assert api.get(path, version='1.27').status_code == 404
    assert api.get(path).json == {'vifs': []}
    assert api.post(path, {'id': VIF}).status_code == 204
    assert api.get(path).json == {'vifs': [{'id': VIF}]}
    response = api.post(path, {'id': VIF})
    assert response.status_code == 409
    assert error_of(response) == ('Unable to attach VIF because VIF %s is '
                                  'already attached to node %s'
                                  % (VIF, node['uuid']))
    response = api.delete('%s/%s' % (path, VIF))
    assert response.status_code == 204
    response = api.delete('%s/%s' % (path, VIF))
    assert response.status_code == 400
    assert error_of(response).startswith('Unable to detach VIF %s from '
                                         'node %s' % (VIF, node['uuid']))


@pytest.mark.parametrize('body,message', [
    ({}, "Schema error for vif: 'id' is a required property"),
    ({'id': 'has space'}, 'Expected UUID or name for id: has space'),
    ({'id': VIF, 'port_uuid': 'a', 'portgroup_uuid': 'b'},
     'Cannot specify both port_uuid and portgroup_uuid'),
    # As Ironic's VIF schema: an object whose id is a string.
    (['x'], "Schema error for vif: ['x'] is not of type 'object'"),
    ({'id': None},
     "Schema error for vif: None is not of type 'string' (at /id)"),
    ({'id': 7}, "Schema error for vif: 7 is not of type 'string' (at /id)"),
])
def test_vif_attach_refusals(api, create_node, body, message):
    node = create_node()
    response = api.post('/v1/nodes/%s/vifs' % node['uuid'], body)
    assert response.status_code == 400
    assert error_of(response) == message


def test_validate(api, create_node):
    node = create_node(driver_info={'fake_validate_fail': ['power']})
    body = api.get('/v1/nodes/%s/validate' % node['uuid']).json
    for interface in ('deploy', 'boot', 'management', 'storage',
                      'firmware'):
        assert body[interface] == {'result': True, 'reason': None}
    assert body['power'] == {
        'result': False, 'reason': 'fake power validation failure '
                                   'requested by driver_info '
                                   'fake_validate_fail'}
    assert api.get('/v1/nodes/validate', node=node['uuid']).json == body
    plain = create_node(firmware_interface='no-firmware')
    assert api.get('/v1/nodes/%s/validate' % plain['uuid']).json[
        'firmware'] == {'result': None, 'reason': 'not supported'}
    response = api.get('/v1/nodes/validate')
    assert error_of(response) == 'Missing mandatory parameter: node'


def test_vif_goes_onto_a_free_port_or_portgroup(api, create_node):
    # As Ironic: a port group (with ports) first, then a PXE port, and a
    # node whose ports are all taken refuses the VIF with 400.
    node = create_node()
    path = '/v1/nodes/%s/vifs' % node['uuid']
    group = api.post('/v1/portgroups', {'node_uuid': node['uuid'],
                                        'name': 'bond0'}).json
    member = api.post('/v1/ports', {'node_uuid': node['uuid'],
                                    'address': '52:54:00:00:00:01',
                                    'portgroup_uuid': group['uuid']}).json
    plain = api.post('/v1/ports', {'node_uuid': node['uuid'],
                                   'address': '52:54:00:00:00:02',
                                   'pxe_enabled': False}).json
    pxe = api.post('/v1/ports', {'node_uuid': node['uuid'],
                                 'address': '52:54:00:00:00:03'}).json
    vifs = ['vif-%d' % i for i in range(4)]
    for vif in vifs[:3]:
        assert api.post(path, {'id': vif}).status_code == 204

    def vif_on(kind, uuid):
        return api.get('/v1/%ss/%s' % (kind, uuid)).json[
            'internal_info'].get('tenant_vif_port_id')

    assert vif_on('portgroup', group['uuid']) == 'vif-0'
    assert vif_on('port', pxe['uuid']) == 'vif-1'
    assert vif_on('port', plain['uuid']) == 'vif-2'
    assert vif_on('port', member['uuid']) is None
    response = api.post(path, {'id': vifs[3]})
    assert response.status_code == 400
    assert error_of(response) == ('Unable to attach VIF vif-3, not enough '
                                  'free physical ports.')
    response = api.post(path, {'id': 'vif-1'})
    assert response.status_code == 409
    assert sorted(v['id'] for v in api.get(path).json['vifs']) == vifs[:3]
    assert api.delete(path + '/vif-1').status_code == 204
    assert vif_on('port', pxe['uuid']) is None
    assert api.post(path, {'id': 'vif-3', 'port_uuid': pxe['uuid']}
                    ).status_code == 204
    assert vif_on('port', pxe['uuid']) == 'vif-3'
