"""Virtual media of a Redfish BMC: finding the devices, inserting and
ejecting images.

Newer BMCs (and sushy-tools' emulator) list virtual media under the
system, older ones under the managers of the system; both are looked
at, the system's first. A device type of Ironic's (``cdrom``,
``floppy``, ``disk``) is the devices whose media types include one of
the Redfish types it maps to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sushy
from sushy import exceptions as sushy_exceptions
from sushy.resources.manager.virtual_media import VirtualMedia
from sushy.resources.system.system import System

from ironside.common import exception
from ironside.drivers import base

MEDIA_TYPES = {
    base.VMEDIA_CDROM: (sushy.VirtualMediaType.CD,
                        sushy.VirtualMediaType.DVD),
    base.VMEDIA_FLOPPY: (sushy.VirtualMediaType.FLOPPY,),
    base.VMEDIA_DISK: (sushy.VirtualMediaType.USB_STICK,),
}


def devices(system: System) -> list[VirtualMedia]:
    """Every virtual media device of the system."""
    found: list[VirtualMedia] = []
    try:
        found.extend(system.virtual_media.get_members())
    except (sushy_exceptions.MissingAttributeError,
            sushy_exceptions.ResourceNotFoundError):
        pass
    if not found:
        for manager in system.managers:
            try:
                found.extend(manager.virtual_media.get_members())
            except (sushy_exceptions.MissingAttributeError,
                    sushy_exceptions.ResourceNotFoundError):
                continue
    return found


def device_type_of(device: Any) -> str | None:
    kinds = set(device.media_types or ())
    for name, types in MEDIA_TYPES.items():
        if kinds & set(types):
            return name
    return None


def devices_of(system: System, device_type: str) -> list[VirtualMedia]:
    """The devices of one of Ironic's types; UnsupportedDriverExtension
    when the BMC has none."""
    chosen = [d for d in devices(system) if device_type_of(d) == device_type]
    if not chosen:
        raise exception.UnsupportedDriverExtension(
            driver='redfish', extension='virtual media of type %s (the BMC '
                                        'of %s has none)'
                                        % (device_type, system.path))
    return chosen


def insert(system: Any, device_type: str, url: str) -> None:
    """Insert ``url`` into the first device of the type, ejecting what it
    held."""
    device = devices_of(system, device_type)[0]
    if device.inserted:
        device.eject_media()
    device.insert_media(url, inserted=True, write_protected=True)


def eject(system: Any, device_types: Sequence[str] | None = None) -> None:
    for device in devices(system):
        kind = device_type_of(device)
        if device_types is not None and kind not in device_types:
            continue
        if device.inserted or device.image:
            device.eject_media()


def describe(system: Any) -> list[dict[str, Any]]:
    return [{'device_type': device_type_of(d), 'image': d.image or None,
             'inserted': bool(d.inserted)} for d in devices(system)
            if device_type_of(d) is not None]
