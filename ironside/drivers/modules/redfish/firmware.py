"""Firmware components of redfish nodes, as the BMC reports them.

The system's ``BiosVersion`` is the ``bios`` component and its managers'
``FirmwareVersion`` the ``bmc`` one, as Ironic reads them. Flashing
firmware through the BMC's UpdateService is not offered: the emulated
BMCs here have none to check it against.
"""

from __future__ import annotations

from typing import Any

from ironside.drivers import base
from ironside.drivers.modules.redfish import common


def _components(system: Any) -> dict[str, str]:
    found = {}
    if system.bios_version:
        found['bios'] = str(system.bios_version)
    for manager in system.managers:
        if manager.firmware_version:
            found['bmc'] = str(manager.firmware_version)
            break
    return found


class RedfishFirmware(base.FirmwareInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.parse_driver_info(task.node)

    def read_components(self, task: base.Task) -> dict[str, str]:
        return common.call(task, 'read firmware versions', _components)
