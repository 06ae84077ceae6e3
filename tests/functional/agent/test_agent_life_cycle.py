"""A machine's whole life through the agent, driven only by the real
clients: enroll, agent inspection (inventory, ports, an inspection
rule), automated cleaning (the disk's partition table erased), deploy of
a raw image, rebuild with a qcow2 one (the disk holds each, the config
drive reads back, the OS answers SSH with its key), servicing with a
step of the agent's, rescue, unrescue and undeploy.

Two machines at once per deployment: a Redfish one booting virtual media,
driven through openstacksdk, and an IPMI one booting iPXE, driven through
``openstack baremetal``; on the all-in-one (SQLite) with fast track (the
agent booted for inspection goes on to clean and deploy, as in Metal3),
and on an API and a conductor over RabbitMQ and PostgreSQL without (each
flow boots its own agent).
"""

from __future__ import annotations

import concurrent.futures
import json
import pathlib
import subprocess

import pytest

from tests.functional.acceptance.conftest import sdk_wait_state
from tests.functional.agent import conftest as agent_conftest
from tests.functional.fixtures import services
from tests.functional.fixtures.clients import InProcessCli
from tests.functional.fixtures.clients import sdk_connection
from tests.functional.fixtures.sim_machine import disk_image
from tests.functional.fixtures.sim_machine.machines import MachineSpec
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, pytest.mark.parametrize(
    'site', [agent_conftest.SQLITE,
             pytest.param(agent_conftest.RABBITMQ_POSTGRESQL,
                          marks=services.OVER_RABBITMQ)],
    indirect=True, scope='module')]

RULE = {'description': 'mark machines inspected by the agent',
        'conditions': [{'op': 'gt', 'args': {
            'values': ['{inventory[cpu][count]}', '1']}}],
        'actions': [{'op': 'set-attribute',
                     'args': {'path': '/extra/inspected_by',
                              'value': 'agent'}}]}


@pytest.fixture(scope='module')
def site(request, tmp_path_factory, images):
    specs = [MachineSpec(bmc='redfish', nics=2, disk_size=2 * 2 ** 30),
             MachineSpec(bmc='ipmi', nics=2, disk_size=2 * 2 ** 30)]
    options = {'deploy': {'fast_track': True}} \
        if request.param == agent_conftest.SQLITE else None
    yield from agent_conftest.start_site(
        tmp_path_factory.mktemp('site'), request.param, images, specs,
        options=options)


@pytest.fixture
def keys(tmp_path):
    """An SSH key pair for the config drive."""
    path = tmp_path / 'id_ed25519'
    subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f',
                    str(path)], check=True)
    return path.read_text(), (tmp_path / 'id_ed25519.pub').read_text()


def _check_disk(machine, image, tmp: pathlib.Path, hostname: str) -> None:
    """The disk holds the image and the config drive, and the OS booted
    from it."""
    # The agent moves the backup GPT to the end of the disk and adds the
    # config drive's partition: what must match is the image's payload.
    assert image.payload_matches(machine.read_disk)
    meta = disk_image.read_config_drive(machine.read_disk, tmp)
    assert meta is not None and meta['hostname'] == hostname, meta
    os_state = wait_for(lambda: machine.state().get('os'), timeout=30,
                        what='the deployed OS of %s' % machine.name)
    assert os_state['hostname'] == hostname


def _ssh(machine, private_key: str, tmp: pathlib.Path) -> str:
    key = tmp / 'key'
    key.write_text(private_key)
    key.chmod(0o600)
    result = subprocess.run(
        ['ssh', '-i', str(key), '-p', str(machine.ssh_port),
         '-o', 'StrictHostKeyChecking=no',
         '-o', 'UserKnownHostsFile=/dev/null',
         '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10',
         '127.0.0.1', 'echo', 'deployed'],
        capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _boots_to_deploy(site) -> int:
    """Boots from an inspected machine to its deployed OS: with fast
    track only the OS's (the inspection's agent cleans and deploys);
    without, the cleaning's agent, the deploy's and the OS."""
    return 1 if site.fast_track else 3


def _agent_heartbeated(site, node_id: str) -> None:
    """With fast track, the inspection's agent looks the node up and
    heartbeats after it posted the inventory: until it has, the next
    flow cannot use it and boots one of its own."""
    if not site.fast_track:
        return

    def heartbeated():
        status, node = site.ironside.api('GET', '/v1/nodes/%s' % node_id)
        assert status == 200, node
        return 'agent_url' in node['driver_internal_info']
    wait_for(heartbeated, timeout=60, what='the agent to heartbeat')


def _after_undeploy(site, machine) -> None:
    """Cleaned after the undeploy: off, or running its agent (fast
    track)."""
    if site.fast_track:
        assert machine.state()['running'] == 'agent'
    else:
        # The BMC answers "off" as it starts the power-off; the machine's
        # own record of it follows (a loaded CI machine showed "on").
        wait_for(lambda: machine.state()['power'] == 'off', timeout=30,
                 what='the machine to be off after cleaning')


def _partition_table_gone(machine) -> bool:
    head = machine.read_disk(0, 34 * 512)
    return head[510:512] != b'\x55\xaa' and head[512:520] != b'EFI PART'


def _life_with_sdk(site, machine, keys, tmp: pathlib.Path) -> None:
    """The Redfish machine (virtual media), through openstacksdk."""
    sdk = sdk_connection(site.endpoint)
    # The CLI in the other thread rewrites os.environ (OS_*) around each
    # command; requests would read it for proxies meanwhile.
    sdk.session.session.trust_env = False
    images = site.images
    tmp.mkdir(parents=True)
    node = sdk.baremetal.create_node(**site.node_values(
        machine, boot_interface='redfish-virtual-media'))
    sdk.baremetal.set_node_provision_state(node, 'manage')
    sdk_wait_state(sdk, node.id, 'manageable')
    sdk.baremetal.set_node_provision_state(node, 'inspect')
    node = sdk_wait_state(sdk, node.id, 'manageable', timeout=120,
                          until=lambda n: 'cpus' in n.properties)
    assert node.properties['cpus'] == machine.cpus
    assert node.properties['memory_mb'] == machine.memory_mb
    assert node.properties['cpu_arch'] == machine.cpu_arch
    assert node.extra.get('inspected_by') == 'agent'
    assert sorted(p.address for p in sdk.baremetal.ports(node_id=node.id)) \
        == sorted(machine.macs)
    _agent_heartbeated(site, node.id)
    boots = machine.state()['boots']
    inventory = sdk.baremetal.get_node_inventory(node.id)
    assert {i['mac_address'] for i in inventory['inventory']['interfaces']} \
        == set(machine.macs)
    sdk.baremetal.set_node_provision_state(node, 'provide')
    sdk_wait_state(sdk, node.id, 'available', timeout=120)
    assert _partition_table_gone(machine)
    sdk.baremetal.update_node(node, instance_info=images.instance_info(
        images.raw))
    # A step of the agent's own, by name, before the image is written.
    sdk.baremetal.set_node_provision_state(
        node, 'active', config_drive={'meta_data': {
            'hostname': 'rf-raw', 'public_keys': {'k': keys[1]}}},
        deploy_steps=[{'interface': 'deploy',
                       'step': 'erase_devices_metadata', 'priority': 95,
                       'args': {}}])
    sdk_wait_state(sdk, node.id, 'active', timeout=120)
    status, history = site.ironside.api(
        'GET', '/v1/nodes/%s/history?detail=true' % node.id)
    assert status == 200, history
    assert any('step deploy.erase_devices_metadata finished' in e['event']
               for e in history['history']), history
    _check_disk(machine, images.raw, tmp / 'raw', 'rf-raw')
    assert _ssh(machine, keys[0], tmp) == 'deployed'
    assert machine.state()['boots'] - boots == _boots_to_deploy(site)
    sdk.baremetal.update_node(node, instance_info=images.instance_info(
        images.qcow2))
    sdk.baremetal.set_node_provision_state(
        node, 'rebuild', config_drive={'meta_data': {
            'hostname': 'rf-qcow2', 'public_keys': {'k': keys[1]}}})
    sdk_wait_state(sdk, node.id, 'active', timeout=120,
                   until=lambda n: n.provision_state == 'active')
    _check_disk(machine, images.qcow2, tmp / 'qcow2', 'rf-qcow2')
    sdk.baremetal.set_node_provision_state(node, 'rescue',
                                           rescue_password='s3cret')
    sdk_wait_state(sdk, node.id, 'rescue', timeout=120)
    assert machine.state()['running'] == 'agent'
    sdk.baremetal.set_node_provision_state(node, 'unrescue')
    sdk_wait_state(sdk, node.id, 'active', timeout=120)
    wait_for(lambda: machine.state().get('running') == 'os', timeout=30,
             what='the OS again after unrescue')
    sdk.baremetal.set_node_provision_state(node, 'undeploy')
    sdk_wait_state(sdk, node.id, 'available', timeout=120)
    assert _partition_table_gone(machine)
    _after_undeploy(site, machine)


def _life_with_cli(site, machine, keys, tmp: pathlib.Path) -> None:
    """The IPMI machine (iPXE), through ``openstack baremetal``."""
    cli = InProcessCli(site.endpoint)
    images = site.images
    tmp.mkdir(parents=True)
    values = site.node_values(machine, boot_interface='ipxe')
    args = ['node', 'create', '--driver', values['driver'], '--name',
            values['name'], '--deploy-interface', 'direct',
            '--boot-interface', 'ipxe', '--inspect-interface', 'agent',
            '--rescue-interface', 'agent', '-f', 'json']
    for key, value in values['driver_info'].items():
        args += ['--driver-info', '%s=%s' % (key, value)]
    node = cli(*args)['uuid']
    # iPXE finds a machine's script by the MAC it booted from: the
    # operator enrolls that one; inspection finds the other.
    cli('port', 'create', machine.macs[0], '--node', node)

    def state(expected: str, timeout: float = 120) -> dict:
        return wait_for(
            lambda: (lambda shown: shown if shown['provision_state'] ==
                     expected else None)(cli('node', 'show', node, '-f',
                                             'json')),
            timeout=timeout, interval=0.2, what='%s %s' % (node, expected))

    cli('node', 'manage', node)
    state('manageable')
    cli('node', 'inspect', node)
    shown = wait_for(lambda: (lambda n: n if n['inspection_finished_at']
                              else None)(cli('node', 'show', node, '-f',
                                             'json')),
                     timeout=120, interval=0.2, what='inspection')
    assert shown['provision_state'] == 'manageable', shown['last_error']
    assert shown['properties']['cpus'] == machine.cpus
    assert shown['extra']['inspected_by'] == 'agent'
    ports = cli('port', 'list', '--node', node, '--fields', 'address',
                '-f', 'json')
    assert sorted(p['address'] for p in ports) == sorted(machine.macs)
    _agent_heartbeated(site, node)
    boots = machine.state()['boots']
    cli('node', 'provide', node)
    state('available')
    assert _partition_table_gone(machine)
    cli('node', 'set', node, '--instance-info',
        'image_source=%s' % images.url(images.qcow2), '--instance-info',
        'image_os_hash_algo=sha256', '--instance-info',
        'image_os_hash_value=%s' % images.qcow2.file_sha256)
    config_drive = tmp / 'config-drive.json'
    config_drive.write_text(json.dumps({'meta_data': {
        'hostname': 'ipmi-qcow2', 'public_keys': {'k': keys[1]}}}))
    cli('node', 'deploy', node, '--config-drive', str(config_drive))
    state('active')
    _check_disk(machine, images.qcow2, tmp / 'qcow2', 'ipmi-qcow2')
    assert _ssh(machine, keys[0], tmp) == 'deployed'
    assert machine.state()['boots'] - boots == _boots_to_deploy(site)
    cli('node', 'set', node, '--instance-info',
        'image_source=%s' % images.url(images.raw), '--instance-info',
        'image_os_hash_value=%s' % images.raw.file_sha256)
    config_drive.write_text(json.dumps({'meta_data': {
        'hostname': 'ipmi-raw', 'public_keys': {'k': keys[1]}}}))
    cli('node', 'rebuild', node, '--config-drive', str(config_drive))
    state('active')
    _check_disk(machine, images.raw, tmp / 'raw', 'ipmi-raw')
    # Servicing (1.87) boots the agent on the deployed machine for a step
    # of its own, then boots the instance again.
    cli('node', 'service', node, '--service-steps', json.dumps([
        {'interface': 'deploy', 'step': 'inject_files',
         'args': {'files': []}}]))
    state('active')
    wait_for(lambda: machine.state().get('running') == 'os', timeout=30,
             what='the OS again after servicing')
    cli('node', 'rescue', node, '--rescue-password', 's3cret')
    state('rescue')
    cli('node', 'unrescue', node)
    state('active')
    cli('node', 'undeploy', node)
    state('available')
    assert _partition_table_gone(machine)
    _after_undeploy(site, machine)


def test_life_cycle(site, keys, tmp_path):
    status, body = site.ironside.api('POST', '/v1/inspection_rules', RULE)
    assert status == 201, body
    redfish, ipmi = site.machines[0], site.machines[1]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        with_sdk = pool.submit(_life_with_sdk, site, redfish, keys,
                               tmp_path / 'redfish')
        _life_with_cli(site, ipmi, keys, tmp_path / 'ipmi')
        with_sdk.result()
