"""ironside-api in its own process, with conductors over RabbitMQ; and
allocations the way metalsmith makes them, through the CLI."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.functional.fixtures import processes
from tests.functional.fixtures import services
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]


def _request(endpoint, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        endpoint + path, data=data, method=method,
        headers={'X-OpenStack-Ironic-API-Version': 'latest',
                 'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_api_process_with_conductors_over_rabbitmq(split):
    split.start_conductor('conductor-a')
    port = services.free_port()
    config = split.workdir / 'api.conf'
    sections = {k: dict(v) for k, v in split.sections.items()}
    sections['DEFAULT']['host'] = 'api-host'
    sections['api'] = {'host_ip': '127.0.0.1', 'port': port}
    processes.write_config(config, sections)
    api = processes.IronsideProcess('ironside-api', config, split.workdir,
                                    'api').start()
    endpoint = 'http://127.0.0.1:%d' % port

    def _up():
        assert api.running, api.log()
        try:
            return _request(endpoint, 'GET', '/')[0] == 200
        except OSError:
            return False

    try:
        wait_for(_up, timeout=30, interval=0.2, what='ironside-api')
        status, node = _request(endpoint, 'POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 'over-rpc'})
        assert status == 201, node
        assert node['conductor'] == 'conductor-a'
        status, error = _request(endpoint, 'PUT',
                                 '/v1/nodes/over-rpc/states/provision',
                                 {'target': 'provide'})
        assert status == 400
        assert json.loads(error['error_message'])['faultstring'] == (
            'The requested action "provide" can not be performed on node '
            '"%s" while it is in state "enroll".' % node['uuid'])
        # Refusals raised in the conductor cross RPC as code and message
        # only: no traceback, no file path (issue 17, finding 5).
        status, error = _request(endpoint, 'POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 'over-rpc'})
        assert status == 409
        assert json.loads(error['error_message'])['faultstring'] == \
            'A node with name over-rpc already exists.'
        status, error = _request(endpoint, 'PUT',
                                 '/v1/nodes/over-rpc/management/boot_device',
                                 {'boot_device': 'floppy'})
        assert status == 400
        fault = json.loads(error['error_message'])['faultstring']
        assert fault == 'Invalid boot device floppy specified.'
        status, _ = _request(endpoint, 'PUT',
                             '/v1/nodes/over-rpc/states/provision',
                             {'target': 'manage'})
        assert status == 202
        wait_for(lambda: _request(endpoint, 'GET', '/v1/nodes/over-rpc')[1][
            'provision_state'] == 'manageable', timeout=30)
    finally:
        assert api.stop() == 0, api.log()


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
