"""ironside-api in its own process, with conductors over RabbitMQ; and
allocations the way metalsmith makes them, through the CLI."""

from __future__ import annotations

import json

import pytest

from tests.functional.fixtures import services
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]


def test_api_process_with_conductors_over_rabbitmq(split):
    split.start_conductor('conductor-a')
    api = split.start_api()
    status, node = api.api('POST', '/v1/nodes', {
        'driver': 'fake-hardware', 'name': 'over-rpc'})
    assert status == 201, node
    assert node['conductor'] == 'conductor-a'
    status, error = api.api('PUT',
                            '/v1/nodes/over-rpc/states/provision',
                            {'target': 'provide'})
    assert status == 400
    assert json.loads(error['error_message'])['faultstring'] == (
        'The requested action "provide" can not be performed on node '
        '"%s" while it is in state "enroll".' % node['uuid'])
    # Refusals raised in the conductor cross RPC as code and message
    # only: no traceback, no file path (issue 17, finding 5).
    status, error = api.api('POST', '/v1/nodes', {
        'driver': 'fake-hardware', 'name': 'over-rpc'})
    assert status == 409
    assert json.loads(error['error_message'])['faultstring'] == \
        'A node with name over-rpc already exists.'
    status, error = api.api('PUT',
                            '/v1/nodes/over-rpc/management/boot_device',
                            {'boot_device': 'floppy'})
    assert status == 400
    fault = json.loads(error['error_message'])['faultstring']
    assert fault == 'Invalid boot device floppy specified.'
    status, _ = api.api('PUT',
                        '/v1/nodes/over-rpc/states/provision',
                        {'target': 'manage'})
    assert status == 202
    wait_for(lambda: api.api('GET', '/v1/nodes/over-rpc')[1][
        'provision_state'] == 'manageable', timeout=30)


def test_volume_runbooks_and_allocations_over_rabbitmq(split):
    """Issue 13's families through an API process and conductors over
    RabbitMQ, on PostgreSQL and MariaDB: what crosses RPC (the allocation
    as created, volume changes under the node's lock) survives it."""
    split.start_conductor('conductor-a')
    api = split.start_api()
    status, node = api.api('POST', '/v1/nodes', {
        'driver': 'fake-hardware', 'name': 'vol-node',
        'resource_class': 'gold'})
    assert status == 201, node
    status, _ = api.api('PUT',
                        '/v1/nodes/vol-node/states/power',
                        {'target': 'power off'})
    assert status == 202
    wait_for(lambda: api.api('GET', '/v1/nodes/vol-node')[1][
        'power_state'] == 'power off', timeout=30)
    for kind, body in (
            ('connectors', {'type': 'wwpn',
                            'connector_id': '50:01:43:80:12:34:56:78'}),
            ('targets', {'volume_type': 'fibre_channel',
                         'boot_index': 0, 'volume_id': 'v1'})):
        status, item = api.api('POST', '/v1/volume/' + kind,
                               dict(body, node_uuid=node['uuid']))
        assert status == 201, item
        path = '/v1/volume/%s/%s' % (kind, item['uuid'])
        status, patched = api.api('PATCH', path, [
            {'op': 'add', 'path': '/extra/k', 'value': 'v'}])
        assert (status, patched['extra']) == (200, {'k': 'v'}), patched
        assert api.api('DELETE', path)[0] == 204
        assert api.api('GET', path)[0] == 404
    # Virtual media (1.89/1.93) goes to the node's conductor and back.
    assert api.api('POST', '/v1/nodes/vol-node/vmedia', {
        'device_type': 'cdrom',
        'image_url': 'http://images/boot.iso'})[0] == 204
    status, media = api.api('GET', '/v1/nodes/vol-node/vmedia')
    assert status == 200, media
    assert {'device_type': 'cdrom', 'image': 'http://images/boot.iso',
            'inserted': True} in media['vmedia']
    assert api.api('DELETE', '/v1/nodes/vol-node/vmedia')[
        0] == 204
    # Firmware (1.86): read when the node is cleaned.
    for verb, state in (('manage', 'manageable'),
                        ('provide', 'available')):
        assert api.api('PUT',
                       '/v1/nodes/vol-node/states/provision',
                       {'target': verb})[0] == 202
        wait_for(lambda s=state: api.api('GET', '/v1/nodes/vol-node')[1][
            'provision_state'] == s, timeout=60, what=state)
    status, firmware = api.api('GET',
                               '/v1/nodes/vol-node/firmware')
    assert status == 200, firmware
    assert {c['component'] for c in firmware['firmware']} == {
        'bios', 'bmc'}
    status, runbook = api.api('POST', '/v1/runbooks', {
        'name': 'CUSTOM_SPLIT', 'steps': [{
            'interface': 'bios', 'step': 'factory_reset', 'order': 0}]})
    assert status == 201, runbook
    assert api.api('DELETE',
                   '/v1/runbooks/CUSTOM_SPLIT')[0] == 204
    status, allocation = api.api('POST', '/v1/allocations',
                                 {'resource_class': 'gold'})
    assert status == 201, allocation
    assert allocation['state'] == 'allocating'
    assert allocation['created_at'].endswith('+00:00')

    def processed():
        shown = api.api('GET',
                        '/v1/allocations/%s' % allocation['uuid'])[1]
        return shown if shown['state'] != 'allocating' else None

    done = wait_for(processed, timeout=30, what='the allocation')
    # The node is available now, and the only one of its class.
    assert done['state'] == 'active', done


def test_allocation_create_wait_through_the_cli(ironside):
    ironside.cli('node', 'create', '--driver', 'fake-hardware', '--name',
                 'alloc-node', '--resource-class', 'gold')
    ironside.cli('node', 'manage', 'alloc-node', '--wait', '60')
    ironside.cli('node', 'provide', 'alloc-node', '--wait', '60')
    ironside.cli('node', 'add', 'trait', 'alloc-node', 'CUSTOM_FAST')
    allocation = ironside.cli('allocation', 'create', '--resource-class',
                              'gold', '--trait', 'CUSTOM_FAST', '--name',
                              'a1', '--wait', '60', '-f', 'json')
    assert allocation['state'] == 'active'
    node = ironside.cli('node', 'show', 'alloc-node', '-f', 'json')
    assert allocation['node_uuid'] == node['uuid']
    assert node['instance_uuid'] == allocation['uuid']
    assert node['allocation_uuid'] == allocation['uuid']
    ironside.cli('allocation', 'delete', 'a1')
    node = ironside.cli('node', 'show', 'alloc-node', '-f', 'json')
    assert node['instance_uuid'] is None
