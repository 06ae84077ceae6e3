"""Boot device, boot mode and sensors of redfish nodes through sushy."""

from __future__ import annotations

from typing import Any

import sushy

from ironside.common import exception
from ironside.drivers import base
from ironside.drivers.modules.redfish import common

BootDevice = base.BootDevice

_TO_REDFISH = {BootDevice.PXE: sushy.BootSource.PXE,
               BootDevice.DISK: sushy.BootSource.HDD,
               BootDevice.CDROM: sushy.BootSource.CD,
               BootDevice.BIOS: sushy.BootSource.BIOS_SETUP,
               BootDevice.UEFIHTTP: sushy.BootSource.UEFI_HTTP}
_FROM_REDFISH = {value: key for key, value in _TO_REDFISH.items()}

BOOT_MODES = {'uefi': sushy.BootSourceOverrideMode.UEFI,
              'bios': sushy.BootSourceOverrideMode.LEGACY}
_FROM_BOOT_MODE = {value: key for key, value in BOOT_MODES.items()}


class RedfishManagement(base.ManagementInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task) -> None:
        common.validate(task)

    def get_supported_boot_devices(self, task) -> list[str]:
        return list(_TO_REDFISH)

    def set_boot_device(self, task, device: str,
                        persistent: bool = False) -> None:
        if device not in _TO_REDFISH:
            raise exception.InvalidParameterValue(
                err='Invalid boot device %s specified; the redfish '
                    'management interface supports %s'
                    % (device, ', '.join(sorted(_TO_REDFISH))))
        enabled = (sushy.BootSourceOverrideEnabled.CONTINUOUS if persistent
                   else sushy.BootSourceOverrideEnabled.ONCE)
        common.call(task, 'set boot device %s' % device,
                    lambda system: system.set_system_boot_options(
                        target=_TO_REDFISH[device], enabled=enabled))

    def get_boot_device(self, task) -> dict[str, Any]:
        def _read(system):
            return system.boot.target, system.boot.enabled

        target, enabled = common.call(task, 'get boot device', _read)
        persistent = None
        if enabled is not None:
            persistent = enabled == sushy.BootSourceOverrideEnabled.CONTINUOUS
        return {'boot_device': _FROM_REDFISH.get(target),
                'persistent': persistent}

    def get_supported_boot_modes(self, task) -> list[str]:
        return list(BOOT_MODES)

    def get_boot_mode(self, task) -> str | None:
        mode = common.call(task, 'get boot mode',
                           lambda system: system.boot.mode)
        return _FROM_BOOT_MODE.get(mode)

    def set_boot_mode(self, task, mode: str) -> None:
        if mode not in BOOT_MODES:
            raise exception.InvalidParameterValue(
                err='Invalid boot mode %s; valid ones are %s'
                    % (mode, ', '.join(BOOT_MODES)))
        common.call(task, 'set boot mode %s' % mode,
                    lambda system: system.set_system_boot_options(
                        mode=BOOT_MODES[mode]))

    def get_health(self, task) -> dict[str, Any]:
        """{'health': ok|warning|critical|unknown, 'reasons': [...]}."""
        def _read(system):
            status = system.status
            return getattr(status, 'health_rollup', None) or \
                getattr(status, 'health', None)

        health = common.call(task, 'read health', _read)
        word = health.value.lower() if health is not None else 'unknown'
        return {'health': word, 'reasons': []}

    def inject_nmi(self, task) -> None:
        common.call(task, 'inject NMI',
                    lambda system: system.reset_system(sushy.ResetType.NMI))
