"""Boot device, BMC reset and health of ipmi nodes through pyghmi."""

from __future__ import annotations

import logging
from typing import Any

from ironside.common import exception
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers.modules.ipmi import common
from ironside.drivers.modules.ipmi import operations

LOG = logging.getLogger(__name__)

BootDevice = base.BootDevice

# Ironside's boot devices in pyghmi's words, and back.
_TO_IPMI = {BootDevice.PXE: 'network', BootDevice.DISK: 'hd',
            BootDevice.CDROM: 'optical', BootDevice.BIOS: 'setup',
            BootDevice.SAFE: 'safe'}
# By pyghmi's word for it (None when it has none).
_FROM_IPMI: dict[str | None, str] = {
    value: key for key, value in _TO_IPMI.items()}

# pyghmi's health bits, worst first, in the words of Ironic's sensor data.
_HEALTH = ((8, 'failed'), (2, 'critical'), (1, 'warning'))


class IPMIManagement(base.ManagementInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.validate(task)

    def get_supported_boot_devices(self, task: base.Task) -> list[str]:
        return list(_TO_IPMI)

    def set_boot_device(self, task: base.Task, device: str,
                        persistent: bool = False) -> None:
        """Set the boot device; UEFI when the node's boot mode is uefi."""
        if device not in _TO_IPMI:
            raise exception.InvalidParameterValue(
                err='Invalid boot device %s specified; the ipmi management '
                    'interface supports %s'
                    % (device, ', '.join(sorted(_TO_IPMI))))
        common.call(task, 'set boot device %s' % device,
                    operations.set_boot_device, _TO_IPMI[device],
                    persistent, _boot_mode(task) == 'uefi')

    def get_boot_device(self, task: base.Task) -> dict[str, Any]:
        result = common.call(task, 'get boot device',
                             operations.get_boot_device)
        device = result.get('bootdev')
        return {'boot_device': _FROM_IPMI.get(device),
                'persistent': result.get('persistent')}

    def get_boot_mode(self, task: base.Task) -> str | None:
        """'uefi' or 'bios' as the BMC's boot flags say, None if unset."""
        result = common.call(task, 'get boot device',
                             operations.get_boot_device)
        if result.get('bootdev') == 'default':
            return None
        return 'uefi' if result.get('uefimode') else 'bios'

    @step_defs.clean_step(priority=0)
    def reset_bmc(self, task: base.Task) -> None:
        """Cold reset the BMC itself (where it allows).

        The session is kept; if the reset ended it, the next command
        finds it broken and opens a new one.
        """
        common.call(task, 'BMC cold reset', operations.reset_bmc)

    def get_sensors_data(self, task: base.Task) -> dict[str, Any]:
        """Sensor readings by type, as Ironic reports them.

        BMCs without a sensor repository answer with no readings.
        """
        try:
            readings = common.call(task, 'read sensors',
                                   operations.sensor_readings)
        except exception.IPMIFailure as exc:
            LOG.info('Node %s has no readable sensors: %s', task.node.uuid,
                     exc)
            return {}
        data: dict[str, dict[str, Any]] = {}
        for reading in readings:
            kind = reading.kind or 'Other'
            data.setdefault(kind, {})[reading.name] = {
                'Sensor Reading': '%s %s' % (reading.value,
                                             reading.units or ''),
                'States': list(reading.states or []),
                'Health': _health_word(reading.health),
            }
        return data

    def get_health(self, task: base.Task) -> dict[str, Any]:
        """{'health': ok|warning|critical|failed|unknown, 'reasons': [...]}.

        'unknown' when the BMC has no sensor repository to judge by.
        """
        try:
            bits, bad = common.call(task, 'read health', operations.health)
        except exception.IPMIFailure as exc:
            return {'health': 'unknown', 'reasons': [str(exc)]}
        return {'health': _health_word(bits),
                'reasons': ['%s: %s' % (r.name, ', '.join(r.states))
                            for r in bad]}

    def inject_nmi(self, task: base.Task) -> None:
        common.call(task, 'inject NMI', operations.set_power, 'diag')


def _health_word(bits: int) -> str:
    for bit, word in _HEALTH:
        if bits & bit:
            return word
    return 'ok'


def _boot_mode(task: base.Task) -> str:
    properties = task.node.properties or {}
    capabilities = properties.get('capabilities') or ''
    if isinstance(capabilities, dict):
        mode: str = capabilities.get('boot_mode', 'uefi')
        return mode
    for item in str(capabilities).split(','):
        key, _, value = item.partition(':')
        if key.strip() == 'boot_mode':
            return value.strip()
    mode = (task.node.instance_info or {}).get('boot_mode', 'uefi')
    return mode
