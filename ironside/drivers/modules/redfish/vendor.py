"""The ``redfish`` vendor interface: Ironic's redfish vendor methods, and
where out-of-tree steps plug in.

Its vendor methods (``openstack baremetal node passthru call``):
``eject_vmedia`` ejects virtual media, and ``create_subscription``,
``get_subscription``, ``get_all_subscriptions`` and
``delete_subscription`` manage the BMC's event subscriptions
(:mod:`.events`). A plugin subclasses it, adds methods decorated with
``@deploy_step`` / ``@clean_step`` that use :func:`call` to reach the
node's system through the cached sushy connection, and registers the
subclass under ``ironside.hardware.interfaces.vendor``; the redfish
hardware type accepts any subclass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import TypeVar

import sushy
from sushy.resources.system.system import System

from ironside.common import exception
from ironside.drivers import base
from ironside.drivers.modules.redfish import common
from ironside.drivers.modules.redfish import events
from ironside.drivers.modules.redfish import vmedia

T = TypeVar('T')

# eject_vmedia's boot_device: Ironic's words (Redfish media types) and
# Ironside's device types, to the device type they eject.
BOOT_DEVICES = {'cd': base.VMEDIA_CDROM, 'dvd': base.VMEDIA_CDROM,
                'cdrom': base.VMEDIA_CDROM, 'usb': base.VMEDIA_DISK,
                'usbstick': base.VMEDIA_DISK, 'disk': base.VMEDIA_DISK,
                'floppy': base.VMEDIA_FLOPPY}


def _subscription_id(kwargs: dict[str, Any]) -> str:
    bmc_id = kwargs.get('id')
    if not bmc_id or not isinstance(bmc_id, str):
        raise exception.InvalidParameterValue(err="id can't be None")
    return bmc_id


class RedfishVendor(base.VendorInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task, method: str | None = None,
                 **kwargs: Any) -> None:
        common.parse_driver_info(task.node)
        if method == 'eject_vmedia':
            device = kwargs.get('boot_device')
            if device is not None and (not isinstance(device, str) or
                                       device.lower() not in BOOT_DEVICES):
                raise exception.InvalidParameterValue(
                    err='Boot device %s is not a valid value; valid: %s'
                        % (device, ', '.join(sorted(BOOT_DEVICES))))
        elif method == 'create_subscription':
            events.check_payload(kwargs)
            self.call_root(task, 'read event types', lambda root:
                           events.check_event_types(
                               root, kwargs.get('EventTypes')))
        elif method in ('delete_subscription', 'get_subscription'):
            _subscription_id(kwargs)

    def call(self, task: base.Task, action: str, func: Callable[[System], T]
             ) -> T:
        """``func(system)`` on the node's sushy System, with the retries,
        reconnection and error translation of the redfish interfaces."""
        return common.call(task, action, func)

    def call_root(self, task: base.Task, action: str,
                  func: Callable[[sushy.Sushy], T]) -> T:
        """As :meth:`call`, with the BMC's service root."""
        return common.call_root(task, action, func)

    @base.passthru(['POST'], description=(
        "Eject a virtual media device. If no device is provided then all "
        "attached devices will be ejected. Optional arguments: "
        "'boot_device' - the boot device to eject, either 'cd', 'dvd', "
        "'usb', or 'floppy'"))
    def eject_vmedia(self, task: base.Task, http_method: str,
                     boot_device: str | None = None) -> None:
        types = None if boot_device is None \
            else [BOOT_DEVICES[boot_device.lower()]]
        self.call(task, 'eject virtual media',
                  lambda system: vmedia.eject(system, types))

    @base.passthru(['POST'], async_call=False, description=(
        "Creates a subscription on a node. Required argument: a "
        "dictionary of {'Destination': 'destination_url'}"))
    def create_subscription(self, task: base.Task, http_method: str,
                            **kwargs: Any) -> dict[str, Any]:
        payload = events.payload_of(kwargs)
        return self.call_root(task, 'create event subscription',
                              lambda root: events.create(root, payload))

    @base.passthru(['DELETE'], async_call=False, description=(
        "Delete a subscription on a node. Required argument: a "
        "dictionary of {'id': 'subscription_bmc_id'}"))
    def delete_subscription(self, task: base.Task, http_method: str,
                            **kwargs: Any) -> None:
        bmc_id = _subscription_id(kwargs)
        self.call_root(task, 'delete event subscription', lambda root:
                       events.delete(root, bmc_id, task.node.uuid))

    @base.passthru(['GET'], async_call=False, description=(
        "Get a subscription on the node. Required argument: a dictionary "
        "of {'id': 'subscription_bmc_id'}"))
    def get_subscription(self, task: base.Task, http_method: str,
                         **kwargs: Any) -> dict[str, Any]:
        bmc_id = _subscription_id(kwargs)
        return self.call_root(task, 'read event subscription', lambda root:
                              events.get(root, bmc_id, task.node.uuid))

    @base.passthru(['GET'], async_call=False,
                   description='Returns all subscriptions on the node.')
    def get_all_subscriptions(self, task: base.Task, http_method: str,
                              **kwargs: Any) -> dict[str, Any]:
        return self.call_root(task, 'read event subscriptions',
                              events.list_all)
