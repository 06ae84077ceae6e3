"""The ``pxe`` and ``ipxe`` boot interfaces of the ipmi and redfish types.

For a ramdisk (the agent, to deploy, clean, inspect or rescue) they write
the node's iPXE script and its kernel and ramdisk under
[deploy]http_root, in Ironic's layout, then point the boot device at the
network::

    boot.ipxe                     chains pxelinux.cfg/<MAC> for each NIC
    pxelinux.cfg/52-54-00-..      a link to ../<node uuid>/config, per port
    <node uuid>/config            kernel, initrd, boot
    <node uuid>/deploy_kernel     the agent's kernel and ramdisk
    <node uuid>/deploy_ramdisk

The machines' DHCP must hand iPXE ``<[deploy]http_url>/boot.ipxe`` (or
chain it from PXE); Ironside runs no DHCP or TFTP. For the instance they
remove the script and point the boot device at the instance's
(``instance_info['boot_device']``, ``disk`` by default, persistent): the
image written by the agent boots from its disk. Both names are the same
interface: Ironic's ``pxe`` serves PXELINUX over TFTP, which Ironside
does not; its ``pxe`` boots the same iPXE scripts.
"""

from __future__ import annotations

import os
from typing import Any

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import boot_files

INSTANCE_BOOT_DEVICES = (base.BootDevice.DISK, base.BootDevice.PXE,
                         base.BootDevice.CDROM)
MAC_DIR = 'pxelinux.cfg'

BOOT_SCRIPT = '''#!ipxe
# Written by Ironside: boot the configuration of the first NIC that has
# one (each is a link to its node's script).
set netid:int32 -1
:loop
inc netid || chain %(mac_url)s${mac:hexhyp} || goto no_config
isset ${net${netid}/mac} || goto no_config
chain %(mac_url)s${net${netid}/mac:hexhyp} || goto loop
exit 0

:no_config
echo No boot configuration for this machine's NICs; booting on.
exit 0
'''

NODE_SCRIPT = '''#!ipxe
# Written by Ironside for node %(uuid)s: its %(purpose)s ramdisk.
set attempts:int32 10
set i:int32 0

:boot
imgfree
kernel %(timeout)s%(kernel)s %(params)s %(tail)s || goto retry
initrd %(timeout)s%(ramdisk)s || goto retry
boot

:retry
iseq ${i} ${attempts} && goto fail ||
inc i
echo Could not fetch the ramdisk, retrying in ${i} seconds.
sleep ${i}
goto boot

:fail
echo Could not fetch the ramdisk after ${attempts} attempts; powering off.
poweroff
'''


def instance_boot_device(task: base.Task) -> str:
    device: str = (task.node.instance_info or {}).get(
        'boot_device', base.BootDevice.DISK)
    if device not in INSTANCE_BOOT_DEVICES:
        raise exception.InvalidParameterValue(
            err='Node %s: instance_info boot_device must be one of %s, not '
                '%r' % (task.node.uuid, ', '.join(INSTANCE_BOOT_DEVICES),
                        device))
    return device


def kernel_params(task: base.Task, ramdisk_params: dict[str, Any]) -> str:
    """The ramdisk's kernel command line: the operator's parameters, then
    the agent's (``ipa-api-url=...``); values are never quoted, as the
    agent reads them split on spaces."""
    append = (task.node.driver_info or {}).get('kernel_append_params')
    if append is None:
        append = CONF.pxe.kernel_append_params
    words = [str(append).strip()] if append else []
    for key, value in ramdisk_params.items():
        words.append(key if value is None else '%s=%s' % (key, value))
    return ' '.join(words)


def mac_names(task: base.Task) -> list[str]:
    """The iPXE name (``${mac:hexhyp}``) of each of the node's ports."""
    return sorted({port['address'].lower().replace(':', '-')
                   for port in task.ports if port.get('address')})


class PXEBoot(base.BootInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(boot_files.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        instance_boot_device(task)
        if task.driver.deploy.needs_ramdisk:
            self.validate_ramdisk(task)

    def validate_ramdisk(self, task: base.Task,
                         purpose: str = boot_files.DEPLOY) -> None:
        """What booting the agent needs: its kernel and ramdisk, where to
        serve them, and a port whose MAC the script is found by."""
        boot_files.ramdisk_sources(task.node.uuid,
                                   task.node.driver_info or {}, purpose)
        boot_files.http_url()
        if not mac_names(task):
            raise exception.MissingParameterValue(
                err='Node %s has no port: a machine finds its boot script '
                    'by the MAC address of a port' % task.node.uuid)

    def prepare_ramdisk(self, task: base.Task, ramdisk_params: dict[str, Any],
                        purpose: str = boot_files.DEPLOY) -> None:
        node = task.node
        kernel_path, ramdisk_path = boot_files.place_ramdisk(
            node.uuid, node.driver_info or {}, purpose)
        timeout = CONF.pxe.ipxe_timeout
        script = NODE_SCRIPT % {
            'uuid': node.uuid, 'purpose': purpose,
            'timeout': '--timeout %d ' % (timeout * 1000) if timeout else '',
            'kernel': boot_files.url_of(kernel_path),
            'ramdisk': boot_files.url_of(ramdisk_path),
            'tail': 'BOOTIF=${mac} initrd=%s'
                    % os.path.basename(ramdisk_path),
            'params': kernel_params(task, ramdisk_params)}
        config = os.path.join(boot_files.node_dir(node.uuid), 'config')
        boot_files.write_text(config, script)
        root = CONF.deploy.http_root
        boot_files.write_text(os.path.join(root, 'boot.ipxe'), BOOT_SCRIPT % {
            'mac_url': '%s/%s/' % (boot_files.http_url(), MAC_DIR)})
        for name in mac_names(task):
            link = os.path.join(root, MAC_DIR, name)
            os.makedirs(os.path.dirname(link), exist_ok=True)
            with boot_files.atomic_path(link) as tmp:
                os.symlink(os.path.join('..', node.uuid, 'config'), tmp)
        task.driver.management.set_boot_device(task, base.BootDevice.PXE,
                                               persistent=False)

    def clean_up_ramdisk(self, task: base.Task) -> None:
        root = CONF.deploy.http_root
        for name in mac_names(task):
            boot_files.remove(os.path.join(root, MAC_DIR, name))
        boot_files.remove(boot_files.node_dir(task.node.uuid))

    def prepare_instance(self, task: base.Task) -> None:
        self.clean_up_ramdisk(task)
        task.driver.management.set_boot_device(
            task, instance_boot_device(task), persistent=True)


class IPXEBoot(PXEBoot):
    """``ipxe``: the same iPXE scripts under Ironic's other name."""
