"""The ``pxe`` boot interface of the ipmi and redfish types.

It only points the node's boot device through the BMC: at the network
for the deploy or clean ramdisk, and at the instance's boot device
(``instance_info['boot_device']``, ``disk`` by default, persistent) for
the instance. It does not run DHCP, TFTP or HTTP and writes no PXE
configuration: the network boot infrastructure is outside Ironside.
"""

from __future__ import annotations

from ironside.common import exception
from ironside.drivers import base

INSTANCE_BOOT_DEVICES = (base.BootDevice.DISK, base.BootDevice.PXE,
                         base.BootDevice.CDROM)


def instance_boot_device(task: base.Task) -> str:
    device = (task.node.instance_info or {}).get('boot_device',
                                                 base.BootDevice.DISK)
    if device not in INSTANCE_BOOT_DEVICES:
        raise exception.InvalidParameterValue(
            err='Node %s: instance_info boot_device must be one of %s, not '
                '%r' % (task.node.uuid, ', '.join(INSTANCE_BOOT_DEVICES),
                        device))
    return device


class PXEBoot(base.BootInterface):
    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: base.Task) -> None:
        instance_boot_device(task)

    def prepare_ramdisk(self, task: base.Task, ramdisk_params: dict) -> None:
        task.driver.management.set_boot_device(task, base.BootDevice.PXE,
                                               persistent=False)

    def prepare_instance(self, task: base.Task) -> None:
        task.driver.management.set_boot_device(
            task, instance_boot_device(task), persistent=True)
