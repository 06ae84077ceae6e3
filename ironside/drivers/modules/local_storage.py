"""Wiping a node's local storage: the ``wipe_local_storage`` clean step.

Management interfaces offer it (fake-hardware and redfish), at priority
0: it runs only when asked for, by manual cleaning
(``openstack baremetal node clean --clean-steps '[{"interface":
"management", "step": "wipe_local_storage"}]'``) or by a site action
such as ``redeploy_server``. It wipes every disk, or with
``preserve_local_storage: true`` only the OS disk, so that the others
keep their data and can be mounted again after a redeploy.

The OS disk is the one ``properties['root_device']`` names, with
Ironic's root device hints (``name``, ``serial``, ``model``, ``vendor``,
``wwn``, ``size`` in GiB; every hint given must match); without hints,
the first disk. Hints that match no disk fail the step before anything
is wiped. What was wiped is recorded in
``driver_internal_info['wiped_disks']``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ironside.common import exception

STEP = 'wipe_local_storage'
WIPED_KEY = 'wiped_disks'
HINTS = ('name', 'serial', 'model', 'vendor', 'wwn', 'size')

ARGSINFO = {
    'preserve_local_storage': {
        'description': 'true: wipe only the OS disk (properties.root_device '
                       'names it; else the first disk) and keep the data '
                       'of the others. Default false: wipe every disk.',
        'required': False,
    },
}


@dataclasses.dataclass(frozen=True)
class Disk:
    name: str
    serial: str | None = None
    model: str | None = None
    vendor: str | None = None
    wwn: str | None = None
    size: int | None = None     # GiB
    # Where the hardware interface finds it again (a Redfish drive's URI).
    location: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items()
                if v is not None and k != 'location'}


def as_bool(value: Any, name: str = 'preserve_local_storage') -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ('true', 'false'):
        return value.lower() == 'true'
    raise exception.InvalidParameterValue(
        err='%s must be true or false, not %r' % (name, value))


def _matches(disk: Disk, hints: dict[str, Any]) -> bool:
    for key, wanted in hints.items():
        have = getattr(disk, key)
        if key == 'size':
            try:
                if have is None or int(have) != int(wanted):
                    return False
            except (TypeError, ValueError):
                return False
        elif have is None or str(have) != str(wanted):
            return False
    return True


def os_disk(node: Any, disks: Sequence[Disk]) -> Disk:
    """The disk the node's root device hints name, else the first."""
    if not disks:
        raise exception.InvalidParameterValue(
            err='Node %s has no disks to wipe' % node.uuid)
    hints = (node.properties or {}).get('root_device') or {}
    if not isinstance(hints, dict):
        raise exception.InvalidParameterValue(
            err='Node %s: properties root_device must be an object of '
                'hints, not %r' % (node.uuid, hints))
    hints = {k: v for k, v in hints.items() if k in HINTS}
    if not hints:
        return disks[0]
    for disk in disks:
        if _matches(disk, hints):
            return disk
    raise exception.InvalidParameterValue(
        err='Node %s: no disk matches the root device hints %s (disks: %s)'
            % (node.uuid, hints, ', '.join(d.name for d in disks)))


def select(node: Any, disks: Sequence[Disk], preserve_local_storage: Any
           ) -> list[Disk]:
    """The disks to wipe: all, or the OS disk only."""
    if as_bool(preserve_local_storage):
        return [os_disk(node, disks)]
    if not disks:
        raise exception.InvalidParameterValue(
            err='Node %s has no disks to wipe' % node.uuid)
    return list(disks)


def record(node: Any, wiped: Sequence[Disk], preserve_local_storage: Any
          ) -> None:
    node.driver_internal_info[WIPED_KEY] = {
        'disks': [d.as_dict() for d in wiped],
        'os_disk_only': as_bool(preserve_local_storage)}
