"""Volume connectors and targets (1.32), stored and checked as Ironic's."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of

UNKNOWN = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
IQN = 'iqn.2026-11.org.example:node-1'


def _connector(node, **values):
    body = {'node_uuid': node, 'type': 'iqn', 'connector_id': IQN}
    body.update(values)
    return body


def _target(node, **values):
    body = {'node_uuid': node, 'volume_type': 'iscsi', 'boot_index': 0,
            'volume_id': 'vol-1'}
    body.update(values)
    return body


@pytest.fixture
def node(api, create_node):
    uuid = create_node()['uuid']
    _power(api, uuid, 'power off')
    return uuid


def _power(api, uuid, target):
    response = api.put('/v1/nodes/%s/states/power' % uuid,
                       {'target': target})
    assert response.status_code == 202, response.text
    utils.wait_for(lambda: nodes_db.get_node(uuid).power_state == target,
                   what='node %s to reach %s' % (uuid, target))


def test_connector_crud(api, node):
    response = api.post('/v1/volume/connectors', _connector(
        node, extra={'site': 'a'}))
    assert response.status_code == 201, response.text
    created = response.json
    assert response.headers['location'].endswith(
        '/v1/volume/connectors/%s' % created['uuid'])
    assert created['node_uuid'] == node
    assert created['type'] == 'iqn'
    assert created['connector_id'] == IQN
    assert created['extra'] == {'site': 'a'}
    path = '/v1/volume/connectors/%s' % created['uuid']
    assert api.get(path).json['connector_id'] == IQN
    listed = api.get('/v1/volume/connectors').json['connectors']
    assert listed == [{'uuid': created['uuid'], 'node_uuid': node,
                       'type': 'iqn', 'connector_id': IQN,
                       'links': created['links']}]
    assert api.get('/v1/nodes/%s/volume/connectors' % node).json[
        'connectors'][0]['uuid'] == created['uuid']
    response = api.patch(path, [
        {'op': 'replace', 'path': '/connector_id', 'value': IQN + '-b'},
        {'op': 'add', 'path': '/extra/rack', 'value': 'r1'}])
    assert response.status_code == 200, response.text
    assert response.json['connector_id'] == IQN + '-b'
    assert response.json['extra'] == {'site': 'a', 'rack': 'r1'}
    response = api.patch(path, [{'op': 'remove', 'path': '/extra'}])
    assert response.json['extra'] == {}
    assert api.delete(path).status_code == 204
    assert api.get(path).status_code == 404


@pytest.mark.parametrize('body, message', [
    ({'type': 'fc'}, "volume connector: 'fc' is not one of"),
    ({'connector_id': None}, 'volume connector: None is not of type'),
    ({'unknown': 1}, "Additional properties are not allowed ('unknown'"),
])
def test_connector_refusals(api, node, body, message):
    response = api.post('/v1/volume/connectors', _connector(node, **body))
    assert response.status_code == 400
    assert message in error_of(response)


def test_connector_type_and_id_unique(api, node, create_node):
    assert api.post('/v1/volume/connectors',
                    _connector(node)).status_code == 201
    other = create_node()['uuid']
    response = api.post('/v1/volume/connectors', _connector(other))
    assert response.status_code == 409
    assert error_of(response) == (
        'A volume connector with type iqn and connector ID %s already '
        'exists.' % IQN)
    # The same id of another type is another connector.
    assert api.post('/v1/volume/connectors', _connector(
        other, type='ip', connector_id=IQN)).status_code == 201
    mac = api.post('/v1/volume/connectors', _connector(
        other, type='mac', connector_id='52:54:00:AA:BB:CC')).json
    assert mac['connector_id'] == '52:54:00:aa:bb:cc'


def test_target_crud_and_boot_index_unique_per_node(api, node, create_node):
    response = api.post('/v1/volume/targets', _target(
        node, properties={'target_iqn': IQN, 'target_lun': 0}))
    assert response.status_code == 201, response.text
    target = response.json
    assert target['boot_index'] == 0
    assert target['properties'] == {'target_iqn': IQN, 'target_lun': 0}
    response = api.post('/v1/volume/targets', _target(node,
                                                      volume_id='vol-2'))
    assert response.status_code == 409
    assert error_of(response) == ("A volume target with boot index '0' "
                                  "for the same node already exists.")
    other = create_node()['uuid']
    assert api.post('/v1/volume/targets',
                    _target(other)).status_code == 201
    second = api.post('/v1/volume/targets', _target(
        node, boot_index=1, volume_id='vol-2')).json
    path = '/v1/volume/targets/%s' % second['uuid']
    response = api.patch(path, [{'op': 'replace', 'path': '/boot_index',
                                 'value': 0}])
    assert response.status_code == 409
    response = api.patch(path, [{'op': 'replace', 'path': '/boot_index',
                                 'value': 'one'}])
    assert response.status_code == 400
    listed = api.get('/v1/volume/targets', node=node,
                     sort_key='boot_index', sort_dir='desc').json['targets']
    assert [t['boot_index'] for t in listed] == [1, 0]
    assert set(listed[0]) == {'uuid', 'node_uuid', 'volume_type',
                              'boot_index', 'volume_id', 'links'}
    detail = api.get('/v1/volume/targets', detail='True').json['targets']
    assert 'properties' in detail[0]
    api.patch('/v1/volume/targets/%s' % target['uuid'], [
        {'op': 'add', 'path': '/properties/auth_password', 'value': 's3'},
        {'op': 'add', 'path': '/properties/api_key', 'value': 'k'}])
    shown = api.get('/v1/volume/targets/%s' % target['uuid']).json
    # The one list of secret words (common.secrets), as in node views.
    assert shown['properties']['auth_password'] == '******'
    assert shown['properties']['api_key'] == '******'
    assert shown['properties']['target_iqn'] == IQN
    assert api.get('/v1/volume/targets', sort_key='properties'
                   ).status_code == 400


def _every_verb(api, path):
    return (api.get(path),
            api.patch(path, [{'op': 'add', 'path': '/extra/a', 'value': 1}]),
            api.delete(path))


def test_unknown_ids_are_404_on_every_verb(api, node):
    for kind in ('connectors', 'targets'):
        path = '/v1/volume/%s/%s' % (kind, UNKNOWN)
        for response in _every_verb(api, path):
            assert response.status_code == 404, (path, response.text)
            assert error_of(response) == 'Volume %s %s could not be ' \
                'found.' % (kind[:-1], UNKNOWN)


def test_ids_that_are_no_uuid_are_400_on_every_verb(api, node):
    """Ironic validates the path argument as a UUID before looking."""
    for kind in ('connectors', 'targets'):
        path = '/v1/volume/%s/not-a-uuid' % kind
        for response in _every_verb(api, path):
            assert response.status_code == 400, (path, response.text)
            assert error_of(response) == \
                'Expected UUID for %s_uuid: not-a-uuid' % kind[:-1]


def test_changes_need_the_node_powered_off(api, node):
    connector = api.post('/v1/volume/connectors', _connector(node)).json
    target = api.post('/v1/volume/targets', _target(node)).json
    _power(api, node, 'power on')
    # The node is in enroll: it may be deleted, so its volumes may too;
    # a change needs it powered off whatever its state.
    for kind, item in (('connectors', connector), ('targets', target)):
        response = api.patch('/v1/volume/%s/%s' % (kind, item['uuid']),
                             [{'op': 'add', 'path': '/extra/a',
                               'value': 1}])
        assert response.status_code == 400
        assert error_of(response) == (
            'The requested action "volume %s update" can not be performed '
            'on node "%s" while it is in state "power on".'
            % (kind[:-1], node))
    assert api.put('/v1/nodes/%s/states/provision' % node,
                   {'target': 'manage'}).status_code == 202
    utils.wait_for(lambda: nodes_db.get_node(node).provision_state ==
                   'manageable', what='manageable')
    assert api.delete('/v1/volume/connectors/%s' % connector['uuid']
                      ).status_code == 204


def test_deletion_of_a_powered_on_deployed_nodes_volumes_is_400(api, node):
    connector = api.post('/v1/volume/connectors', _connector(node)).json
    target = api.post('/v1/volume/targets', _target(node)).json
    _power(api, node, 'power on')
    utils.update_node(node, {'provision_state': 'active'})
    for kind, item in (('connectors', connector), ('targets', target)):
        response = api.delete('/v1/volume/%s/%s' % (kind, item['uuid']))
        assert response.status_code == 400
        assert error_of(response) == (
            'The requested action "volume %s deletion" can not be performed '
            'on node "%s" while it is in state "power on".'
            % (kind[:-1], node))
        assert api.get('/v1/volume/%s/%s' % (kind, item['uuid'])
                       ).status_code == 200
    _power(api, node, 'power off')
    assert api.delete('/v1/volume/targets/%s' % target['uuid']
                      ).status_code == 204


def test_pages_fields_and_versions(api, node):
    uuids = [api.post('/v1/volume/connectors', _connector(
        node, connector_id='%s-%d' % (IQN, i))).json['uuid']
        for i in range(3)]
    page = api.get('/v1/volume/connectors', limit=2).json
    assert [c['uuid'] for c in page['connectors']] == uuids[:2]
    assert 'marker=%s' % uuids[1] in page['next']
    rest = api.get('/v1/volume/connectors', marker=uuids[1]).json
    assert [c['uuid'] for c in rest['connectors']] == uuids[2:]
    shown = api.get('/v1/volume/connectors/%s' % uuids[0],
                    fields='uuid,type').json
    assert set(shown) == {'uuid', 'type', 'links'}
    assert api.get('/v1/volume/connectors', fields='nope').status_code == 400
    assert api.get('/v1/volume/connectors', fields='uuid',
                   detail='True').status_code == 400
    assert api.get('/v1/volume/connectors', node=UNKNOWN).status_code == 404
    assert api.get('/v1/volume/connectors',
                   version='1.31').status_code == 404
    assert api.post('/v1/volume/connectors', _connector(node),
                    version='1.31').status_code == 404
    assert set(api.get('/v1/volume').json) == {'connectors', 'targets',
                                               'links'}


def test_creating_for_a_missing_node_is_400(api):
    response = api.post('/v1/volume/targets', _target(UNKNOWN))
    assert response.status_code == 400


def test_node_validation_says_boot_from_volume_is_unsupported(api, node):
    validate = api.get('/v1/nodes/%s/validate' % node).json
    assert validate['storage'] == {'result': True, 'reason': None}
    target = api.post('/v1/volume/targets', _target(node)).json
    validate = api.get('/v1/nodes/%s/validate' % node).json
    assert validate['storage']['result'] is False
    assert 'Booting from a volume is not supported' in \
        validate['storage']['reason']
    assert target['uuid'] in validate['storage']['reason']
    # A data volume (boot_index > 0) is only recorded.
    api.patch('/v1/volume/targets/%s' % target['uuid'],
              [{'op': 'replace', 'path': '/boot_index', 'value': 1}])
    validate = api.get('/v1/nodes/%s/validate' % node).json
    assert validate['storage'] == {'result': True, 'reason': None}


def test_deleting_the_node_deletes_its_volumes(api, node):
    connector = api.post('/v1/volume/connectors', _connector(node)).json
    target = api.post('/v1/volume/targets', _target(node)).json
    assert api.delete('/v1/nodes/%s' % node).status_code == 204
    assert api.get('/v1/volume/connectors/%s' % connector['uuid']
                   ).status_code == 404
    assert api.get('/v1/volume/targets/%s' % target['uuid']
                   ).status_code == 404
    assert api.get('/v1/volume/targets').json == {'targets': []}


def test_moving_a_connector_needs_the_new_node_powered_off(api, node,
                                                           create_node):
    connector = api.post('/v1/volume/connectors', _connector(node)).json
    path = '/v1/volume/connectors/%s' % connector['uuid']
    other = create_node()['uuid']
    _power(api, other, 'power on')
    move = [{'op': 'replace', 'path': '/node_uuid', 'value': other}]
    response = api.patch(path, move)
    assert response.status_code == 400
    assert error_of(response) == (
        'The requested action "volume connector update" can not be '
        'performed on node "%s" while it is in state "power on".' % other)
    _power(api, other, 'power off')
    response = api.patch(path, move)
    assert response.status_code == 200, response.text
    assert response.json['node_uuid'] == other
