"""Traits, history and BIOS settings of nodes."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests.unit.api.conftest import error_of
from tests.utils import wait_for


def test_traits(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/traits' % node['uuid']
    # Ironic reads "traits" below 1.37 as a field the version lacks.
    assert api.get(path, version='1.36').status_code == 406
    assert api.get(path).json == {'traits': []}
    response = api.put(path + '/CUSTOM_GOLD')
    assert response.status_code == 204
    assert response.headers['location'].endswith(
        '/v1/nodes/%s/traits/CUSTOM_GOLD' % node['uuid'])
    assert api.put(path + '/HW_CPU_X86_AVX2').status_code == 204
    assert api.get(path).json == {'traits': ['CUSTOM_GOLD',
                                             'HW_CPU_X86_AVX2']}
    assert api.get('/v1/nodes/%s' % node['uuid']).json['traits'] == [
        'CUSTOM_GOLD', 'HW_CPU_X86_AVX2']
    assert api.put(path, {'traits': ['CUSTOM_A', 'CUSTOM_B']}
                   ).status_code == 204
    assert api.get(path).json == {'traits': ['CUSTOM_A', 'CUSTOM_B']}
    assert api.delete(path + '/CUSTOM_A').status_code == 204
    response = api.delete(path + '/CUSTOM_A')
    assert response.status_code == 404
    assert error_of(response) == ("Node %s doesn't have a trait 'CUSTOM_A'"
                                  % node['uuid'])
    assert api.delete(path).status_code == 204
    assert api.get(path).json == {'traits': []}


@pytest.mark.parametrize('method,suffix,body,message', [
    ('PUT', '/lowercase', None, 'Invalid trait: trait lowercase is neither '
                                'a standard trait (os-traits) nor a custom '
                                'one matching ^CUSTOM_[A-Z0-9_]+$'),
    ('PUT', '/CUSTOM_', None, 'Invalid trait: trait CUSTOM_ is neither'),
    ('PUT', '/CUSTOM_' + 'A' * 260, None, 'Invalid trait: trait CUSTOM_'),
    ('PUT', '/CUSTOM_A', {'traits': []},
     'No body should be provided when adding a trait'),
    ('PUT', '', None, 'A single node trait may be added via PUT'),
    ('PUT', '', {'traits': ['bad-one']}, 'Schema error for traits:'),
    ('PUT', '', {'traits': 'CUSTOM_A'}, 'Schema error for traits:'),
    ('PUT', '', {'traits': [], 'more': 1}, 'Schema error for traits: '
                                          'Additional properties'),
])
def test_trait_refusals(api, create_node, method, suffix, body, message):
    node = create_node()
    path = '/v1/nodes/%s/traits%s' % (node['uuid'], suffix)
    response = api.request(method, path, body=body)
    assert response.status_code == 400
    assert error_of(response).startswith(message)
    assert api.get('/v1/nodes/%s/traits' % node['uuid']).json == {
        'traits': []}


def test_at_most_50_traits(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/traits' % node['uuid']
    traits = ['CUSTOM_T%02d' % i for i in range(51)]
    node_id = nodes_db.get_node(node['uuid']).id
    message = ('Could not modify traits for node %d as it would exceed the '
               'maximum number of traits per node (51 vs. 50)' % node_id)
    response = api.put(path, {'traits': traits})
    assert response.status_code == 400
    assert error_of(response) == message
    assert api.get(path).json == {'traits': []}
    # Duplicates count once.
    assert api.put(path, {'traits': traits[:50] + traits[:1]}
                   ).status_code == 204
    assert api.put('%s/%s' % (path, traits[0])).status_code == 204
    response = api.put('%s/%s' % (path, traits[50]))
    assert response.status_code == 400
    assert error_of(response) == message
    assert api.get(path).json == {'traits': sorted(traits[:50])}


def test_history(api, create_node):
    node = create_node()
    api.put('/v1/nodes/%s/states/provision' % node['uuid'],
            {'target': 'manage'})
    path = '/v1/nodes/%s/history' % node['uuid']
    wait_for(lambda: api.get(path).json['history'])
    assert api.get(path, version='1.77').status_code == 404
    (event,) = api.get(path).json['history']
    assert set(event) == {'uuid', 'created_at', 'severity', 'event',
                          'links'}
    assert event['event'] == 'Node verified'
    assert event['links'][0]['href'].endswith(
        '/v1/nodes/%s/history/%s' % (node['uuid'], event['uuid']))
    (detail,) = api.get(path, detail='True').json['history']
    assert detail['event_type'] == 'verifying'
    assert detail['conductor'] == 'test-conductor'
    assert 'project' in detail and 'duration_seconds' in detail
    assert 'project' not in api.get(path, detail='True',
                                    version='1.112').json['history'][0]
    one = api.get('%s/%s' % (path, event['uuid'])).json
    assert one == detail
    assert api.get(path + '/0f2d7c2e-6a3b-4d1f-9d1a-b9d1b0f1e001'
                   ).status_code == 404


def test_bios(api, available_node):
    node = available_node()
    path = '/v1/nodes/%s/bios' % node['uuid']
    assert api.get(path).json == {'bios': []}
    assert api.get(path, version='1.39').status_code == 404
    api.put('/v1/nodes/%s/states/provision' % node['uuid'],
            {'target': 'manage'})
    wait_for(lambda: api.get('/v1/nodes/%s' % node['uuid']).json[
        'provision_state'] == 'manageable')
    response = api.put('/v1/nodes/%s/states/provision' % node['uuid'], {
        'target': 'clean', 'clean_steps': [{
            'interface': 'bios', 'step': 'apply_configuration',
            'args': {'settings': [{'name': 'NumLock', 'value': 'on'}]}}]})
    assert response.status_code == 202
    wait_for(lambda: api.get(path).json['bios'])
    (setting,) = api.get(path).json['bios']
    assert setting['name'] == 'NumLock' and setting['value'] == 'on'
    assert setting['read_only'] is None
    assert 'read_only' not in api.get(path, version='1.73').json['bios'][0]
    assert api.get(path + '/NumLock').json['NumLock']['value'] == 'on'
    assert api.get(path + '/Missing').status_code == 404


def test_firmware_is_read_when_cleaning_and_after_an_update(api,
                                                           available_node):
    node = available_node(driver_info={'fake_firmware': {
        'bios': '2.1.0', 'bmc': '4.0'}})
    path = '/v1/nodes/%s/firmware' % node['uuid']
    assert api.get(path, version='1.85').status_code == 404
    api.put('/v1/nodes/%s/states/provision' % node['uuid'],
            {'target': 'manage'})
    wait_for(lambda: api.get('/v1/nodes/%s' % node['uuid']).json[
        'provision_state'] == 'manageable')
    # Read when the node was cleaned on its way to available.
    assert [(c['component'], c['current_version'])
            for c in api.get(path).json['firmware']] == [
        ('bios', '2.1.0'), ('bmc', '4.0')]
    response = api.put('/v1/nodes/%s/states/provision' % node['uuid'], {
        'target': 'clean', 'clean_steps': [{
            'interface': 'firmware', 'step': 'update',
            'args': {'settings': [{'component': 'bios',
                                   'url': 'http://fw/bios-2.2.0.bin'}]}}]})
    assert response.status_code == 202
    wait_for(lambda: api.get('/v1/nodes/%s' % node['uuid']).json[
        'provision_state'] == 'manageable')
    found = {c['component']: c for c in api.get(path).json['firmware']}
    assert set(found) == {'bios', 'bmc'}
    bios = found['bios']
    assert (bios['initial_version'], bios['current_version'],
            bios['last_version_flashed']) == ('2.1.0', '2.2.0', '2.2.0')
    assert bios['created_at'] and bios['updated_at']
    assert (found['bmc']['current_version'],
            found['bmc']['last_version_flashed']) == ('4.0', None)


def test_firmware_update_refuses_unknown_components(api, available_node):
    node = available_node()
    api.put('/v1/nodes/%s/states/provision' % node['uuid'],
            {'target': 'manage'})
    wait_for(lambda: api.get('/v1/nodes/%s' % node['uuid']).json[
        'provision_state'] == 'manageable')
    api.put('/v1/nodes/%s/states/provision' % node['uuid'], {
        'target': 'clean', 'clean_steps': [{
            'interface': 'firmware', 'step': 'update',
            'args': {'settings': [{'component': 'nic', 'url': 'x'}]}}]})
    wait_for(lambda: api.get('/v1/nodes/%s' % node['uuid']).json[
        'provision_state'] == 'clean failed')
    last_error = api.get('/v1/nodes/%s' % node['uuid']).json['last_error']
    assert 'component' in last_error and 'bios, bmc' in last_error


def test_virtual_media(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/vmedia' % node['uuid']
    assert api.post(path, {'device_type': 'CDROM',
                           'image_url': 'http://x/a.iso'},
                    version='1.88').status_code == 404
    response = api.post(path, {'device_type': 'CDROM',
                               'image_url': 'http://images/boot.iso',
                               'image_download_source': 'http'})
    assert response.status_code == 204
    media = {m['device_type']: m for m in api.get(path).json['vmedia']}
    assert media['cdrom'] == {'device_type': 'cdrom',
                              'image': 'http://images/boot.iso',
                              'inserted': True}
    assert media['floppy']['inserted'] is False
    assert api.get(path, version='1.92').status_code == 404
    bad = api.post(path, {'device_type': 'tape', 'image_url': 'x'})
    assert bad.status_code == 400 and 'device_type' in error_of(bad)
    assert api.delete(path + '?device_types=tape').status_code == 400
    assert api.delete(path + '?device_types=floppy').status_code == 204
    assert api.get(path).json['vmedia'][0]['inserted'] is True
    assert api.delete(path).status_code == 204
    assert api.post('/v1/nodes/does-not-exist/vmedia', {
        'device_type': 'cdrom', 'image_url': 'http://x'}).status_code == 404
    assert not any(m['inserted'] for m in api.get(path).json['vmedia'])

