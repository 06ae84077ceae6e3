"""Boot device, boot mode and sensors of redfish nodes through sushy,
and the ``wipe_local_storage`` clean step.

Wiping erases drives with the Redfish ``Drive.SecureErase`` action, on
every drive of the system's storage, or on the OS disk only (see
:mod:`ironside.drivers.modules.local_storage`). A drive whose BMC does
not offer the action fails the step before any drive is erased, naming
the drives; sushy-tools' own emulator offers none. Erases the BMC runs
as tasks (HTTP 202) leave the node waiting, polled every
[redfish]task_poll_interval seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sushy
from sushy.resources.system.storage.drive import Drive
from sushy.resources.system.system import System

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers import indicators
from ironside.drivers import step_defs
from ironside.drivers.modules import local_storage
from ironside.drivers.modules.redfish import common
from ironside.drivers.modules.redfish import vmedia

BootDevice = base.BootDevice

SECURE_ERASE = '#Drive.SecureErase'
ERASE_TASKS_KEY = 'redfish_erase_tasks'
ERASING_KEY = 'redfish_erasing_disks'
GIB = 1024 ** 3

_TO_REDFISH = {BootDevice.PXE: sushy.BootSource.PXE,
               BootDevice.DISK: sushy.BootSource.HDD,
               BootDevice.CDROM: sushy.BootSource.CD,
               BootDevice.BIOS: sushy.BootSource.BIOS_SETUP,
               BootDevice.UEFIHTTP: sushy.BootSource.UEFI_HTTP}
_FROM_REDFISH = {value: key for key, value in _TO_REDFISH.items()}

BOOT_MODES = {'uefi': sushy.BootSourceOverrideMode.UEFI,
              'bios': sushy.BootSourceOverrideMode.LEGACY}
_FROM_BOOT_MODE = {value: key for key, value in BOOT_MODES.items()}
_TO_LED = {indicators.ON: sushy.IndicatorLED.LIT,
           indicators.BLINKING: sushy.IndicatorLED.BLINKING,
           indicators.OFF: sushy.IndicatorLED.OFF}
_FROM_LED = {value: key for key, value in _TO_LED.items()}


class RedfishManagement(base.ManagementInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.validate(task)

    def get_supported_boot_devices(self, task: base.Task) -> list[str]:
        return list(_TO_REDFISH)

    def set_boot_device(self, task: base.Task, device: str,
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
                        target=_TO_REDFISH[device], enabled=enabled),
                    keeps_power=True)

    def get_boot_device(self, task: base.Task) -> dict[str, Any]:
        def _read(system: System) -> tuple[Any, Any]:
            return system.boot.target, system.boot.enabled

        target, enabled = common.call(task, 'get boot device', _read)
        persistent = None
        if enabled is not None:
            persistent = enabled == sushy.BootSourceOverrideEnabled.CONTINUOUS
        return {'boot_device': _FROM_REDFISH.get(target),
                'persistent': persistent}

    def get_supported_boot_modes(self, task: base.Task) -> list[str]:
        return list(BOOT_MODES)

    def get_boot_mode(self, task: base.Task) -> str | None:
        mode = common.call(task, 'get boot mode',
                           lambda system: system.boot.mode)
        return _FROM_BOOT_MODE.get(mode)

    def set_boot_mode(self, task: base.Task, mode: str) -> None:
        if mode not in BOOT_MODES:
            raise exception.InvalidParameterValue(
                err='Invalid boot mode %s; valid ones are %s'
                    % (mode, ', '.join(BOOT_MODES)))
        common.call(task, 'set boot mode %s' % mode,
                    lambda system: system.set_system_boot_options(
                        mode=BOOT_MODES[mode]), keeps_power=True)

    def get_supported_indicators(self, task: base.Task
                                 ) -> dict[str, dict[str, Any]]:
        """The system's LED, named by the system's UUID as in Ironic."""
        uuid = common.call(task, 'read indicators',
                           lambda system: system.uuid)
        return {indicators.SYSTEM: {uuid: {
            'readonly': False, 'states': list(_TO_LED)}}}

    def get_indicator_state(self, task: base.Task, component: str,
                            indicator: str) -> str:
        indicators.check_known(self.get_supported_indicators(task),
                               component, indicator)
        led = common.call(task, 'read indicator',
                          lambda system: system.indicator_led)
        return _FROM_LED.get(led, indicators.UNKNOWN)

    def set_indicator_state(self, task: base.Task, component: str,
                            indicator: str, state: str) -> None:
        indicators.check_known(self.get_supported_indicators(task),
                               component, indicator, state)
        common.call(task, 'set indicator %s' % state,
                    lambda system: system.set_indicator_led(_TO_LED[state]))

    def get_secure_boot_state(self, task: base.Task) -> bool | None:
        enabled: bool | None = common.call(
            task, 'get secure boot state',
            lambda system: system.secure_boot.enabled)
        return enabled

    def set_secure_boot_state(self, task: base.Task, enabled: bool) -> None:
        common.call(task, 'set secure boot %s' % enabled,
                    lambda system: system.secure_boot.set_enabled(enabled))

    def get_health(self, task: base.Task) -> dict[str, Any]:
        """{'health': ok|warning|critical|unknown, 'reasons': [...]}."""
        def _read(system: Any) -> Any:
            status = system.status
            return getattr(status, 'health_rollup', None) or \
                getattr(status, 'health', None)

        health = common.call(task, 'read health', _read)
        word = health.value.lower() if health is not None else 'unknown'
        return {'health': word, 'reasons': []}

    def attach_virtual_media(self, task: base.Task, device_type: str,
                             image_url: str) -> None:
        common.call(task, 'insert virtual media', lambda system:
                    vmedia.insert(system, device_type, image_url),
                    keeps_power=True)

    def detach_virtual_media(self, task: base.Task,
                             device_types: Sequence[str] | None=None) -> None:
        common.call(task, 'eject virtual media', lambda system:
                    vmedia.eject(system, device_types), keeps_power=True)

    def get_virtual_media(self, task: base.Task) -> list[dict[str, Any]]:
        return common.call(task, 'read virtual media', vmedia.describe)

    def inject_nmi(self, task: base.Task) -> None:
        common.call(task, 'inject NMI',
                    lambda system: system.reset_system(sushy.ResetType.NMI))

    @step_defs.clean_step(priority=0, argsinfo=local_storage.ARGSINFO)
    def wipe_local_storage(self, task: base.Task,
                           preserve_local_storage: bool = False
                          ) -> step_defs.Wait | None:
        """Secure-erase every drive, or only the OS disk."""
        def _erase(system: System) -> tuple[list[local_storage.Disk],
                                            list[str]]:
            drives = _drives(system)
            chosen = local_storage.select(task.node, list(drives),
                                          preserve_local_storage)
            targets: dict[local_storage.Disk, str | None] = {}
            for disk in chosen:
                action = (drives[disk].json.get('Actions') or {}).get(
                    SECURE_ERASE) or {}
                targets[disk] = action.get('target')
            missing = sorted(d.name for d, t in targets.items() if not t)
            if missing:
                raise exception.UnsupportedDriverExtension(
                    driver='redfish', extension='wiping drives %s: the BMC '
                    'offers no Drive.SecureErase action for them'
                    % ', '.join(missing))
            uris = []
            for target in targets.values():
                # sushy has no method for this action: its connection
                # posts it, as sushy's own resources do.
                response = system._conn.post(target, data={})
                if response.status_code == 202 and \
                        response.headers.get('Location'):
                    uris.append(response.headers['Location'])
            return chosen, uris

        chosen, uris = common.call(task, 'erase drives', _erase)
        if uris:
            info = task.node.driver_internal_info
            info[ERASE_TASKS_KEY] = uris
            info[ERASING_KEY] = {'disks': [d.as_dict() for d in chosen],
                                 'os_disk_only': local_storage.as_bool(
                                     preserve_local_storage)}
            return step_defs.poll_later(task, CONF.redfish.task_poll_interval)
        local_storage.record(task.node, chosen, preserve_local_storage)
        return None

    def poll_async_step(self, task: base.Task,
                        step: step_defs.StepInfo) -> bool:
        if not common.tasks_done(task, ERASE_TASKS_KEY, 'drive erase task'):
            return False
        info = task.node.driver_internal_info
        info[local_storage.WIPED_KEY] = info.pop(ERASING_KEY, None)
        return True


def _drives(system: System) -> dict[local_storage.Disk, Drive]:
    """{Disk: sushy Drive} of every storage subsystem, in BMC order."""
    found = {}
    for storage in system.storage.get_members():
        for drive in storage.drives:
            disk = local_storage.Disk(
                name=drive.name or drive.identity,
                serial=drive.serial_number, model=drive.model,
                vendor=drive.manufacturer,
                size=(drive.capacity_bytes or 0) // GIB or None,
                location=drive.path)
            found[disk] = drive
    return found
