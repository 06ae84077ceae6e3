"""BIOS settings of redfish nodes: apply and factory reset, as steps.

Redfish BIOS settings take effect at the next boot: the step writes the
pending settings (BIOS/Settings), power cycles the node, and then waits —
with the node in ``wait call-back`` or ``clean wait`` — polling the BMC
every [redfish]task_poll_interval seconds until the current settings
show the change. The conductor's callback timeout bounds the wait.
"""

from __future__ import annotations

from typing import Any

from sushy.resources.system.system import System

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers.modules.redfish import common
from ironside.drivers.modules.redfish import power

WAIT_KEY = 'redfish_bios_wait'

SETTINGS_ARGSINFO = {
    'settings': {
        'description': 'A list of {"name": ..., "value": ...} BIOS '
                       'settings to apply, names as the BMC\'s BIOS '
                       'attribute registry spells them.',
        'required': True,
    },
}


def _attributes(settings: Any) -> dict[str, Any]:
    if not isinstance(settings, list) or not settings or not all(
            isinstance(s, dict) and isinstance(s.get('name'), str) and
            'value' in s for s in settings):
        raise exception.InvalidParameterValue(
            err='bios.apply_configuration: settings must be a non-empty '
                'list of {"name": ..., "value": ...}')
    return {s['name']: s['value'] for s in settings}


def _read(task: base.Task) -> tuple[dict[str, Any], dict[str, Any]]:
    """(current, pending) BIOS attributes as the BMC reports them."""
    def _get(system: System) -> tuple[dict[str, Any], dict[str, Any]]:
        bios = system.bios
        return dict(bios.attributes or {}), dict(bios.pending_attributes
                                                 or {})
    return common.call(task, 'read BIOS settings', _get)


class RedfishBIOS(base.BIOSInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.parse_driver_info(task.node)

    def get_settings(self, task: base.Task) -> dict[str, Any]:
        """The BIOS settings in effect now."""
        return _read(task)[0]

    @step_defs.clean_step(priority=0, argsinfo=SETTINGS_ARGSINFO)
    @step_defs.deploy_step(priority=0, argsinfo=SETTINGS_ARGSINFO)
    def apply_configuration(self, task: base.Task,
                            settings: list[dict[str, Any]]
                            ) -> step_defs.Wait:
        """Write BIOS settings, reboot, wait until they are in effect."""
        attributes = _attributes(settings)
        common.call(task, 'write BIOS settings',
                    lambda system: system.bios.set_attributes(attributes))
        return self._reboot_and_wait(task, {'kind': 'apply',
                                            'attributes': attributes})

    @step_defs.clean_step(priority=0)
    @step_defs.deploy_step(priority=0)
    def factory_reset(self, task: base.Task) -> step_defs.Wait:
        """Reset BIOS settings to the vendor's defaults, reboot, wait."""
        common.call(task, 'reset BIOS settings',
                    lambda system: system.bios.reset_bios())
        return self._reboot_and_wait(task, {'kind': 'reset'})

    def _reboot_and_wait(self, task: base.Task, wait: dict[str, Any]
                         ) -> step_defs.Wait:
        task.node.driver_internal_info[WAIT_KEY] = wait
        power.change_power_state(task, states.REBOOT)
        task.node.power_state = states.POWER_ON
        return step_defs.poll_later(task, CONF.redfish.task_poll_interval)

    def poll_async_step(self, task: base.Task,
                        step: step_defs.StepInfo) -> bool:
        info = task.node.driver_internal_info
        wait = info.get(WAIT_KEY)
        if not wait:
            return True
        current, pending = _read(task)
        if wait['kind'] == 'apply':
            done = all(current.get(name) == value
                       for name, value in wait['attributes'].items())
        else:
            done = not pending or pending == current
        if done:
            info.pop(WAIT_KEY, None)
        return done
