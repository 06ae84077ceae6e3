"""/v1/ports and /v1/portgroups."""

from __future__ import annotations

import pytest

from tests import utils
from tests.unit.api.conftest import error_of

MAC = '52:54:00:12:34:56'


@pytest.fixture
def node(create_node):
    return create_node(name='n1')


def _create_port(api, node, **values):
    body = {'address': MAC, 'node_uuid': node['uuid']}
    body.update(values)
    response = api.post('/v1/ports', body)
    assert response.status_code == 201, response.text
    return response.json


def test_create_show_list_update_delete(api, node):
    port = _create_port(api, node, address='52-54-00-AB-CD-EF',
                        pxe_enabled='false', physical_network='net1',
                        local_link_connection={'switch_id':
                                               '00:11:22:33:44:55',
                                               'port_id': 'Eth1'})
    assert port['address'] == '52:54:00:ab:cd:ef'
    assert port['pxe_enabled'] is False
    assert port['node_uuid'] == node['uuid']
    assert port['portgroup_uuid'] is None
    path = '/v1/ports/%s' % port['uuid']
    assert api.get(path).json == port
    listed = api.get('/v1/ports').json['ports']
    assert listed == [{'uuid': port['uuid'], 'address': port['address'],
                       'links': port['links']}]
    assert api.get('/v1/ports/detail').json['ports'] == [port]
    assert api.get('/v1/ports', node='n1').json['ports'] == listed
    assert api.get('/v1/ports', node_uuid=node['uuid']).json['ports'] == \
        listed
    assert api.get('/v1/nodes/n1/ports').json['ports'] == listed
    assert api.get('/v1/nodes/n1/ports/detail').json['ports'] == [port]
    assert api.get('/v1/ports', address='52:54:00:AB:CD:EF'
                   ).json['ports'] == listed
    assert api.get('/v1/ports', address=MAC).json['ports'] == []
    response = api.patch(path, [
        {'op': 'replace', 'path': '/pxe_enabled', 'value': 'true'},
        {'op': 'add', 'path': '/extra/vif_port_id', 'value': 'v'}])
    assert response.status_code == 200, response.text
    assert response.json['pxe_enabled'] is True
    assert response.json['extra'] == {'vif_port_id': 'v'}
    assert api.delete(path).status_code == 204
    assert api.get(path).status_code == 404


def test_port_fields_by_version(api, node):
    port = _create_port(api, node)
    path = '/v1/ports/%s' % port['uuid']
    assert 'pxe_enabled' not in api.get(path, version='1.18').json
    assert 'physical_network' not in api.get(path, version='1.33').json
    assert 'name' not in api.get(path, version='1.87').json
    assert 'name' in api.get(path).json
    response = api.get(path, fields='uuid,physical_network',
                       version='1.33')
    assert response.status_code == 406
    assert set(api.get(path, fields='uuid,name').json) == {
        'uuid', 'name', 'links'}


@pytest.mark.parametrize('values,status,message', [
    ({'address': 'not-a-mac'}, 400,
     'Expected valid MAC address for address: not-a-mac'),
    ({'pxe_enabled': 'sometimes'}, 400, "Invalid pxe_enabled: Unrecognized "
                                        "value 'sometimes'"),
    ({'colour': 'red'}, 400, "Schema error for port: Additional properties "
                             "are not allowed ('colour' was unexpected)"),
    ({'node_uuid': '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'}, 400,
     'Node 0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001 could not be found.'),
    ({'local_link_connection': {'switch_id': 'x'}}, 400,
     'Schema error for local_link_connection'),
    ({'is_smartnic': True}, 400, 'Smart NIC port must have port_id and '
                                 'hostname in local_link_connection'),
    ({'physical_network': ''}, 400, 'A non-empty value is required when '
                                    'setting physical_network'),
    ({'portgroup_uuid': '0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'}, 400,
     'Portgroup 0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001 could not be found.'),
])
def test_create_refusals(api, node, values, status, message):
    body = {'address': MAC, 'node_uuid': node['uuid']}
    body.update(values)
    response = api.post('/v1/ports', body)
    assert response.status_code == status
    assert error_of(response).startswith(message)
    assert api.get('/v1/ports').json['ports'] == []


def test_duplicate_mac_is_409(api, node):
    _create_port(api, node)
    response = api.post('/v1/ports', {'address': MAC,
                                      'node_uuid': node['uuid']})
    assert response.status_code == 409
    assert error_of(response) == \
        'A port with MAC address %s already exists.' % MAC


def test_newer_fields_in_create_are_406(api, node):
    response = api.post('/v1/ports', {'address': MAC,
                                      'node_uuid': node['uuid'],
                                      'name': 'p'}, version='1.87')
    assert response.status_code == 406
    response = api.post('/v1/ports', {'address': MAC, 'node_ident': 'n1'},
                        version='1.93')
    assert response.status_code == 406
    response = api.post('/v1/ports', {'address': MAC, 'node_ident': 'n1'})
    assert response.status_code == 201


def test_port_with_vif_on_active_node_is_in_use(api, node):
    port = _create_port(api, node, extra={'vif_port_id': 'v1'})
    utils.update_node(node['uuid'], {'provision_state': 'active'})
    path = '/v1/ports/%s' % port['uuid']
    response = api.delete(path)
    assert response.status_code == 409
    assert error_of(response) == (
        'Cannot delete port %s as node %s is active and VIF v1 is attached '
        'to it' % (port['uuid'], node['uuid']))
    response = api.patch(path, [{'op': 'replace', 'path': '/address',
                                 'value': '52:54:00:00:00:01'}])
    assert response.status_code == 409
    utils.update_node(node['uuid'], {'maintenance': True})
    assert api.delete(path).status_code == 204


def test_list_filters_and_pagination(api, create_node):
    first = create_node(name='a', shard='s1')
    second = create_node(name='b')
    ports = [_create_port(api, first, address='52:54:00:00:00:0%d' % i)
             for i in range(3)]
    _create_port(api, second, address='52:54:00:00:00:09')
    body = api.get('/v1/ports', limit='2', node='a').json
    assert [p['uuid'] for p in body['ports']] == [p['uuid']
                                                  for p in ports[:2]]
    assert body['next'].endswith('/v1/ports?node=a&limit=2&marker=%s'
                                 % ports[1]['uuid'])
    assert len(api.get('/v1/ports', shard='s1').json['ports']) == 3
    response = api.get('/v1/ports', shard='s1', node='a')
    assert response.status_code == 400
    response = api.get('/v1/ports', sort_key='extra')
    assert error_of(response) == ('The sort_key value extra is an invalid '
                                  'field for sorting')
    response = api.get('/v1/ports', node='missing')
    assert response.status_code == 404


# Port groups

def test_portgroups(api, node):
    path = '/v1/portgroups'
    assert api.get(path, version='1.22').status_code == 404
    response = api.post(path, {'node_uuid': node['uuid'], 'name': 'bond0',
                               'address': '52:54:00:aa:bb:cc',
                               'properties': {'miimon': 100}})
    assert response.status_code == 201, response.text
    group = response.json
    assert group['mode'] == 'active-backup'
    assert group['standalone_ports_supported'] is True
    assert group['ports'][0]['href'].endswith(
        '/v1/portgroups/%s/ports' % group['uuid'])
    port = _create_port(api, node, portgroup_uuid=group['uuid'])
    assert port['portgroup_uuid'] == group['uuid']
    ports = api.get('/v1/portgroups/bond0/ports').json['ports']
    assert [p['uuid'] for p in ports] == [port['uuid']]
    assert api.get('/v1/nodes/n1/portgroups').json['portgroups'][0][
        'name'] == 'bond0'
    assert 'mode' not in api.get('/v1/portgroups/bond0',
                                 version='1.25').json
    response = api.patch('/v1/portgroups/bond0', [
        {'op': 'replace', 'path': '/mode', 'value': '802.3ad'}])
    assert response.json['mode'] == '802.3ad'
    response = api.delete('/v1/portgroups/bond0')
    assert response.status_code == 409
    assert error_of(response) == (
        'Cannot complete the requested action because portgroup %s '
        'contains ports.' % group['uuid'])
    api.delete('/v1/ports/%s' % port['uuid'])
    assert api.delete('/v1/portgroups/bond0').status_code == 204


def test_port_cannot_join_a_portgroup_of_another_node(api, node,
                                                      create_node):
    other = create_node()
    group = api.post('/v1/portgroups', {'node_uuid': other['uuid']}).json
    response = api.post('/v1/ports', {'address': MAC,
                                      'node_uuid': node['uuid'],
                                      'portgroup_uuid': group['uuid']})
    assert response.status_code == 400
    assert error_of(response) == ('Port can not be added to a portgroup '
                                  'belonging to a different node.')


def test_portgroup_uuid_may_be_a_portgroup_name(api, node):
    # As Ironic: the CLI's --port-group takes a name, sent as portgroup_uuid.
    group = api.post('/v1/portgroups', {'node_uuid': node['uuid'],
                                        'name': 'bond1'}).json
    port = _create_port(api, node, portgroup_uuid='bond1')
    assert port['portgroup_uuid'] == group['uuid']
    response = api.patch('/v1/ports/%s' % port['uuid'], [
        {'op': 'remove', 'path': '/portgroup_uuid'}])
    assert response.json['portgroup_uuid'] is None
    response = api.patch('/v1/ports/%s' % port['uuid'], [
        {'op': 'replace', 'path': '/portgroup_uuid', 'value': 'bond1'}])
    assert response.status_code == 200, response.text
    assert response.json['portgroup_uuid'] == group['uuid']
    response = api.post('/v1/ports', {'address': '52:54:00:00:00:09',
                                      'node_uuid': node['uuid'],
                                      'portgroup_uuid': 'no-such-group'})
    assert response.status_code == 400


def _physnet_conflict(port_physnet, group_uuid, group_physnet):
    return ('Port with physical network %s cannot become a member of port '
            'group %s which has ports in physical network %s.'
            % (port_physnet, group_uuid, group_physnet))


def test_ports_of_a_portgroup_share_its_physical_network(api, node):
    group = api.post('/v1/portgroups', {'node_uuid': node['uuid'],
                                        'name': 'bond2'}).json
    # The first member sets the group's network.
    _create_port(api, node, portgroup_uuid='bond2', physical_network='a')
    response = api.post('/v1/ports', {
        'address': '52:54:00:00:00:02', 'node_uuid': node['uuid'],
        'portgroup_uuid': 'bond2', 'physical_network': 'b'})
    assert response.status_code == 409
    assert error_of(response) == _physnet_conflict('b', group['uuid'], 'a')
    response = api.post('/v1/ports', {
        'address': '52:54:00:00:00:02', 'node_uuid': node['uuid'],
        'portgroup_uuid': 'bond2'})
    assert response.status_code == 409
    assert error_of(response) == _physnet_conflict('None', group['uuid'],
                                                   'a')
    same = _create_port(api, node, address='52:54:00:00:00:03',
                        portgroup_uuid='bond2', physical_network='a')
    # A member may not move to another network (from 1.102, the group's
    # network is changed on the group), nor an outsider join.
    move = [{'op': 'replace', 'path': '/physical_network', 'value': 'b'}]
    response = api.patch('/v1/ports/%s' % same['uuid'], move,
                         version='1.101')
    assert response.status_code == 409
    assert error_of(response) == _physnet_conflict('b', group['uuid'], 'a')
    response = api.patch('/v1/ports/%s' % same['uuid'], move)
    assert response.status_code == 400
    assert error_of(response) == ('physical_network cannot be changed while '
                                  'the port belongs to a portgroup.')
    outsider = _create_port(api, node, address='52:54:00:00:00:04',
                            physical_network='b')
    response = api.patch('/v1/ports/%s' % outsider['uuid'], [
        {'op': 'replace', 'path': '/portgroup_uuid', 'value': 'bond2'}])
    assert response.status_code == 409
    assert error_of(response) == _physnet_conflict('b', group['uuid'], 'a')
    assert api.get('/v1/ports/%s' % outsider['uuid']).json[
        'portgroup_uuid'] is None
    # Changes that keep the network, or leave the group, are fine.
    response = api.patch('/v1/ports/%s' % same['uuid'], [
        {'op': 'add', 'path': '/extra/x', 'value': 1}])
    assert response.status_code == 200, response.text
    response = api.patch('/v1/ports/%s' % same['uuid'], [
        {'op': 'remove', 'path': '/portgroup_uuid'},
        {'op': 'replace', 'path': '/physical_network', 'value': 'b'}])
    assert response.status_code == 200, response.text


def test_an_empty_portgroup_lends_its_own_physical_network(api, node):
    group = api.post('/v1/portgroups', {'node_uuid': node['uuid'],
                                        'name': 'bond3',
                                        'physical_network': 'a'}).json
    response = api.post('/v1/ports', {
        'address': '52:54:00:00:00:05', 'node_uuid': node['uuid'],
        'portgroup_uuid': 'bond3', 'physical_network': 'b'})
    assert response.status_code == 409
    assert error_of(response) == _physnet_conflict('b', group['uuid'], 'a')
    _create_port(api, node, portgroup_uuid='bond3', physical_network='a')


def test_a_portgroups_physical_network_is_its_ports(api, node):
    api.post('/v1/portgroups', {'node_uuid': node['uuid'], 'name': 'bond4',
                                'physical_network': 'a'})
    member = _create_port(api, node, portgroup_uuid='bond4',
                          physical_network='a')
    other = _create_port(api, node, address='52:54:00:00:00:06',
                         physical_network='a')
    response = api.patch('/v1/portgroups/bond4', [
        {'op': 'replace', 'path': '/physical_network', 'value': 'b'}])
    assert response.status_code == 200, response.text
    assert response.json['physical_network'] == 'b'
    assert api.get('/v1/ports/%s' % member['uuid']).json[
        'physical_network'] == 'b'
    assert api.get('/v1/ports/%s' % other['uuid']).json[
        'physical_network'] == 'a'
