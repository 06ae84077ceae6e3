"""metalsmith and Nova's Ironic driver deploy images with the agent.

metalsmith provisions an HTTP whole-disk image (its checksum given, as
metalsmith's HttpWholeDiskImage takes it) with its config drive of SSH
keys, and an HTTP partition image (HttpPartitionImage: a kernel and a
ramdisk beside it, the root partition's size from the node), which the
agent writes to a root partition of its own making. The replay of
Nova's Ironic driver calls (tests/functional/acceptance/
test_nova_replay.py shows where each comes from) spawns an instance with
a real config drive as Nova builds one (a gzipped ISO 9660, base64).
Nova would name a Glance image; no Glance runs here, so its
instance_info carries the HTTP URL and the hash Ironic would have read
off Glance. The images reach the simulated disks.
"""

from __future__ import annotations

import base64
import concurrent.futures
import gzip
import json
import subprocess
import uuid

import metalsmith
import pytest
from metalsmith import instance_config
from metalsmith import sources

from tests.functional.acceptance.conftest import sdk_wait_state
from tests.functional.acceptance.test_nova_replay import NODE_FIELDS
from tests.functional.agent import conftest as agent_conftest
from tests.functional.fixtures.clients import sdk_connection
from tests.functional.fixtures.sim_machine import disk_image
from tests.functional.fixtures.sim_machine.machines import MachineSpec
from tests.utils import wait_for

NOVA_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAInova'

pytestmark = [pytest.mark.functional,
              pytest.mark.xdist_group('agent-clients')]


@pytest.fixture(scope='module')
def site(tmp_path_factory, images):
    specs = [MachineSpec(bmc='redfish', disk_size=2 ** 30),
             MachineSpec(bmc='ipmi', disk_size=2 ** 30),
             MachineSpec(bmc='redfish', disk_size=3 * 2 ** 30)]
    # ironic-python-agent installs no boot loader into a partition image
    # it cannot chroot into (and none for BIOS at all since CVE-2026-43003
    # unless told to): the simulated firmware finds the OS on whichever
    # partition holds it, as firmware that searches the disk for boot
    # loaders does, which is what this agent option is for.
    options = {'pxe': {'kernel_append_params':
                       agent_conftest.AGENT_OPTIONS['pxe'][
                           'kernel_append_params'] +
                       ' ipa-ignore-bootloader-failure=1'}}
    yield from agent_conftest.start_site(
        tmp_path_factory.mktemp('clients'), agent_conftest.SQLITE, images,
        specs, options=options)


def _enroll(sdk, site, machine, local_gb: int = 1):
    node = sdk.baremetal.create_node(**site.node_values(
        machine, boot_interface='ipxe',
        properties={'cpus': machine.cpus, 'memory_mb': machine.memory_mb,
                    'local_gb': local_gb, 'cpu_arch': machine.cpu_arch}))
    for mac in machine.macs:
        sdk.baremetal.create_port(node_id=node.id, address=mac)
    for verb, state in (('manage', 'manageable'), ('provide', 'available')):
        sdk.baremetal.set_node_provision_state(node, verb)
        node = sdk_wait_state(sdk, node.id, state, timeout=120)
    return node


def _holds(machine, image, tmp) -> dict:
    assert image.payload_matches(machine.read_disk)
    meta = disk_image.read_config_drive(machine.read_disk, tmp)
    assert meta is not None
    return meta


def _metalsmith(site, machine, tmp) -> None:
    sdk = sdk_connection(site.endpoint)
    node = _enroll(sdk, site, machine)
    provisioner = metalsmith.Provisioner(cloud_region=sdk.config)
    reserved = provisioner.reserve_node('baremetal', candidates=[node.id],
                                        hostname='web-1')
    config = instance_config.GenericConfig(
        ssh_keys=['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMs web'])
    image = site.images.raw
    instance = provisioner.provision_node(
        reserved, sources.HttpWholeDiskImage(site.images.url(image),
                                             checksum=image.file_sha256),
        config=config, hostname='web-1', wait=180)
    assert instance.state == metalsmith.InstanceState.ACTIVE
    meta = _holds(machine, image, tmp)
    assert meta['hostname'] == 'web-1'
    assert 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMs web' in \
        meta['public_keys'].values()
    provisioner.unprovision_node('web-1', wait=180)
    assert sdk.baremetal.get_node(node.id).provision_state == 'available'


def _nova_configdrive(tmp, instance: str) -> str:
    """What Nova's configdrive builder makes: an ISO 9660 labelled
    config-2 with openstack/latest/meta_data.json, gzipped, base64."""
    tree = tmp / 'cd' / 'openstack' / 'latest'
    tree.mkdir(parents=True)
    (tree / 'meta_data.json').write_text(json.dumps({
        'uuid': instance, 'hostname': 'vm-1', 'name': 'vm-1',
        'public_keys': {'mykey': NOVA_KEY}}))
    iso = tmp / 'cd.iso'
    subprocess.run(['xorriso', '-as', 'mkisofs', '-quiet', '-J', '-R', '-V',
                    'config-2', '-o', str(iso), str(tmp / 'cd')],
                   check=True, capture_output=True)
    return base64.b64encode(gzip.compress(iso.read_bytes())).decode()


def _nova(site, machine, tmp) -> None:
    sdk = sdk_connection(site.endpoint)
    node = _enroll(sdk, site, machine)
    instance = str(uuid.uuid4())
    node = sdk.baremetal.get_node(node.id, fields=NODE_FIELDS)
    sdk.baremetal.update_node(node, retry_on_conflict=False,
                              instance_id=instance)
    sdk.baremetal.attach_vif_to_node(node, str(uuid.uuid4()),
                                     retry_on_conflict=False)
    image = site.images.qcow2
    values = {'image_source': site.images.url(image), 'root_gb': '1',
              'swap_mb': '0', 'display_name': 'vm-1', 'vcpus': '2',
              'memory_mb': '4096', 'local_gb': '1',
              'nova_host_id': 'cmp1',
              # Read off Glance by Ironic; given here.
              'image_os_hash_algo': 'sha256',
              'image_os_hash_value': image.file_sha256,
              'image_disk_format': 'qcow2'}
    sdk.baremetal.patch_node(node, [
        {'op': 'add', 'path': '/instance_info/%s' % key, 'value': value}
        for key, value in values.items()])
    checks = sdk.baremetal.validate_node(node.id, required=None)
    for interface in ('boot', 'deploy', 'power', 'management'):
        assert checks[interface].result is True, checks[interface].reason
    sdk.baremetal.set_node_provision_state(
        node.id, 'active', config_drive=_nova_configdrive(tmp, instance))
    wait_for(lambda: (lambda n: n.provision_state == 'active' or
                      (n.provision_state == 'deploy failed' and
                       pytest.fail(n.last_error)))(
        sdk.baremetal.get_node(node.id, fields=NODE_FIELDS)),
        timeout=180, interval=0.2, what='active')
    meta = _holds(machine, image, tmp / 'check')
    assert meta['uuid'] == instance
    sdk.baremetal.set_node_provision_state(node.id, 'deleted')
    done = sdk_wait_state(sdk, node.id, 'available', timeout=180)
    assert done.instance_id is None


def test_metalsmith_and_nova_write_their_images(site, tmp_path):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        with_metalsmith = pool.submit(_metalsmith, site, site.machines[0],
                                      tmp_path / 'metalsmith')
        (tmp_path / 'nova').mkdir()
        _nova(site, site.machines[1], tmp_path / 'nova')
        with_metalsmith.result()


def test_metalsmith_writes_a_partition_image(site, tmp_path):
    machine = site.machines[2]
    sdk = sdk_connection(site.endpoint)
    # metalsmith sizes the root partition local_gb - 1: 2 GiB of 3.
    node = _enroll(sdk, site, machine, local_gb=3)
    provisioner = metalsmith.Provisioner(cloud_region=sdk.config)
    reserved = provisioner.reserve_node('baremetal', candidates=[node.id],
                                        hostname='db-1')
    image = site.images.partition
    config = instance_config.GenericConfig(
        ssh_keys=['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMs db'])
    instance = provisioner.provision_node(
        reserved, sources.HttpPartitionImage(
            site.images.url(image), kernel_url=site.images.server.url +
            '/vmlinuz', ramdisk_url=site.images.server.url + '/initrd',
            checksum=image.file_sha256),
        config=config, hostname='db-1', wait=180)
    assert instance.state == metalsmith.InstanceState.ACTIVE
    deployed = sdk.baremetal.get_node(node.id)
    assert deployed.instance_info['root_gb'] == 2
    assert deployed.driver_internal_info['is_whole_disk_image'] is False
    root = image.root_partition(machine.read_disk)
    assert root is not None, 'the image is on no partition of the disk'
    assert root.size == 2 * 2 ** 30
    meta = disk_image.read_config_drive(machine.read_disk, tmp_path)
    assert meta is not None and meta['hostname'] == 'db-1'
    assert meta['partition'] != root.number
    # The agent named the root file system's UUID; the machine booted
    # the OS it found on that partition.
    assert deployed.driver_internal_info['root_uuid_or_disk_id'] == \
        image.fs_uuid
    wait_for(lambda: 'booting %s' % image.name in machine.console_log(),
             timeout=60, interval=0.2, what='the OS booted from the disk')
    provisioner.unprovision_node('db-1', wait=180)
    assert sdk.baremetal.get_node(node.id).provision_state == 'available'
