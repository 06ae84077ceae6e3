"""Deploys that go wrong, with the real agent: each ends with the node in
``deploy failed``, ``deploy_step`` and ``last_error`` naming the step and
the cause, ``failure_reason`` naming it for programs, the machine powered
off and the node unlocked; nothing half-written is called deployed.
Heartbeats the conductor must refuse change nothing. The host is as it
was before the agents ran (the killed agent's successor locks itself
down, and its ``ip link set down`` must not reach the host).
"""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from tests.functional.agent import conftest as agent_conftest
from tests.functional.fixtures.sim_machine.machines import MachineSpec
from tests.utils import wait_for

pytestmark = [pytest.mark.functional,
              pytest.mark.xdist_group('agent-failures')]

# Short waits: an agent that never heartbeats fails its deploy in 20 s.
FAST_FAILURE = {'conductor': {'deploy_callback_timeout': 20}}
# Bytes a second of the slow image server: a 64 MiB image takes 8 s.
SLOW_RATE = 8 * 1024 * 1024


class _SlowHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the images a little at a time, and says when a GET starts."""

    started = threading.Event()

    def log_message(self, *args: object) -> None:
        pass

    def copyfile(self, source, outputfile) -> None:
        type(self).started.set()
        while chunk := source.read(SLOW_RATE // 10):
            outputfile.write(chunk)
            time.sleep(0.1)


@pytest.fixture(scope='module')
def site(tmp_path_factory, images):
    specs = [MachineSpec(bmc='redfish', disk_size=2 ** 30),
             MachineSpec(bmc='ipmi', disk_size=2 ** 30),
             MachineSpec(bmc='redfish', disk_size=2 ** 30)]
    yield from agent_conftest.start_site(
        tmp_path_factory.mktemp('failures'), agent_conftest.SQLITE, images,
        specs, FAST_FAILURE)


@pytest.fixture(scope='module')
def slow_images(images):
    handler = lambda *a, **k: _SlowHandler(  # noqa: E731
        *a, directory=str(images.raw.path.parent), **k)
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield 'http://127.0.0.1:%d' % server.server_port
    server.shutdown()
    server.server_close()


def _available(site, machine) -> str:
    status, body = site.ironside.api('POST', '/v1/nodes', site.node_values(
        machine, boot_interface='ipxe'))
    assert status == 201, body
    uuid = body['uuid']
    for mac in machine.macs:
        site.ironside.api('POST', '/v1/ports',
                          {'node_uuid': uuid, 'address': mac})
    for verb, state in (('manage', 'manageable'), ('provide', 'available')):
        _provision(site, uuid, verb)
        _wait(site, uuid, state)
    return uuid


def _provision(site, uuid: str, target: str, **body) -> None:
    status, answer = site.ironside.api(
        'PUT', '/v1/nodes/%s/states/provision' % uuid,
        dict(body, target=target))
    assert status == 202, answer


def _node(site, uuid: str) -> dict:
    status, body = site.ironside.api('GET', '/v1/nodes/%s' % uuid)
    assert status == 200, body
    return body


def _wait(site, uuid: str, state: str, timeout: float = 90) -> dict:
    return wait_for(lambda: (lambda n: n if n['provision_state'] == state
                             and n['reservation'] is None else None)(
        _node(site, uuid)), timeout=timeout, interval=0.2,
        what='node %s to reach %s' % (uuid, state))


def _deploy(site, uuid: str, instance_info: dict) -> None:
    status, body = site.ironside.api('PATCH', '/v1/nodes/%s' % uuid, [
        {'op': 'add', 'path': '/instance_info', 'value': instance_info}])
    assert status == 200, body
    _provision(site, uuid, 'active')


def _failed(site, uuid: str, machine, step: str, reason: str,
            message: str, timeout: float = 90) -> dict:
    node = _wait(site, uuid, 'deploy failed', timeout)
    assert node['deploy_step']['step'] == step, node['deploy_step']
    assert node['failure_reason'] == reason, node
    assert message in node['last_error'], node['last_error']
    assert node['power_state'] == 'power off'
    # The BMC said off; the machine behind it follows (its state file is
    # written once the firmware has stopped what ran).
    wait_for(lambda: machine.state()['power'] == 'off', timeout=30,
             interval=0.2, what='%s off' % machine.name)
    return node


def test_wrong_checksum(site, images):
    machine = site.machines[0]
    uuid = _available(site, machine)
    info = site.images.instance_info(images.raw,
                                     image_os_hash_value='0' * 64)
    _deploy(site, uuid, info)
    _failed(site, uuid, machine, 'write_image', 'ImageChecksumError',
            'deploy.write_image')
    # Nothing of the image booted: the machine is off, and the disk,
    # though partly written, is not what the deploy was to make.
    assert machine.state().get('os') is None


def test_image_not_found(site, images):
    machine = site.machines[1]
    uuid = _available(site, machine)
    info = site.images.instance_info(images.raw, image_disk_format='raw')
    info['image_source'] = images.url(images.raw) + '.missing'
    _deploy(site, uuid, info)
    _failed(site, uuid, machine, 'write_image', 'ImageDownloadFatalError',
            '404')


def test_agent_never_boots(site, images):
    machine = site.machines[2]
    uuid = _available(site, machine)
    machine.set_boot_script_url(None)  # DHCP offers no boot file
    try:
        _deploy(site, uuid, site.images.instance_info(images.raw))
        _failed(site, uuid, machine, 'deploy', 'StepTimeout',
                'Timeout reached while waiting for deploy step '
                'deploy.deploy', timeout=60)
    finally:
        machine.set_boot_script_url(site.boot_url + '/boot.ipxe')


def test_agent_killed_while_writing(site, images, slow_images):
    machine = site.machines[0]
    uuid = wait_for(lambda: _node(site, machine.name), what='node')['uuid']
    _provision(site, uuid, 'active')  # the checksum test left it failed
    _failed(site, uuid, machine, 'write_image', 'ImageChecksumError',
            'write_image')
    _SlowHandler.started.clear()
    info = site.images.instance_info(images.raw)
    info['image_source'] = '%s/%s' % (slow_images, images.raw.path.name)
    _deploy(site, uuid, info)
    assert _SlowHandler.started.wait(60), 'the agent never fetched'
    machine.kill_agent()
    # Its successor has no token (the node gave it to the killed one):
    # it locks itself down and answers nothing, and heartbeats no more.
    node = _failed(site, uuid, machine, 'write_image', 'AgentUnreachable',
                   'could not be reached', timeout=60)
    assert 'deploy.write_image' in node['last_error']


def test_heartbeats_that_change_nothing(site, images, slow_images):
    machine = site.machines[1]
    uuid = _node(site, machine.name)['uuid']
    status, body = site.ironside.api(
        'POST', '/v1/heartbeat/%s' % uuid,
        {'callback_url': 'https://127.0.0.1:1', 'agent_version': '13.0.0',
         'agent_token': 'x' * 43})
    # deploy failed takes no heartbeat, and the agent that had the
    # node's token was powered off with it: refused, nothing recorded.
    assert status == 400, body
    assert _node(site, uuid)['provision_state'] == 'deploy failed'
    assert 'agent_url' not in _node(site, uuid)['driver_internal_info']
    _SlowHandler.started.clear()
    info = site.images.instance_info(images.raw)
    info['image_source'] = '%s/%s' % (slow_images, images.raw.path.name)
    _deploy(site, uuid, info)
    assert _SlowHandler.started.wait(60), 'the agent never fetched'
    before = _node(site, uuid)['driver_internal_info']['agent_url']
    status, body = site.ironside.api(
        'POST', '/v1/heartbeat/%s' % uuid,
        {'callback_url': 'https://127.0.0.1:1', 'agent_version': '13.0.0',
         'agent_token': 'x' * 43})
    assert status == 400, body
    assert _node(site, uuid)['driver_internal_info']['agent_url'] == before
    node = _wait(site, uuid, 'active')
    assert node['last_error'] is None
