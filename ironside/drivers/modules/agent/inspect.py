"""The ``agent`` inspect interface: the agent inventories the machine.

Inspecting boots the agent's ramdisk with
``ipa-inspection-callback-url`` pointing at ``/v1/continue_inspection``
(naming the node, so that a machine with no port yet is found);
the agent posts its inventory there (cpu, memory, disks, interfaces,
system vendor, BMC address, how it booted) and the inspection goes on
with it: the node's ``cpus``, ``cpu_arch``, ``memory_mb`` and
``local_gb`` (the root disk, in GiB, less one for partitioning, as
Ironic's hook) are set, ports are made for its MACs, the inspection
rules run, and the machine is powered off (with [deploy]fast_track it is
left running its agent, which the next cleaning or deploy uses).
"""

from __future__ import annotations

from typing import Any

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers.modules import boot_files
from ironside.drivers.modules.agent import ramdisk

GIB = 1024 ** 3
# Disks smaller than this are not a root disk (Ironic's minimum).
MIN_ROOT_DISK = 4 * GIB


def root_disk(inventory: dict[str, Any], plugin_data: dict[str, Any]
              ) -> dict[str, Any] | None:
    """The disk the agent would write to: its choice, else the smallest
    disk of at least 4 GiB, else the largest."""
    chosen = plugin_data.get('root_disk')
    if isinstance(chosen, dict) and chosen.get('size'):
        return chosen
    disks = [d for d in inventory.get('disks') or ()
             if isinstance(d, dict) and isinstance(d.get('size'), int)]
    big = [d for d in disks if d['size'] >= MIN_ROOT_DISK]
    if big:
        return min(big, key=lambda d: d['size'])
    return max(disks, key=lambda d: d['size']) if disks else None


def properties_of(inventory: dict[str, Any], plugin_data: dict[str, Any]
                  ) -> dict[str, Any]:
    found: dict[str, Any] = {}
    cpu = inventory.get('cpu') or {}
    if isinstance(cpu.get('count'), int):
        found['cpus'] = cpu['count']
    if cpu.get('architecture'):
        found['cpu_arch'] = cpu['architecture']
    memory = inventory.get('memory') or {}
    if isinstance(memory.get('physical_mb'), int):
        found['memory_mb'] = memory['physical_mb']
    disk = root_disk(inventory, plugin_data)
    if disk is not None:
        found['local_gb'] = max(0, disk['size'] // GIB - 1)
    return found


class AgentInspect(base.InspectInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(boot_files.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        task.driver.boot.validate_ramdisk(task)
        ramdisk.api_url()

    def inspect_hardware(self, task: base.Task) -> step_defs.Wait:
        # A running agent (fast track) boots again all the same: only a
        # booting agent posts its inventory.
        # The node is named in the callback: a machine with no port yet
        # (booted from virtual media) is found by it, not by its MACs.
        ramdisk.boot_ramdisk(task, **{
            'ipa-inspection-callback-url':
                '%s/v1/continue_inspection?node_uuid=%s'
                % (ramdisk.api_url(), task.node.uuid)})
        return step_defs.await_callback(task)

    def continue_inspection(self, task: base.Task, inventory: dict[str, Any],
                            plugin_data: dict[str, Any]) -> base.Inspected:
        error = plugin_data.get('error')
        if error or not CONF.deploy.fast_track:
            self.abort(task)
        if error:
            raise exception.HardwareInspectionFailure(
                error='the agent reported: %s' % error)
        task.node.properties.update(properties_of(inventory, plugin_data))
        return {'inventory': inventory, 'plugin_data': plugin_data}

    def abort(self, task: base.Task) -> None:
        ramdisk.power_off(task)
        task.driver.boot.clean_up_ramdisk(task)
