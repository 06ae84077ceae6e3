"""``redfish-virtual-media`` boot: ISO images through the BMC's virtual CD.

For the deploy or clean ramdisk it inserts ``driver_info
['redfish_deploy_iso']`` and boots the CD once; for the instance it
inserts ``instance_info['boot_iso']`` and boots the CD persistently, or,
without one, ejects the CD and boots the disk. The BMC downloads the ISO
itself, so the URL must be reachable from the BMC. Ironside builds no
ISO.
"""

from __future__ import annotations

from urllib import parse

from ironside.common import exception
from ironside.drivers import base
from ironside.drivers.modules import bmc_common
from ironside.drivers.modules.redfish import common
from ironside.drivers.modules.redfish import vmedia

PROPERTIES = {
    'redfish_deploy_iso': 'URL of the ISO the node boots for deploying '
                          'and cleaning. Optional.',
}


def _check_url(node_uuid: str, where: str, url: str | None) -> None:
    if url is None:
        return
    parsed = parse.urlparse(url) if isinstance(url, str) else None
    if parsed is None or parsed.scheme not in ('http', 'https') or \
            not parsed.hostname:
        raise exception.InvalidParameterValue(
            err='Node %s: %s must be an http(s) URL, not %r'
                % (node_uuid, where, url))


def insert_cd(task: base.Task, url: str) -> None:
    common.call(task, 'insert virtual media',
                lambda system: vmedia.insert(system, base.VMEDIA_CDROM, url))


def eject_cds(task: base.Task) -> None:
    common.call(task, 'eject virtual media',
                lambda system: vmedia.eject(system, [base.VMEDIA_CDROM]))


class RedfishVirtualMediaBoot(base.BootInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES, **PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.parse_driver_info(task.node)
        node = task.node
        _check_url(node.uuid, 'driver_info redfish_deploy_iso',
                   (node.driver_info or {}).get('redfish_deploy_iso'))
        _check_url(node.uuid, 'instance_info boot_iso',
                   (node.instance_info or {}).get('boot_iso'))

    def prepare_ramdisk(self, task: base.Task, ramdisk_params: dict) -> None:
        iso = bmc_common.required_str(task.node.driver_info or {},
                                      'redfish_deploy_iso', task.node.uuid)
        insert_cd(task, iso)
        task.driver.management.set_boot_device(task, base.BootDevice.CDROM,
                                               persistent=False)

    def clean_up_ramdisk(self, task: base.Task) -> None:
        eject_cds(task)

    def prepare_instance(self, task: base.Task) -> None:
        iso = (task.node.instance_info or {}).get('boot_iso')
        if iso:
            insert_cd(task, iso)
            device = base.BootDevice.CDROM
        else:
            eject_cds(task)
            device = base.BootDevice.DISK
        task.driver.management.set_boot_device(task, device,
                                               persistent=True)

    def clean_up_instance(self, task: base.Task) -> None:
        eject_cds(task)
