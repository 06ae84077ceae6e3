"""/v1/allocations: metalsmith's way of reserving a node."""

from __future__ import annotations

import pytest

from tests import utils
from tests.unit.api.conftest import error_of
from tests.utils import wait_for


def _wait(api, uuid):
    def _done():
        body = api.get('/v1/allocations/%s' % uuid).json
        return body if body['state'] != 'allocating' else None
    return wait_for(_done, what='allocation %s to be processed' % uuid)


def test_allocate_by_resource_class_and_traits(api, available_node, rpc,
                                               context):
    available_node(name='plain', resource_class='gold')
    golden = available_node(name='golden', resource_class='gold')
    rpc.add_node_traits(context, golden['uuid'], ['CUSTOM_FAST'])
    response = api.post('/v1/allocations', {
        'resource_class': 'gold', 'traits': ['CUSTOM_FAST'],
        'name': 'alloc-1', 'extra': {'who': 'me'}})
    assert response.status_code == 201, response.text
    created = response.json
    assert created['state'] == 'allocating'
    assert response.headers['location'].endswith(
        '/v1/allocations/%s' % created['uuid'])
    allocation = _wait(api, created['uuid'])
    assert allocation['state'] == 'active'
    assert allocation['node_uuid'] == golden['uuid']
    assert allocation['last_error'] is None
    node = api.get('/v1/nodes/golden').json
    assert node['allocation_uuid'] == created['uuid']
    assert node['instance_uuid'] == created['uuid']
    assert node['instance_info']['traits'] == ['CUSTOM_FAST']
    assert api.get('/v1/nodes/golden/allocation').json['uuid'] == \
        created['uuid']
    assert api.get('/v1/allocations/alloc-1').json['uuid'] == \
        created['uuid']
    listed = api.get('/v1/allocations', node='golden').json['allocations']
    assert [a['uuid'] for a in listed] == [created['uuid']]
    assert api.get('/v1/allocations', state='error').json == {
        'allocations': []}
    assert api.get('/v1/nodes/plain').json['instance_uuid'] is None


def test_the_answer_is_the_allocation_as_created(api, available_node,
                                                conductor, monkeypatch):
    """As Ironic: 201 with the allocation ``allocating``, whatever the
    worker did meanwhile; the outcome is read afterwards."""
    node = available_node(resource_class='gold')
    # The worker finishing before the answer is written is a race that
    # cannot be caused reliably otherwise: run the worker inline.
    monkeypatch.setattr(conductor, 'spawn_worker', lambda work: work())
    response = api.post('/v1/allocations', {'resource_class': 'gold'})
    assert response.status_code == 201, response.text
    assert response.json['state'] == 'allocating'
    assert response.json['node_uuid'] is None
    shown = api.get('/v1/allocations/%s' % response.json['uuid']).json
    assert (shown['state'], shown['node_uuid']) == ('active', node['uuid'])


def test_allocation_failures_are_recorded(api, available_node):
    available_node(resource_class='gold')
    created = api.post('/v1/allocations', {'resource_class': 'silver'}).json
    allocation = _wait(api, created['uuid'])
    assert allocation['state'] == 'error'
    assert allocation['last_error'] == (
        'Failed to process allocation %s: no available nodes match the '
        'resource class silver.' % created['uuid'])
    created = api.post('/v1/allocations', {'resource_class': 'gold',
                                           'traits': ['CUSTOM_NONE']}).json
    assert 'no suitable nodes have the requested traits CUSTOM_NONE' in \
        _wait(api, created['uuid'])['last_error']


def test_candidate_nodes(api, available_node):
    first = available_node(name='first')
    available_node(name='second')
    created = api.post('/v1/allocations', {
        'resource_class': 'baremetal', 'candidate_nodes': ['first']}).json
    assert created['candidate_nodes'] == [first['uuid']]
    assert _wait(api, created['uuid'])['node_uuid'] == first['uuid']
    response = api.post('/v1/allocations', {
        'resource_class': 'baremetal', 'candidate_nodes': ['missing']})
    assert response.status_code == 400
    assert error_of(response) == ('Candidate node missing is invalid: Node '
                                  'missing could not be found.')


def test_delete_releases_the_node(api, available_node):
    node = available_node()
    created = api.post('/v1/allocations', {'resource_class': 'baremetal'}
                       ).json
    _wait(api, created['uuid'])
    assert api.delete('/v1/allocations/%s' % created['uuid']
                      ).status_code == 204
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['allocation_uuid'] is None
    assert shown['instance_uuid'] is None


def test_delete_refused_while_active(api, available_node):
    node = available_node()
    created = api.post('/v1/allocations', {'resource_class': 'baremetal'}
                       ).json
    _wait(api, created['uuid'])
    utils.update_node(node['uuid'], {'provision_state': 'active'})
    response = api.delete('/v1/allocations/%s' % created['uuid'])
    assert response.status_code == 409
    assert error_of(response) == (
        'Cannot remove allocation %s for node %s, because the node is '
        'active (and maintenance mode is off)'
        % (created['uuid'], node['uuid']))


def test_tear_down_deletes_the_allocation(api, available_node):
    node = available_node()
    created = api.post('/v1/allocations', {'resource_class': 'baremetal'}
                       ).json
    _wait(api, created['uuid'])
    path = '/v1/nodes/%s' % node['uuid']
    api.put(path + '/states/provision', {'target': 'active'})
    wait_for(lambda: api.get(path).json['provision_state'] == 'active')
    api.put(path + '/states/provision', {'target': 'deleted'})
    wait_for(lambda: api.get(path).json['provision_state'] == 'available')
    assert api.get('/v1/allocations/%s' % created['uuid']
                   ).status_code == 404
    shown = api.get(path).json
    assert shown['allocation_uuid'] is None
    assert shown['instance_uuid'] is None


def test_patch_name_and_extra_from_1_57(api, available_node):
    available_node()
    created = api.post('/v1/allocations', {'resource_class': 'baremetal'}
                       ).json
    path = '/v1/allocations/%s' % created['uuid']
    operations = [{'op': 'add', 'path': '/name', 'value': 'renamed'},
                  {'op': 'add', 'path': '/extra/a', 'value': 1}]
    assert api.patch(path, operations, version='1.56').status_code == 405
    response = api.patch(path, operations)
    assert response.status_code == 200
    assert response.json['name'] == 'renamed'
    assert response.json['extra'] == {'a': 1}
    response = api.patch(path, [{'op': 'replace',
                                 'path': '/resource_class', 'value': 'x'}])
    assert response.status_code == 400
    assert error_of(response).startswith(
        'Cannot patch /resource_class. Only the following can be updated: '
        'name, extra')


def test_backfill_an_active_node(api, create_node):
    node = create_node()
    utils.update_node(node['uuid'], {'provision_state': 'active'})
    response = api.post('/v1/allocations', {'node': node['uuid']},
                        version='1.57')
    assert response.status_code == 400
    assert error_of(response) == ('Cannot set node when creating an '
                                  'allocation in this API version')
    response = api.post('/v1/allocations', {'node': node['uuid']})
    assert response.status_code == 201, response.text
    assert response.json['state'] == 'active'
    assert response.json['resource_class'] == 'baremetal'
    assert api.get('/v1/nodes/%s' % node['uuid']).json[
        'allocation_uuid'] == response.json['uuid']


@pytest.mark.parametrize('body,version,status,message', [
    ({}, '1.115', 400, 'The resource_class field is mandatory when not '
                       'backfilling'),
    ({'resource_class': 'x', 'traits': ['bad']}, '1.115', 400,
     'Schema error for allocation:'),
    ({'resource_class': 'x', 'name': 'has space'}, '1.115', 400,
     "Cannot create allocation with invalid name 'has space'"),
    ({'resource_class': 'x', 'owner': 'p'}, '1.59', 406,
     'Request not acceptable.'),
    ({'resource_class': 'x', 'size': 1}, '1.115', 400,
     'Schema error for allocation: Additional properties are not allowed'),
    ({'resource_class': 'x'}, '1.51', 405,
     'The method specified is not allowed for this resource.'),
])
def test_create_refusals(api, body, version, status, message):
    response = api.post('/v1/allocations', body, version=version)
    assert response.status_code == status
    assert error_of(response).startswith(message)


def test_owner_field_from_1_60(api, available_node):
    available_node()
    created = api.post('/v1/allocations', {'resource_class': 'baremetal',
                                           'owner': 'p1'}).json
    assert created['owner'] == 'p1'
    path = '/v1/allocations/%s' % created['uuid']
    assert 'owner' not in api.get(path, version='1.59').json
    assert api.get('/v1/allocations', owner='p1').json['allocations'][0][
        'uuid'] == created['uuid']
    assert api.get('/v1/allocations', owner='p1', version='1.59'
                   ).status_code == 406


def test_an_empty_node_names_none(api, available_node):
    """Found by fuzzing: ``"node": ""`` was a 500."""
    available_node(resource_class='gold')
    response = api.post('/v1/allocations', {'resource_class': 'gold',
                                            'node': ''})
    assert response.status_code == 201, response.text
    assert _wait(api, response.json['uuid'])['state'] == 'active'
