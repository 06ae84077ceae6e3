"""Boot mode and UEFI secure boot, as Ironic's management interface
exposes them (API 1.76).

Kept beside ``base`` so that module stays small; ``ManagementInterface``
inherits these methods. A driver that can read or change them overrides
the ones it can.
"""

from __future__ import annotations

from ironside.common import exception
from ironside.drivers.task import Task


class BootModeMethods:
    def get_supported_boot_modes(self, task: Task) -> list[str]:
        return []

    def set_boot_mode(self, task: Task, mode: str) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='set_boot_mode')

    def get_boot_mode(self, task: Task) -> str | None:
        """'uefi' or 'bios' as the machine reports it; None if unknown."""
        return None

    def get_secure_boot_state(self, task: Task) -> bool | None:
        """Whether UEFI secure boot is on; None if the BMC cannot say."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='get_secure_boot_state')

    def set_secure_boot_state(self, task: Task, enabled: bool) -> None:
        """Turn UEFI secure boot on or off."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='set_secure_boot_state')
