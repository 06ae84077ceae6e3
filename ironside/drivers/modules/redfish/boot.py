"""``redfish-virtual-media`` boot: ISO images through the BMC's virtual CD.

For a ramdisk (the agent, to deploy, clean, inspect or rescue) it builds
an ISO of the node's kernel and ramdisk with the agent's kernel
parameters inside (:mod:`..boot_iso`), writes it under
[deploy]http_root/redfish/, inserts its URL and boots the CD once. A
ready-made ISO in ``driver_info['deploy_iso']`` (or Ironside's older
``redfish_deploy_iso``) is inserted as it is instead: it must carry its
own ``ipa-api-url``. For the instance it inserts
``instance_info['boot_iso']`` and boots the CD persistently, or, without
one, ejects the CD and boots the disk the agent wrote. The BMC
downloads the ISO itself, so [deploy]http_url must be reachable from the
BMC.
"""

from __future__ import annotations

import os
from typing import Any
from urllib import parse

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import boot_files
from ironside.drivers.modules import boot_iso
from ironside.drivers.modules import pxe
from ironside.drivers.modules.redfish import common
from ironside.drivers.modules.redfish import vmedia

PROPERTIES = {
    'deploy_iso': 'URL of a ready-made ISO of the agent\'s ramdisk to '
                  'boot instead of one built from deploy_kernel and '
                  'deploy_ramdisk. Optional.',
    'redfish_deploy_iso': 'The same as deploy_iso (Ironside\'s earlier '
                          'name). Optional.',
}
ISO_DIR = 'redfish'


def _check_url(node_uuid: str, where: str, url: str | None) -> None:
    if url is None:
        return
    parsed = parse.urlparse(url) if isinstance(url, str) else None
    if parsed is None or parsed.scheme not in ('http', 'https') or \
            not parsed.hostname:
        raise exception.InvalidParameterValue(
            err='Node %s: %s must be an http(s) URL, not %r'
                % (node_uuid, where, url))


def ready_made_iso(node: object) -> str | None:
    info = getattr(node, 'driver_info', None) or {}
    return info.get('deploy_iso') or info.get('redfish_deploy_iso')


def insert_cd(task: base.Task, url: str) -> None:
    common.call(task, 'insert virtual media',
                lambda system: vmedia.insert(system, base.VMEDIA_CDROM, url),
                keeps_power=True)


def eject_cds(task: base.Task) -> None:
    common.call(task, 'eject virtual media',
                lambda system: vmedia.eject(system, [base.VMEDIA_CDROM]),
                keeps_power=True)


def _iso_path(node_uuid: str) -> str:
    return os.path.join(CONF.deploy.http_root, ISO_DIR,
                        'boot-%s.iso' % node_uuid)


def _remove_ramdisk_files(node_uuid: str) -> None:
    """The ISO built for the node's ramdisk and the files it was built
    from: the ramdisk is done with once it is ejected or replaced."""
    boot_files.remove(_iso_path(node_uuid))
    boot_files.remove(boot_files.node_dir(node_uuid))


class RedfishVirtualMediaBoot(base.BootInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES, **PROPERTIES,
                    **boot_files.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.parse_driver_info(task.node)
        node = task.node
        for key in ('deploy_iso', 'redfish_deploy_iso'):
            _check_url(node.uuid, 'driver_info %s' % key,
                       (node.driver_info or {}).get(key))
        _check_url(node.uuid, 'instance_info boot_iso',
                   (node.instance_info or {}).get('boot_iso'))
        if task.driver.deploy.needs_ramdisk and not ready_made_iso(node):
            self.validate_ramdisk(task)

    def validate_ramdisk(self, task: base.Task,
                         purpose: str = boot_files.DEPLOY) -> None:
        if purpose == boot_files.DEPLOY and ready_made_iso(task.node):
            return
        boot_files.ramdisk_sources(task.node.uuid,
                                   task.node.driver_info or {}, purpose)
        boot_files.http_url()

    def prepare_ramdisk(self, task: base.Task, ramdisk_params: dict[str, Any],
                        purpose: str = boot_files.DEPLOY) -> None:
        node = task.node
        url = ready_made_iso(node) if purpose == boot_files.DEPLOY else None
        if url is None:
            kernel_path, ramdisk_path = boot_files.place_ramdisk(
                node.uuid, node.driver_info or {}, purpose)
            params = dict(ramdisk_params, boot_method='vmedia')
            iso = _iso_path(node.uuid)
            boot_iso.build(kernel_path, ramdisk_path,
                           pxe.kernel_params(task, params), iso)
            url = boot_files.url_of(iso)
        insert_cd(task, url)
        task.driver.management.set_boot_device(task, base.BootDevice.CDROM,
                                               persistent=False)

    def clean_up_ramdisk(self, task: base.Task) -> None:
        eject_cds(task)
        _remove_ramdisk_files(task.node.uuid)

    def prepare_instance(self, task: base.Task) -> None:
        iso = (task.node.instance_info or {}).get('boot_iso')
        _remove_ramdisk_files(task.node.uuid)
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
