"""The simulated machines on their own, against a stand-in for Ironic's
ramdisk API: a Redfish machine and an IPMI machine boot the real
ironic-python-agent over iPXE (and the Redfish one from virtual media),
the agent looks them up by MAC and heartbeats, writes raw and qcow2
images and a config drive to their loop devices, powers them off through
their BMCs; from disk they boot an OS that lets the config drive's key in
over SSH. Lockdown and rescue leave the host untouched.

The two machines share one supervisor for the module and work side by
side in each test.
"""

from __future__ import annotations

import concurrent.futures
import pathlib
import socket
import subprocess
import time
import uuid

import pytest

from tests.functional.fixtures import sshd
from tests.functional.fixtures.sim_machine import bmc_client
from tests.functional.fixtures.sim_machine import disk_image
from tests.functional.fixtures.sim_machine import file_server
from tests.functional.fixtures.sim_machine import host
from tests.functional.fixtures.sim_machine import machines
from tests.functional.fixtures.sim_machine.machines import MachineSpec
from tests.functional.sim_machine import stand_ins
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group('sim-machine')]

MiB = 1024 * 1024


class Site:
    """The module's machines and what stands around them."""

    def __init__(self, base: pathlib.Path) -> None:
        self.base = base
        self.http_root = base / 'http'
        self.http_root.mkdir()
        self.files = file_server.FileServer(self.http_root).start()
        self.api = stand_ins.RamdiskAPI().start()
        self.sims = machines.SimulatedMachines(
            base / 'machines',
            specs=[MachineSpec(bmc='redfish', nics=2),
                   MachineSpec(bmc='ipmi', boot_mode='bios')])
        self.nodes: dict[str, str] = {}

    def start(self) -> Site:
        self.sims.start()
        self.sims.set_boot_script_url(self.files.url + '/boot.ipxe')
        for machine in self.sims:
            node = str(uuid.uuid4())
            self.nodes[machine.name] = node
            self.api.add_node(node, machine.macs)
        return self

    def stop(self) -> None:
        self.sims.stop()
        self.api.stop()
        self.files.stop()

    def node(self, machine: machines.Machine) -> str:
        return self.nodes[machine.name]

    def pxe_agent(self, machine: machines.Machine, label: str = 'deploy'
                  ) -> None:
        stand_ins.write_ipxe_boot(
            self.http_root, self.files.url, self.node(machine),
            machine.macs, self.sims.deploy_kernel, self.sims.deploy_ramdisk,
            'ipa-api-url=%s ipa-debug=1' % self.api.url, label=label)

    def boot_agent(self, machine: machines.Machine, device: str = 'network'
                   ) -> tuple[stand_ins.AgentClient, float]:
        """Power on from ``device``; the agent client once the agent
        heartbeats, and the seconds from power-on to heartbeat."""
        node = self.node(machine)
        known = len([beat for beat in self.api.heartbeats
                     if beat['node'] == node])
        self.api.power_cycled(node)
        client = bmc_client.BmcClient(machine.driver_info())
        started = time.time()
        client.boot(device)
        client.close()

        def heartbeat() -> dict | None:
            beats = [beat for beat in self.api.heartbeats
                     if beat['node'] == node]
            return beats[-1] if len(beats) > known else None

        beat = wait_for(heartbeat, timeout=60, interval=0.05,
                        what='%s to heartbeat' % machine.name)
        token = self.api.nodes[node]['token']
        return (stand_ins.AgentClient(beat, token, self.base),
                beat['time'] - started)

    def power_off(self, machine: machines.Machine) -> None:
        client = bmc_client.BmcClient(machine.driver_info())
        client.power('off')
        client.close()
        wait_for(lambda: machine.state().get('power') == 'off', timeout=30,
                 what='%s off' % machine.name)


@pytest.fixture(scope='module')
def site(tmp_path_factory):
    before = host.host_snapshot()
    site = Site(tmp_path_factory.mktemp('sim-machines')).start()
    yield site
    site.stop()
    host.assert_host_untouched(before,
                               stopped_work_dir=site.sims.work_dir)


def _both(function, *args_per_machine):
    """Run ``function`` for each argument tuple at once; the results."""
    with concurrent.futures.ThreadPoolExecutor(len(args_per_machine)) as \
            pool:
        return list(pool.map(lambda args: function(*args),
                             args_per_machine))


def _agent_gone(machine: machines.Machine) -> bool:
    with socket.socket() as sock:
        closed = sock.connect_ex(('127.0.0.1', machine.agent_port)) != 0
    return closed and machine.state().get('running') is None


def test_pxe_boot_looks_up_heartbeats_writes_images_and_boots_the_os(
        site, tmp_path, request):
    redfish, ipmi = site.sims
    images = {redfish.name: disk_image.make_disk_image(
                  site.http_root / 'os.raw', 'raw', 64 * MiB, seed=1),
              ipmi.name: disk_image.make_disk_image(
                  site.http_root / 'os.qcow2', 'qcow2', 64 * MiB, seed=2)}
    key = sshd.make_key_pair(tmp_path / 'key')
    for machine in site.sims:
        site.pxe_agent(machine)

    booted = dict(zip([redfish.name, ipmi.name],
                      _both(site.boot_agent, (redfish,), (ipmi,)),
                      strict=True))
    for machine in site.sims:
        agent, seconds = booted[machine.name]
        request.node.user_properties.append(
            ('power-on to heartbeat %s' % machine.bmc, round(seconds, 2)))
        # The agent looks its node up by all its MACs, then heartbeats
        # with its token and the certificate of its https API.
        lookup = next(entry for entry in site.api.lookups
                      if set(machine.macs) <= set(entry['addresses']))
        beat = site.api.last_heartbeat(site.node(machine))
        assert lookup['time'] <= beat['time']
        assert beat['callback_url'] == 'https://127.0.0.1:%d' \
            % machine.agent_port
        assert beat['agent_token'] == site.api.nodes[
            site.node(machine)]['token']
        assert beat['agent_verify_ca'].startswith(
            '-----BEGIN CERTIFICATE-----')
        console = machine.console_log()
        assert 'PXE: chain %s/boot.ipxe ... ok' % site.files.url in console
        assert 'booting agent with cmdline selinux=0 text ipa-api-url=%s' \
            % site.api.url in console
        assert 'BOOTIF=%s' % machine.macs[0] in console
        assert machine.state()['running'] == 'agent'

    def deploy(machine: machines.Machine) -> dict:
        agent = booted[machine.name][0]
        image = images[machine.name]
        config_drive = stand_ins.make_config_drive({
            'uuid': site.node(machine), 'hostname': 'os-' + machine.bmc,
            'public_keys': {'key': key.with_suffix('.pub').read_text()}})
        started = time.time()
        result = agent.run('standby.prepare_image', {
            'image_info': {
                'id': 'image-' + machine.bmc,
                'urls': [site.files.url + '/' + image.path.name],
                'disk_format': image.format, 'container_format': 'bare',
                'stream_raw_images': True, 'os_hash_algo': 'sha256',
                'os_hash_value': image.file_sha256,
                'node_uuid': site.node(machine)},
            'configdrive': config_drive})
        result['seconds'] = time.time() - started
        return result

    results = _both(deploy, (redfish,), (ipmi,))
    for machine, result in zip(site.sims, results, strict=True):
        assert result['command_status'] == 'SUCCEEDED', result
        request.node.user_properties.append(
            ('prepare_image %s' % images[machine.name].format,
             round(result['seconds'], 2)))
        # The image, byte for byte, but for the partition table the agent
        # rewrote (the backup GPT moved to the disk's end, the config
        # drive's partition added behind the image).
        assert images[machine.name].payload_matches(machine.read_disk)
        meta = disk_image.read_config_drive(machine.read_disk,
                                            tmp_path / machine.name)
        assert meta['hostname'] == 'os-' + machine.bmc
        assert meta['filesystem'] == 'iso9660'

    for machine in site.sims:
        booted[machine.name][0].command('standby.power_off', wait=False)
    for machine in site.sims:
        # The agent's poweroff powered the machine off through its BMC.
        wait_for(lambda m=machine: _agent_gone(m), timeout=30,
                 what='%s agent gone' % machine.name)
        client = bmc_client.BmcClient(machine.driver_info())
        assert client.power_state() == 'off'
        client.close()
        assert [c['command'] for c in machine.commands()
                if c['command'] == 'poweroff'] == ['poweroff']

    for machine in site.sims:
        client = bmc_client.BmcClient(machine.driver_info())
        client.boot('disk')
        client.close()
    for machine in site.sims:
        wait_for(lambda m=machine: m.state().get('running') == 'os',
                 timeout=30, what='%s OS:\n%s' % (machine.name,
                                                  machine.console_log()))
        state = machine.state()
        assert state['os']['hostname'] == 'os-' + machine.bmc
        assert state['os']['uuid'] == site.node(machine)
        assert 'OS up, sshd on port %d' % machine.ssh_port in \
            machine.console_log()
        out = subprocess.run(
            ['ssh', '-i', str(key), '-p', str(machine.ssh_port),
             '-o', 'StrictHostKeyChecking=no',
             '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes',
             '127.0.0.1', 'echo $NODE_NAME'],
            capture_output=True, text=True, timeout=30)
        assert out.stdout.strip() == 'os-' + machine.bmc, out.stderr
    for machine in site.sims:
        site.power_off(machine)
        assert machine.state()['running'] is None


def test_virtual_media_boot_reads_the_kernel_line_from_the_iso(site):
    """The kernel line comes from the ISO's grub.cfg; with an inspection
    callback in it the agent posts the machine's inventory first."""
    redfish = site.sims[0]
    iso = stand_ins.make_boot_iso(
        site.http_root / 'boot.iso', site.sims.deploy_kernel,
        site.sims.deploy_ramdisk,
        'ipa-api-url=%s boot_method=vmedia ipa-inspection-callback-url='
        '%s/v1/continue_inspection' % (site.api.url, site.api.url))
    client = bmc_client.BmcClient(redfish.driver_info())
    client.insert_media(site.files.url + '/' + iso.name)
    client.close()
    agent, _ = site.boot_agent(redfish, device='cd')
    console = redfish.console_log()
    assert 'virtual media: boot/grub/grub.cfg: kernel line ipa-api-url=%s' \
        ' boot_method=vmedia' % site.api.url in console
    assert redfish.state()['booted_from'] == 'cd'
    assert agent.command('standby.get_partition_uuids')[
        'command_status'] == 'SUCCEEDED'

    inventory = site.api.inspections[-1]['inventory']
    assert sorted(nic['mac_address'] for nic in inventory['interfaces']) \
        == sorted(redfish.macs)
    assert [(disk['name'], disk['size']) for disk in inventory['disks']] \
        == [(redfish.disk_path, redfish.disk_size)]
    assert inventory['cpu']['count'] == redfish.cpus
    assert inventory['cpu']['architecture'] == 'x86_64'
    assert inventory['memory']['physical_mb'] == redfish.memory_mb
    assert inventory['bmc_address'] == '127.0.0.1'
    assert inventory['boot']['current_boot_mode'] == 'uefi'
    site.power_off(redfish)
    assert _agent_gone(redfish)


def test_lockdown_and_rescue_leave_the_host_untouched(site):
    before = host.host_snapshot()
    redfish, ipmi = site.sims
    for machine in site.sims:
        site.pxe_agent(machine)
    (locked, _), (rescued, _) = _both(site.boot_agent, (redfish,), (ipmi,))

    # The agent's own cleaning works on the loop device: the image of the
    # first test loses its partition table.
    node = {'uuid': site.node(redfish), 'properties': {},
            'instance_info': {}, 'driver_internal_info': {}}
    steps = locked.command('clean.get_clean_steps',
                           {'node': node, 'ports': []})['command_result']
    erased = locked.run('clean.execute_clean_step', {
        'step': {'interface': 'deploy', 'step': 'erase_devices_metadata',
                 'priority': 99, 'reboot_requested': False},
        'node': node, 'ports': [],
        'clean_version': steps['hardware_manager_version']})
    assert erased['command_status'] == 'SUCCEEDED', erased
    assert disk_image.partitions(redfish.read_disk) == []

    locked.command('system.lockdown')
    rescued.command('rescue.finalize_rescue',
                    {'rescue_password': 'secret'})
    # Lockdown takes every NIC down; each try is recorded, none is done.
    wait_for(lambda: any(c['command'] == 'ip' and 'down' in c['args']
                         for c in redfish.commands()),
             timeout=30, what='lockdown to reach the links')
    # Rescue leaves its marker in the ramdisk's /etc: the agent exits and
    # comes back (as its service would) to find it, and idles.
    wait_for(lambda: 'Found rescue state marker file' in ipmi.agent_log(),
             timeout=30, what='the rescued agent to restart and idle')
    assert ipmi.ramdisk_path('/etc/.rescued').exists()
    assert ipmi.ramdisk_path('/etc/ipa-rescue-config/ipa-rescue-password'
                             ).read_text().startswith('$5$')
    host.assert_host_untouched(before)
    for machine in site.sims:
        site.power_off(machine)
    host.assert_host_untouched(before)


def test_a_kernel_that_is_not_the_agent_is_not_bootable(site):
    redfish = site.sims[0]
    site.pxe_agent(redfish)
    node = site.node(redfish)
    (site.http_root / node / 'deploy_kernel').write_bytes(b'\x7fELF' * 64)
    client = bmc_client.BmcClient(redfish.driver_info())
    client.boot('network')
    client.close()
    wait_for(lambda: 'no bootable device' in redfish.console_log()
             .rsplit('POST:', 1)[-1] and redfish.state()['running'] is None,
             timeout=30, what='the boot to fail')
    assert 'the kernel is not the simulated agent' in redfish.console_log()
    site.power_off(redfish)
