"""Drivers, conductors, deploy templates and chassis."""

from __future__ import annotations

import pytest

from tests.unit.api.conftest import error_of

STEP = {'interface': 'raid', 'step': 'apply_configuration',
        'args': {'raid_config': {'logical_disks': []}}, 'priority': 150}


def test_drivers(api):
    drivers = {d['name']: d for d in api.get('/v1/drivers').json['drivers']}
    driver = drivers['fake-hardware']
    assert driver['hosts'] == ['test-conductor']
    assert driver['type'] == 'dynamic'
    assert 'default_power_interface' not in driver
    assert driver['properties'][0]['href'].endswith(
        '/v1/drivers/fake-hardware/properties')
    detail = {d['name']: d for d in api.get(
        '/v1/drivers', detail='True').json['drivers']}['fake-hardware']
    assert detail['default_power_interface'] == 'fake'
    assert detail['enabled_raid_interfaces'] == ['fake', 'no-raid']
    assert api.get('/v1/drivers', type='classic').json == {'drivers': []}
    response = api.get('/v1/drivers', type='new')
    assert error_of(response) == ('"type" filter must be one of "classic" '
                                  'or "dynamic", if specified.')
    shown = api.get('/v1/drivers/fake-hardware').json
    assert shown['default_deploy_interface'] == 'fake'
    assert 'default_bios_interface' not in api.get(
        '/v1/drivers/fake-hardware', version='1.39').json
    assert set(api.get('/v1/drivers/fake-hardware', fields='name,hosts'
                       ).json) == {'name', 'hosts', 'links'}
    assert api.get('/v1/drivers/fake-hardware', fields='name',
                   version='1.76').status_code == 406
    properties = api.get('/v1/drivers/fake-hardware/properties').json
    assert 'fake_step_delay' in properties
    response = api.get('/v1/drivers/nope')
    assert response.status_code == 404
    assert error_of(response) == ('Could not find the following driver(s) '
                                  'or hardware type(s): nope.')


def test_conductors(api):
    assert api.get('/v1/conductors', version='1.48').status_code == 404
    (conductor,) = api.get('/v1/conductors').json['conductors']
    assert conductor['hostname'] == 'test-conductor'
    assert conductor['alive'] is True
    assert set(conductor) == {'hostname', 'conductor_group', 'alive',
                              'links'}
    detail = api.get('/v1/conductors', detail='True').json['conductors'][0]
    assert 'fake-hardware' in detail['drivers']
    shown = api.get('/v1/conductors/test-conductor').json
    assert shown['drivers'] == detail['drivers']
    assert shown['created_at'].endswith('+00:00')
    assert api.get('/v1/conductors/nope').status_code == 404


def test_deploy_templates(api):
    path = '/v1/deploy_templates'
    assert api.get(path, version='1.54').status_code == 404
    response = api.post(path, {'name': 'CUSTOM_RAID1', 'steps': [STEP],
                               'extra': {'k': 'v'}})
    assert response.status_code == 201, response.text
    template = response.json
    assert response.headers['location'].endswith(
        '/v1/deploy_templates/%s' % template['uuid'])
    assert template['steps'] == [STEP]
    assert api.get(path).json['deploy_templates'] == [
        {'uuid': template['uuid'], 'name': 'CUSTOM_RAID1',
         'links': template['links']}]
    assert api.get(path, detail='True').json['deploy_templates'][0][
        'steps'] == [STEP]
    assert api.get(path + '/CUSTOM_RAID1').json['uuid'] == template['uuid']
    response = api.patch(path + '/CUSTOM_RAID1', [
        {'op': 'replace', 'path': '/name', 'value': 'CUSTOM_RAID10'},
        {'op': 'replace', 'path': '/steps/0/priority', 'value': 10}])
    assert response.status_code == 200, response.text
    assert response.json['name'] == 'CUSTOM_RAID10'
    assert response.json['steps'][0]['priority'] == 10
    response = api.post(path, {'name': 'CUSTOM_RAID10', 'steps': [STEP]})
    assert response.status_code == 409
    assert api.delete(path + '/CUSTOM_RAID10').status_code == 204
    assert api.get(path + '/CUSTOM_RAID10').status_code == 404


@pytest.mark.parametrize('body,message', [
    ({'name': 'raid1', 'steps': [STEP]},
     "Schema error for deploy template: 'raid1' is not valid under any of "
     "the given schemas (at /name)"),
    ({'name': 'CUSTOM_A', 'steps': []},
     "Schema error for deploy template: [] should be non-empty"),
    ({'name': 'CUSTOM_A', 'steps': [dict(STEP, interface='disk')]},
     "Schema error for deploy template: 'disk' is not one of"),
    ({'name': 'CUSTOM_A', 'steps': [dict(STEP, priority=-1)]},
     "Schema error for deploy template"),
    ({'name': 'CUSTOM_A', 'steps': [STEP, STEP]},
     'Deploy template invalid: duplicate deploy steps for '
     'raid.apply_configuration.'),
    ({'name': 'CUSTOM_A'}, "Schema error for deploy template: 'steps' is "
                           "a required property"),
])
def test_deploy_template_refusals(api, body, message):
    response = api.post('/v1/deploy_templates', body)
    assert response.status_code == 400
    assert error_of(response).startswith(message)


def test_deploy_template_drives_the_deploy(api, available_node):
    from tests.utils import wait_for
    api.post('/v1/deploy_templates', {'name': 'CUSTOM_RAID1', 'steps': [
        {'interface': 'raid', 'step': 'apply_configuration',
         'args': {'raid_config': {'logical_disks': [
             {'size_gb': 10, 'raid_level': '1'}]}}, 'priority': 150}]})
    node = available_node()
    path = '/v1/nodes/%s' % node['uuid']
    api.patch(path, [{'op': 'add', 'path': '/instance_info/traits',
                      'value': ['CUSTOM_RAID1']}])
    api.put(path + '/states/provision', {'target': 'active'})
    wait_for(lambda: api.get(path).json['provision_state'] == 'active')
    assert api.get(path).json['raid_config'] == {'logical_disks': [
        {'size_gb': 10, 'raid_level': '1'}]}


def test_chassis(api, create_node):
    response = api.post('/v1/chassis', {'description': 'rack 1'})
    assert response.status_code == 201
    chassis = response.json
    assert chassis['nodes'][0]['href'].endswith(
        '/v1/chassis/%s/nodes' % chassis['uuid'])
    path = '/v1/chassis/%s' % chassis['uuid']
    assert api.get('/v1/chassis').json['chassis'][0]['description'] == \
        'rack 1'
    node = create_node(chassis_uuid=chassis['uuid'])
    assert node['chassis_uuid'] == chassis['uuid']
    response = api.delete(path)
    assert response.status_code == 400
    assert error_of(response) == (
        'Cannot complete the requested action because chassis %s contains '
        'nodes.' % chassis['uuid'])
    response = api.patch('/v1/nodes/%s' % node['uuid'], [
        {'op': 'remove', 'path': '/chassis_uuid'}], version='1.24')
    assert response.status_code == 406
    api.patch('/v1/nodes/%s' % node['uuid'], [
        {'op': 'remove', 'path': '/chassis_uuid'}])
    response = api.patch(path, [{'op': 'replace', 'path': '/description',
                                 'value': 'rack 2'}])
    assert response.json['description'] == 'rack 2'
    assert api.delete(path).status_code == 204


def test_openapi_document_is_served(api):
    body = api.get('/openapi.json').json
    assert body['openapi'].startswith('3.')


def test_chassis_without_a_body_or_with_null_fields(api):
    # As Ironic: no body is an empty one, and a null field is none.
    response = api.post('/v1/chassis')
    assert response.status_code == 201, response.text
    assert response.json['description'] is None
    response = api.post('/v1/chassis', {'description': None, 'extra': None})
    assert response.status_code == 201, response.text
    assert response.json['extra'] == {}
