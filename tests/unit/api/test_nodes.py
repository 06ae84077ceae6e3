"""/v1/nodes: create, show, list, update and delete, at each version."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of

NOVA_FIELDS = ('uuid,power_state,target_power_state,provision_state,'
               'target_provision_state,last_error,maintenance,properties,'
               'instance_uuid,traits,resource_class')


# Create

def test_create_answers_201_with_location_and_the_node(api):
    response = api.post('/v1/nodes', utils.fake_node_values(name='node-1'))
    assert response.status_code == 201
    node = response.json
    assert response.headers['location'] == \
        'http://falconframework.org/v1/nodes/%s' % node['uuid']
    assert node['name'] == 'node-1'
    assert node['provision_state'] == 'enroll'
    assert node['power_interface'] == 'fake'
    assert node['network_interface'] == 'noop'
    assert node['traits'] == []
    assert node['conductor'] == 'test-conductor'
    assert node['links'][0]['href'].endswith('/v1/nodes/' + node['uuid'])
    assert node['states'][0]['href'].endswith(node['uuid'] + '/states')


def test_create_before_1_11_is_available(api):
    response = api.post('/v1/nodes', {'driver': 'fake-hardware'},
                        version='1.10')
    assert response.status_code == 201
    assert response.json['provision_state'] == 'available'


def test_create_with_uuid_and_boolean_strings(api):
    uuid = '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'
    response = api.post('/v1/nodes', {'driver': 'fake-hardware',
                                      'uuid': uuid, 'maintenance': 'true',
                                      'automated_clean': 'False'})
    assert response.status_code == 201, response.text
    assert response.json['uuid'] == uuid
    assert response.json['maintenance'] is True
    assert response.json['automated_clean'] is False


@pytest.mark.parametrize('body,message', [
    ({'name': 'x'}, "Schema error for node: 'driver' is a required "
                    "property"),
    ({'driver': 'fake-hardware', 'colour': 'red'},
     "Schema error for node: Additional properties are not allowed "
     "('colour' was unexpected)"),
    ({'driver': 'fake-hardware', 'properties': 'big'},
     "Schema error for node: 'big' is not of type 'object', 'null' "
     "(at /properties)"),
    ({'driver': 'fake-hardware', 'uuid': 'nope'},
     'Expected UUID for uuid: nope'),
    ({'driver': 'fake-hardware', 'maintenance': 'perhaps'},
     "Invalid maintenance: Unrecognized value 'perhaps'"),
    ({'driver': 'fake-hardware', 'name': 'bad name'},
     "Cannot create node with invalid name 'bad name'"),
    ({'driver': 'fake-hardware', 'name': 'detail'},
     'The word "detail" is reserved and can not be used as a node name.'),
    ({'driver': 'no-such-driver'},
     'No valid host was found. Reason: No conductor service registered '
     'which supports driver no-such-driver for conductor group "".'),
    ({'driver': 'fake-hardware', 'power_interface': 'no-such-power'},
     "Could not find the following interface in the "
     "'ironside.hardware.interfaces.power' entrypoint: no-such-power."),
    ({'driver': 'fake-hardware', 'chassis_uuid':
      '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'},
     'Chassis 0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001 could not be found.'),
])
def test_create_refuses_bad_input_with_400(api, body, message):
    response = api.post('/v1/nodes', body)
    assert response.status_code == 400
    assert error_of(response).startswith(message)
    assert api.get('/v1/nodes').json['nodes'] == []


def test_create_refuses_newer_fields_with_406(api):
    response = api.post('/v1/nodes', {'driver': 'fake-hardware',
                                      'owner': 'p1'}, version='1.49')
    assert response.status_code == 406
    assert error_of(response) == \
        'Field owner needs API version 1.50 or newer'
    response = api.post('/v1/nodes', {'driver': 'fake-hardware',
                                      'name': 'n'}, version='1.4')
    assert response.status_code == 406


def test_create_duplicate_name_is_409(api, create_node):
    create_node(name='twin')
    response = api.post('/v1/nodes', utils.fake_node_values(name='twin'))
    assert response.status_code == 409
    assert error_of(response) == 'A node with name twin already exists.'


def test_create_refuses_body_that_is_not_an_object(api):
    response = api.post('/v1/nodes', ['driver'])
    assert response.status_code == 400
    assert "is not of type 'object'" in error_of(response)


# Show and versioned fields

def test_show_by_uuid_and_name(api, create_node):
    node = create_node(name='by-name')
    assert api.get('/v1/nodes/by-name').json['uuid'] == node['uuid']
    assert api.get('/v1/nodes/%s' % node['uuid']).json['name'] == 'by-name'


def test_names_need_1_5(api, create_node):
    create_node(name='old')
    response = api.get('/v1/nodes/old', version='1.4')
    assert response.status_code == 404
    assert error_of(response) == 'Node old could not be found.'


def test_invalid_identity_is_400(api):
    response = api.get('/v1/nodes/bad%20name')
    assert response.status_code == 400
    assert error_of(response) == \
        'Expected a UUID or logical name but received bad name.'


def test_deploy_step_and_failure_reason_from_1_44(api, create_node):
    node = create_node()
    at_43 = api.get('/v1/nodes/%s' % node['uuid'], version='1.43').json
    at_44 = api.get('/v1/nodes/%s' % node['uuid'], version='1.44').json
    for field in ('deploy_step', 'failure_reason'):
        assert field not in at_43
        assert field in at_44
    assert 'fault' in at_43 and 'conductor_group' not in at_43


@pytest.mark.parametrize('field,minor', [
    ('name', 5), ('driver_internal_info', 3), ('clean_step', 7),
    ('raid_config', 12), ('resource_class', 21), ('traits', 37),
    ('conductor', 49), ('owner', 50), ('allocation_uuid', 52),
    ('lessee', 65), ('network_data', 66), ('boot_mode', 75),
    ('shard', 82), ('parent_node', 83), ('firmware_interface', 86),
    ('service_step', 87), ('disable_power_off', 95),
    ('instance_name', 104), ('health', 109), ('boot_interface', 31)])
def test_fields_appear_at_their_version(api, create_node, field, minor):
    node = create_node()
    path = '/v1/nodes/%s' % node['uuid']
    assert field not in api.get(path, version='1.%d' % (minor - 1)).json
    assert field in api.get(path, version='1.%d' % minor).json


def test_legacy_state_names(api, available_node):
    node = available_node()
    path = '/v1/nodes/%s' % node['uuid']
    assert api.get(path, version='1.1').json['provision_state'] is None
    assert api.get(path, version='1.2').json['provision_state'] == \
        'available'


def test_show_fields(api, create_node):
    node = create_node(name='f')
    body = api.get('/v1/nodes/f', fields='uuid,traits,properties').json
    assert set(body) == {'uuid', 'traits', 'properties', 'links'}
    response = api.get('/v1/nodes/f', fields='uuid,bogus')
    assert response.status_code == 400
    assert error_of(response) == 'Field(s) "bogus" are not valid'
    response = api.get('/v1/nodes/f', fields='uuid', version='1.7')
    assert response.status_code == 406
    response = api.get('/v1/nodes/f', fields='uuid,lessee', version='1.64')
    assert response.status_code == 406
    assert error_of(response) == \
        'Field(s) lessee need a newer API version than 1.64'
    assert node['uuid'] == body['uuid']


def test_secrets_are_masked(api, rpc, context, create_node):
    node = create_node(driver_info={'ipmi_password': 'hunter2',
                                    'redfish_username': 'admin',
                                    'snmp_auth_key': 'k',
                                    'nested': {'token': 't'}})
    body = api.get('/v1/nodes/%s' % node['uuid']).json
    assert body['driver_info'] == {'ipmi_password': '******',
                                   'redfish_username': 'admin',
                                   'snmp_auth_key': '******',
                                   'nested': {'token': '******'}}
    assert 'hunter2' not in api.get('/v1/nodes/detail').text
    assert node['driver_info']['ipmi_password'] == '******'
    utils.update_node(node['uuid'], {'instance_info': {
        'configdrive': 'H4sIA', 'image_source': 'http://i',
        'image_url': 'http://secret-url'}})
    info = api.get('/v1/nodes/%s' % node['uuid']).json['instance_info']
    assert info == {'configdrive': '******', 'image_source': 'http://i',
                    'image_url': '******'}


# Lists

def test_list_defaults_and_detail(api, create_node):
    create_node(name='a')
    create_node(name='b')
    nodes = api.get('/v1/nodes').json['nodes']
    assert [n['name'] for n in nodes] == ['a', 'b']
    assert set(nodes[0]) == {'uuid', 'name', 'instance_uuid', 'maintenance',
                             'power_state', 'provision_state', 'links'}
    detail = api.get('/v1/nodes/detail').json['nodes']
    assert 'driver_info' in detail[0] and 'ports' in detail[0]
    assert api.get('/v1/nodes', detail='True').json == {'nodes': detail}
    response = api.get('/v1/nodes', detail='True', version='1.42')
    assert response.status_code == 400
    assert error_of(response) == \
        'Invalid query parameter ?detail=True received.'
    response = api.get('/v1/nodes', detail='True', fields='uuid')
    assert response.status_code == 400
    assert error_of(response) == \
        'Can not specify ?detail=True and fields in the same request.'
    response = api.get('/v1/nodes/detail', fields='uuid')
    assert error_of(response) == 'Unexpected arguments: fields'


def test_list_with_the_fields_nova_asks_for(api, create_node, rpc,
                                            context):
    node = create_node(name='n')
    rpc.add_node_traits(context, node['uuid'], ['CUSTOM_B', 'CUSTOM_A'])
    body = api.get('/v1/nodes/', fields=NOVA_FIELDS, version='1.46').json
    (listed,) = body['nodes']
    assert set(listed) == set(NOVA_FIELDS.split(',')) | {'links'}
    assert listed['traits'] == ['CUSTOM_A', 'CUSTOM_B']
    assert listed['properties']['memory_mb'] == 4096
    assert 'next' not in body


def test_pagination_and_next_links(api, create_node, conf):
    uuids = [create_node(name='p%d' % i)['uuid'] for i in range(5)]
    body = api.get('/v1/nodes', limit='2', maintenance='False').json
    assert [n['uuid'] for n in body['nodes']] == uuids[:2]
    assert body['next'] == (
        'http://falconframework.org/v1/nodes?maintenance=False&limit=2'
        '&marker=%s' % uuids[1])
    body = api.get('/v1/nodes', limit='2', marker=uuids[1]).json
    assert [n['uuid'] for n in body['nodes']] == uuids[2:4]
    body = api.get('/v1/nodes', limit='2', marker=uuids[3]).json
    assert [n['uuid'] for n in body['nodes']] == uuids[4:]
    assert 'next' not in body
    conf.set('api', max_limit=3)
    body = api.get('/v1/nodes', limit='1000').json
    assert len(body['nodes']) == 3 and body['next'].endswith(
        'limit=3&marker=%s' % uuids[2])
    body = api.get('/v1/nodes/detail', sort_dir='desc').json
    assert [n['uuid'] for n in body['nodes']] == uuids[::-1][:3]
    assert body['next'].startswith(
        'http://falconframework.org/v1/nodes/detail?sort_dir=desc')


@pytest.mark.parametrize('params,message', [
    ({'limit': '0'}, 'Limit must be positive'),
    ({'limit': 'many'}, 'Expected an integer for limit: many'),
    ({'marker': 'x'}, 'Expected UUID for marker: x'),
    ({'sort_dir': 'up'}, "Invalid sort direction: up. Acceptable values "
                         "are 'asc' or 'desc'"),
    # Given empty, as Ironic: not the default.
    ({'sort_dir': ''}, "Invalid sort direction: . Acceptable values "
                       "are 'asc' or 'desc'"),
    ({'sort_key': 'properties'}, 'The sort_key value properties is an '
                                 'invalid field for sorting'),
    ({'sort_key': 'colour'}, 'The sort_key value "colour" is an invalid '
                             'field for sorting'),
    ({'provision_state': 'asleep'}, 'Provision state "asleep" is not '
                                    'valid'),
    ({'fault': 'bad'}, 'Unrecognized fault "bad" is specified'),
    ({'associated': 'maybe'}, "Invalid associated: Unrecognized value "
                              "'maybe'"),
])
def test_list_refuses_bad_parameters(api, params, message):
    response = api.get('/v1/nodes', **params)
    assert response.status_code == 400
    assert error_of(response).startswith(message)


def test_unknown_marker_is_404(api):
    response = api.get('/v1/nodes',
                       marker='0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001')
    assert response.status_code == 404


@pytest.mark.parametrize('name,value,minor', [
    ('provision_state', 'enroll', 9), ('driver', 'fake-hardware', 16),
    ('resource_class', 'x', 21), ('fault', 'power failure', 42),
    ('conductor_group', 'g', 46), ('conductor', 'c', 49),
    ('owner', 'o', 50), ('lessee', 'l', 65), ('shard', 's', 82),
    ('include_children', 'True', 83), ('instance_name', 'i', 104)])
def test_filters_are_version_gated(api, name, value, minor):
    response = api.get('/v1/nodes', version='1.%d' % (minor - 1),
                       **{name: value})
    assert response.status_code == 406
    assert error_of(response) == (
        'Request not acceptable. The minimal required API version should '
        'be 1.%d for the %s filter' % (minor, name))
    assert api.get('/v1/nodes', version='1.%d' % minor,
                   **{name: value}).status_code == 200


def test_filters(api, create_node, available_node, rpc, context):
    idle = available_node(name='idle', owner='p1', resource_class='gold')
    busy = create_node(name='busy', lessee='p1', maintenance=True,
                       resource_class='silver',
                       description='a fine machine', shard='s1')
    rpc.update_node(context, busy['uuid'], {
        'instance_uuid': '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'})
    # No conductor serves group g1: the API refuses it, so set it directly.
    utils.update_node(busy['uuid'], {'conductor_group': 'g1'})
    create_node(name='child', parent_node=idle['uuid'])

    def names(**params):
        return sorted(n['name'] for n in
                      api.get('/v1/nodes', **params).json['nodes'])

    assert names() == ['busy', 'idle']
    assert names(associated='True') == ['busy']
    assert names(associated='false') == ['idle']
    assert names(maintenance='1') == ['busy']
    assert names(provision_state='available') == ['idle']
    assert names(resource_class='gold') == ['idle']
    assert names(conductor_group='g1') == ['busy']
    assert names(owner='p1') == ['idle']
    assert names(lessee='p1') == ['busy']
    assert names(project='p1') == ['busy', 'idle']
    assert names(description_contains='fine') == ['busy']
    assert names(shard='S1,s2') == ['busy']
    assert names(sharded='false') == ['idle']
    assert names(include_children='True') == ['busy', 'child', 'idle']
    assert names(parent_node=idle['uuid']) == ['child']
    assert names(conductor='test-conductor') == ['idle']
    assert names(conductor='other') == []
    assert names(driver='fake-hardware') == ['busy', 'idle']
    body = api.get('/v1/nodes', instance_uuid=(
        '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'), limit='1').json
    assert [n['name'] for n in body['nodes']] == ['busy']
    assert 'next' not in body


def test_shards(api, create_node):
    create_node(shard='a')
    create_node(shard='a')
    create_node(shard='b')
    create_node()
    assert api.get('/v1/shards').json == {'shards': [
        {'name': 'a', 'count': 2}, {'name': 'b', 'count': 1}]}
    assert api.get('/v1/shards', version='1.81').status_code == 404


# Update (JSON patch)

def _patch(api, node, operations, **kwargs):
    return api.patch('/v1/nodes/%s' % node['uuid'], operations, **kwargs)


def test_patch_add_replace_remove(api, create_node):
    node = create_node(extra={'a': 1})
    response = _patch(api, node, [
        {'op': 'add', 'path': '/properties/memory_mb', 'value': 8192},
        {'op': 'replace', 'path': '/extra/a', 'value': 2},
        {'op': 'add', 'path': '/instance_info/root_gb', 'value': '10'},
        {'op': 'add', 'path': '/instance_info/display_name',
         'value': 'vm-1'},
        {'op': 'replace', 'path': '/description', 'value': 'mine'},
        {'op': 'remove', 'path': '/resource_class'}])
    assert response.status_code == 200, response.text
    body = response.json
    assert body['properties']['memory_mb'] == 8192
    assert body['extra'] == {'a': 2}
    assert body['instance_info'] == {'root_gb': '10',
                                     'display_name': 'vm-1'}
    assert body['instance_name'] == 'vm-1'
    assert body['description'] == 'mine'
    assert body['resource_class'] is None
    stored = nodes_db.get_node(node['uuid'])
    assert stored.properties['memory_mb'] == 8192


def test_patch_with_special_characters_from_1_98(api, create_node):
    node = create_node()
    operation = [{'op': 'add', 'path': '/extra/a~1b', 'value': 1}]
    assert _patch(api, node, operation, version='1.97').status_code == 400
    response = _patch(api, node, operation, version='1.98')
    assert response.status_code == 200
    assert response.json['extra'] == {'a/b': 1}


@pytest.mark.parametrize('operations,message', [
    ({'op': 'add'}, "Schema error for patch: {'op': 'add'} is not of type "
                    "'array'"),
    ([{'op': 'move', 'path': '/extra/a', 'from': '/extra/b'}],
     "Schema error for patch: Additional properties are not allowed "
     "('from' was unexpected)"),
    ([{'op': 'copy', 'path': '/extra/a'}],
     "Schema error for patch: 'copy' is not one of ['add', 'replace', "
     "'remove'] (at /0/op)"),
    ([{'op': 'add', 'path': 'extra'}], "Invalid patch path 'extra'"),
    ([{'op': 'add', 'path': '/extra/a b', 'value': 1}],
     "Invalid patch path '/extra/a b'"),
    ([{'op': 'add', 'path': '/extra/a'}], "Couldn't apply patch"),
    ([{'op': 'add', 'path': '/colour', 'value': 'red'}],
     'Cannot patch /colour. Only the following can be updated: '),
    ([{'op': 'add', 'path': '/traits', 'value': ['CUSTOM_A']}],
     'Cannot patch /traits.'),
    ([{'op': 'add', 'path': '/uuid', 'value': 'x'}], 'Cannot patch /uuid.'),
    ([{'op': 'replace', 'path': '/provision_state', 'value': 'active'}],
     'Cannot patch /provision_state.'),
    ([{'op': 'remove', 'path': '/extra/missing'}],
     "Couldn't apply patch '{'op': 'remove', 'path': '/extra/missing'}'. "
     "Reason: can't remove a non-existent object 'missing'"),
    ([{'op': 'replace', 'path': '/driver_info/nope/deeper', 'value': 1}],
     "Couldn't apply patch"),
    ([{'op': 'remove', 'path': '/driver'}],
     "Schema error for patch: 'driver' is a required property"),
    ([{'op': 'replace', 'path': '/properties', 'value': 'lots'}],
     "Schema error for patch: 'lots' is not of type 'object', 'null'"),
    ([{'op': 'replace', 'path': '/maintenance', 'value': 'perhaps'}],
     "Invalid maintenance: Unrecognized value 'perhaps'"),
    ([{'op': 'replace', 'path': '/instance_uuid', 'value': 'not-a-uuid'}],
     'Expected UUID for instance_uuid: not-a-uuid'),
    ([{'op': 'replace', 'path': '/name', 'value': 'has space'}],
     "Cannot change name to invalid name 'has space'"),
    ([{'op': 'replace', 'path': '/driver', 'value': 'unknown'}],
     'No valid host was found.'),
    ([{'op': 'replace', 'path': '/conductor_group', 'value': 'Empty'}],
     'No valid host was found. Reason: No conductor service registered '
     'which supports driver fake-hardware for conductor group "empty".'),
    ([{'op': 'replace', 'path': '/power_interface', 'value': 'no-power'}],
     "Could not find the following interface"),
])
def test_bad_patches_are_400_and_change_nothing(api, create_node,
                                                operations, message):
    node = create_node(extra={'b': 1})
    before = api.get('/v1/nodes/%s' % node['uuid']).json
    response = _patch(api, node, operations)
    assert response.status_code == 400
    assert message in error_of(response)
    after = api.get('/v1/nodes/%s' % node['uuid']).json
    before.pop('updated_at'), after.pop('updated_at')
    assert after == before


def test_patch_newer_field_is_406(api, create_node):
    node = create_node()
    response = _patch(api, node, [{'op': 'add', 'path': '/lessee',
                                   'value': 'p'}], version='1.64')
    assert response.status_code == 406
    assert error_of(response) == \
        'Field(s) lessee need a newer API version than 1.64'


def test_instance_uuid_conflicts_are_409(api, create_node):
    instance = '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'
    first = create_node()
    second = create_node()
    add = [{'op': 'add', 'path': '/instance_uuid', 'value': instance}]
    assert _patch(api, first, add).status_code == 200
    response = _patch(api, second, add)
    assert response.status_code == 409
    assert error_of(response).startswith(
        'Instance %s is already associated with a node' % instance)
    other = [{'op': 'replace', 'path': '/instance_uuid',
              'value': '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e002'}]
    response = _patch(api, first, other)
    assert response.status_code == 409
    assert error_of(response) == ('Node %s is associated with instance %s.'
                                  % (first['uuid'], instance))
    response = _patch(api, first, [{'op': 'remove',
                                    'path': '/instance_uuid'}])
    assert response.json['instance_uuid'] is None


def test_patch_during_transition_is_409(api, create_node):
    node = create_node()
    utils.update_node(node['uuid'], {
        'provision_state': 'deploying', 'target_provision_state': 'active'})
    response = _patch(api, node, [{'op': 'add', 'path': '/extra/a',
                                   'value': 1}])
    assert response.status_code == 409
    assert error_of(response) == (
        'Node %s can not be updated while a state transition is in '
        'progress.' % node['uuid'])
    utils.update_node(node['uuid'], {
        'maintenance': True,
        'instance_uuid': '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'})
    response = _patch(api, node, [{'op': 'remove',
                                   'path': '/instance_uuid'}])
    assert response.status_code == 200
    assert response.json['instance_uuid'] is None


def test_reset_interfaces(api, create_node):
    node = create_node(rescue_interface='no-rescue')
    path = '/v1/nodes/%s' % node['uuid']
    response = api.patch(path, [{'op': 'add', 'path': '/extra/a',
                                 'value': 1}], reset_interfaces='True')
    assert response.status_code == 400
    assert error_of(response) == ("The reset_interfaces parameter can only "
                                  "be used when changing the node's "
                                  "driver.")
    response = api.patch(path, [], reset_interfaces='True', version='1.44')
    assert response.status_code == 406
    response = api.patch(path, [{'op': 'replace', 'path': '/driver',
                                 'value': 'fake-hardware'}],
                         reset_interfaces='True')
    assert response.status_code == 200
    assert response.json['rescue_interface'] == 'fake'


def test_patch_maintenance_and_removals(api, create_node):
    node = create_node(maintenance=True)
    response = _patch(api, node, [{'op': 'replace', 'path': '/maintenance',
                                   'value': 'false'},
                                  {'op': 'remove', 'path': '/properties'}])
    assert response.status_code == 200
    assert response.json['maintenance'] is False
    assert response.json['properties'] == {}


# Delete

def test_delete(api, create_node):
    node = create_node()
    response = api.delete('/v1/nodes/%s' % node['uuid'])
    assert response.status_code == 204
    assert response.content == b''
    assert api.get('/v1/nodes/%s' % node['uuid']).status_code == 404


def test_delete_refused_while_active(api, create_node):
    node = create_node()
    utils.update_node(node['uuid'], {'provision_state': 'active'})
    response = api.delete('/v1/nodes/%s' % node['uuid'])
    assert response.status_code == 400
    assert error_of(response) == (
        'The requested action "delete" can not be performed on node "%s" '
        'while it is in state "active".' % node['uuid'])


def test_delete_of_a_node_with_an_instance_needs_maintenance(api,
                                                             create_node):
    """As Ironic: refused (409) while the node has an instance, unless the
    node is in maintenance."""
    node = create_node()
    instance = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
    utils.update_node(node['uuid'], {'instance_uuid': instance})
    response = api.delete('/v1/nodes/%s' % node['uuid'])
    assert response.status_code == 409
    assert error_of(response) == ('Node %s is associated with instance %s.'
                                  % (node['uuid'], instance))
    utils.update_node(node['uuid'], {'maintenance': True})
    assert api.delete('/v1/nodes/%s' % node['uuid']).status_code == 204


@pytest.mark.parametrize('resource', ['nodes', 'ports', 'chassis',
                                      'portgroups', 'allocations',
                                      'conductors', 'deploy_templates'])
def test_empty_fields_lists_the_default_fields(api, create_node, resource):
    """``fields=`` names no field: the list answers as if it were absent
    (schemathesis found a 500 here)."""
    create_node(name='e')
    plain = api.get('/v1/%s' % resource, limit='1')
    response = api.get('/v1/%s' % resource, fields='', limit='1')
    assert response.status_code == 200, response.text
    assert response.json[resource] == plain.json[resource]
