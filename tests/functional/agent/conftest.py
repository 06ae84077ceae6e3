"""Fixtures of the agent tests: Ironside deploying simulated machines that
boot the real ironic-python-agent.

A site is a running Ironside (the all-in-one on SQLite, or an
``ironside-api`` and an ``ironside-conductor`` over RabbitMQ and
PostgreSQL), simulated machines whose DHCP hands iPXE Ironside's
``boot.ipxe``, and an HTTP server with disk images. Timeouts are short,
so that a test of one waits seconds, not half an hour.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import services
from tests.functional.fixtures.sim_machine import disk_image
from tests.functional.fixtures.sim_machine import file_server
from tests.functional.fixtures.sim_machine import host
from tests.functional.fixtures.sim_machine.machines import MachineSpec
from tests.functional.fixtures.sim_machine.machines import SimulatedMachines

SQLITE = 'sqlite'
RABBITMQ_POSTGRESQL = 'rabbitmq-postgresql'
MiB = 1024 * 1024
IMAGE_SIZE = 64 * MiB

# Options of every site: the agent's hardware types, and short waits.
AGENT_OPTIONS: dict[str, dict[str, Any]] = {
    'DEFAULT': {'enabled_hardware_types': 'ipmi,redfish,fake-hardware'},
    'api': {'ramdisk_heartbeat_timeout': 10},
    'conductor': {'deploy_callback_timeout': 90,
                  'clean_callback_timeout': 90,
                  'inspect_wait_timeout': 90,
                  'rescue_callback_timeout': 90,
                  'check_provision_state_interval': 2,
                  'power_state_change_timeout': 20},
    'agent': {'power_off_timeout': 10},
    # The agent retries a download that failed (even a checksum that did
    # not match) 9 times, 10 s apart; the kernel line says once, at once.
    'pxe': {'kernel_append_params':
            'nofb vga=normal ipa-image-download-connection-retries=1 '
            'ipa-image-download-connection-retry-interval=0'},
    'redfish': {'server_side_retries': 0, 'connection_attempts': 2,
                'connection_retry_interval': 0.1, 'power_poll_interval': 0.1},
    'ipmi': {'power_poll_interval': 0.1},
}


@dataclasses.dataclass
class Images:
    """Disk images served over HTTP: a raw and a qcow2 whole-disk one,
    and a qcow2 partition image."""

    server: file_server.FileServer
    raw: disk_image.DiskImage
    qcow2: disk_image.DiskImage
    partition: disk_image.PartitionImage

    def url(self, image: disk_image.DiskImage | disk_image.PartitionImage
            ) -> str:
        return '%s/%s' % (self.server.url, image.path.name)

    def instance_info(self, image: disk_image.DiskImage, **more: Any
                      ) -> dict[str, Any]:
        """What a user sets to deploy ``image``."""
        return dict({'image_source': self.url(image),
                     'image_os_hash_algo': 'sha256',
                     'image_os_hash_value': image.file_sha256}, **more)


@dataclasses.dataclass
class Site:
    ironside: ironside_process.ApiClients
    machines: SimulatedMachines
    images: Images
    boot_url: str
    fast_track: bool = False

    @property
    def endpoint(self) -> str:
        return self.ironside.endpoint

    def node_values(self, machine, **values: Any) -> dict[str, Any]:
        """A node of ``machine`` as an operator enrols it for the agent."""
        body = {'name': machine.name, 'driver': machine.bmc,
                'driver_info': machine.driver_info(
                    deploy_kernel=self.machines.deploy_kernel_url,
                    deploy_ramdisk=self.machines.deploy_ramdisk_url),
                'deploy_interface': 'direct', 'inspect_interface': 'agent',
                'rescue_interface': 'agent', 'resource_class': 'baremetal'}
        body.update(values)
        return body


@pytest.fixture(scope='module')
def images(tmp_path_factory) -> Iterator[Images]:
    directory = tmp_path_factory.mktemp('images')
    raw = disk_image.make_disk_image(directory / 'disk.raw', 'raw',
                                     size=IMAGE_SIZE, seed=1)
    qcow2 = disk_image.make_disk_image(directory / 'disk.qcow2', 'qcow2',
                                       size=IMAGE_SIZE, seed=2)
    partition = disk_image.make_partition_image(
        directory / 'root.qcow2', 'qcow2', size=IMAGE_SIZE // 2, seed=3)
    with file_server.FileServer(directory) as server:
        yield Images(server, raw, qcow2, partition)


def start_site(workdir: pathlib.Path, deployment: str, images: Images,
               specs: list[MachineSpec], options: dict | None = None
               ) -> Iterator[Site]:
    """Ironside (``deployment``) and machines booting from it."""
    port = services.free_port()
    api_url = 'http://127.0.0.1:%d' % port
    sections = {k: dict(v) for k, v in AGENT_OPTIONS.items()}
    for section, values in (options or {}).items():
        sections.setdefault(section, {}).update(values)
    sections.setdefault('agent', {})['api_url'] = api_url
    boot_files = None
    if deployment == RABBITMQ_POSTGRESQL:
        # A conductor elsewhere: its boot files are served by a web
        # server of the site, as an operator's would be.
        http_root = workdir / 'httpboot'
        http_root.mkdir()
        boot_files = file_server.FileServer(http_root).start()
        sections.setdefault('deploy', {}).update(
            http_root=str(http_root), http_url=boot_files.url,
            image_cache=str(workdir / 'images'))
        deploy = ironside_process.serve_split(
            workdir, 'postgresql', options=sections, api_port=port)
        boot_url = boot_files.url
    else:
        deploy = ironside_process.serve(workdir, options=sections, port=port)
        boot_url = api_url + '/boot'
    ironside = next(deploy)
    specs = [dataclasses.replace(spec, boot_script_url=boot_url +
                                 '/boot.ipxe') for spec in specs]
    before = host.host_snapshot()
    try:
        with SimulatedMachines(workdir / 'machines', specs=specs
                               ) as machines:
            yield Site(ironside, machines, images, boot_url, fast_track=bool(
                sections.get('deploy', {}).get('fast_track')))
        # Whatever the agents did (deploys, rescues, the lockdown of one
        # that lost its token), the host is as it was.
        host.assert_host_untouched(before, workdir / 'machines')
    finally:
        next(deploy, None)  # stops Ironside and checks it stopped well
        if boot_files is not None:
            boot_files.stop()
