"""Inspection of redfish nodes: what the BMC says of the system.

The inventory (Ironic's format, as Ironic's redfish inspect builds it)
holds the CPUs (count, architecture, model), memory, the drives of every
storage subsystem, the Ethernet interfaces with a valid MAC, the vendor
and the boot mode. The node's ``memory_mb``, ``local_gb`` (the smallest
drive or volume of at least 4 GiB, less 1 GiB) and ``cpu_arch`` are set
from it; inspection fails if one of them cannot be found.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import sushy
from oslo_utils import netutils
from sushy import exceptions as sushy_exc

from ironside.common import capabilities
from ironside.common import exception
from ironside.drivers import base
from ironside.drivers.modules.redfish import common

LOG = logging.getLogger(__name__)

GIB = 1024 ** 3
ESSENTIAL_PROPERTIES = ('memory_mb', 'local_gb', 'cpu_arch')
ARCHITECTURES = {
    sushy.InstructionSet.ARM_A32: 'arm',
    sushy.InstructionSet.ARM_A64: 'aarch64',
    sushy.InstructionSet.IA_64: 'ia64',
    sushy.InstructionSet.MIPS32: 'mips',
    sushy.InstructionSet.MIPS64: 'mips64',
    sushy.InstructionSet.X86: 'i686',
    sushy.InstructionSet.X86_64: 'x86_64',
}
BOOT_MODES = {sushy.BOOT_SOURCE_MODE_UEFI: 'uefi',
              sushy.BOOT_SOURCE_MODE_BIOS: 'bios'}


def _optional(read: Callable[[], Any], default: Any = None) -> Any:
    """What ``read()`` returns, or ``default`` if the BMC lacks it."""
    try:
        return read()
    except (sushy_exc.MissingAttributeError,
            sushy_exc.ResourceNotFoundError):
        return default


def _cpu(system: Any) -> dict[str, Any]:
    cpu: dict[str, Any] = {'count': 0, 'architecture': ''}
    processors = _optional(lambda: system.processors)
    if not processors:
        return cpu
    summary = _optional(lambda: processors.summary)
    if summary and summary[0]:
        cpu['count'] = summary[0]
    members = processors.get_members()
    if members:
        first = members[0]
        if first.model is not None:
            cpu['model_name'] = str(first.model)
        if first.max_speed_mhz is not None:
            cpu['frequency'] = first.max_speed_mhz
        cpu['architecture'] = ARCHITECTURES.get(first.instruction_set, '')
    return cpu


def _disks(system: Any) -> tuple[list[dict[str, Any]], list[int]]:
    """The drives, and the sizes local_gb is chosen from (volumes first,
    as Ironic: the drives only when there are no volumes)."""
    storage = _optional(lambda: system.storage)
    if not storage:
        return [], []
    disks, volumes = [], []
    for member in storage.get_members():
        for drive in member.drives:
            disks.append({'name': drive.name or drive.identity,
                          'size': drive.capacity_bytes or 0,
                          'serial': drive.serial_number,
                          'model': drive.model,
                          'vendor': drive.manufacturer})
        volumes.extend(_volume_sizes(member))
    return disks, volumes or [d['size'] for d in disks]


def _volume_sizes(storage: Any) -> list[int]:
    """The sizes of a storage subsystem's volumes (none if the BMC
    lacks them)."""
    return [volume.capacity_bytes
            for volume in _optional(lambda: storage.volumes.get_members(), [])
            if volume.capacity_bytes]


def _local_gb(sizes: list[int]) -> int:
    usable = [size for size in sizes if size >= 4 * GIB]
    return max(0, int(min(usable) / GIB - 1)) if usable else 0


def _interfaces(task: base.Task, system: Any) -> list[dict[str, Any]]:
    found = []
    nics = _optional(lambda: system.ethernet_interfaces)
    for nic in nics.get_members() if nics else ():
        if not netutils.is_valid_mac(nic.mac_address or ''):
            LOG.warning('Ignoring NIC %s of node %s: %r is not a valid MAC',
                        nic.identity, task.node.uuid, nic.mac_address)
            continue
        interface = {'name': nic.identity,
                     'mac_address': nic.mac_address.lower()}
        if nic.speed_mbps:
            interface['speed_mbps'] = int(nic.speed_mbps)
        found.append(interface)
    return found


def _read(task: base.Task, system: Any) -> dict[str, Any]:
    inventory: dict[str, Any] = {'cpu': _cpu(system)}
    memory = _optional(lambda: system.memory_summary)
    if memory and memory.size_gib:
        inventory['memory'] = {'physical_mb': int(memory.size_gib * 1024)}
    disks, sizes = _disks(system)
    inventory['disks'] = disks
    inventory['local_gb'] = _local_gb(sizes)
    inventory['interfaces'] = _interfaces(task, system)
    inventory['system_vendor'] = {
        key: str(value) for key, value in (
            ('product_name', system.model),
            ('serial_number', system.serial_number),
            ('manufacturer', system.manufacturer),
            ('system_uuid', system.uuid)) if value}
    mode = BOOT_MODES.get(system.boot.mode)
    if mode:
        inventory['boot'] = {'current_boot_mode': mode}
    return inventory


class RedfishInspect(base.InspectInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.parse_driver_info(task.node)

    def inspect_hardware(self, task: base.Task) -> base.Inspected:
        inventory = common.call(task, 'inspect the system',
                                lambda system: _read(task, system))
        local_gb = inventory.pop('local_gb')
        found = {'local_gb': local_gb,
                 'memory_mb': inventory.get('memory', {}).get('physical_mb'),
                 'cpu_arch': inventory['cpu']['architecture']}
        missing = sorted(name for name in ESSENTIAL_PROPERTIES
                         if found[name] in (None, ''))
        if missing:
            raise exception.HardwareInspectionFailure(
                error='Failed to discover the following properties: %s on '
                      'node %s' % (', '.join(missing), task.node.uuid))
        properties = task.node.properties
        properties.update(found)
        if inventory['cpu']['count']:
            properties['cpus'] = inventory['cpu']['count']
        if 'boot' in inventory:
            properties['capabilities'] = capabilities.with_default(
                properties.get('capabilities'), 'boot_mode',
                inventory['boot']['current_boot_mode'])
        return {'inventory': inventory, 'plugin_data': {}}
