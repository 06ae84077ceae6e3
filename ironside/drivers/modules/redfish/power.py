"""Power of redfish nodes through sushy: read, on, off, soft off, reboot.

A reset is requested once (ComputerSystem.Reset), then the system is read
every [redfish]power_poll_interval seconds until it reaches the new state
or the timeout the conductor passes is spent. Whether to reset is decided
on the power state the task read last if nothing since may have changed
it (a power-on after a power read is one POST); every read of the power
state goes to the BMC.
"""

from __future__ import annotations

import sushy
from sushy.resources.system.system import System

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import bmc_common
from ironside.drivers.modules.redfish import common

_READ = {sushy.PowerState.ON: states.POWER_ON,
         sushy.PowerState.POWERING_OFF: states.POWER_ON,
         sushy.PowerState.OFF: states.POWER_OFF,
         sushy.PowerState.POWERING_ON: states.POWER_OFF}

_RESET = {states.POWER_ON: sushy.ResetType.ON,
          states.POWER_OFF: sushy.ResetType.FORCE_OFF,
          states.SOFT_POWER_OFF: sushy.ResetType.GRACEFUL_SHUTDOWN,
          states.REBOOT: sushy.ResetType.FORCE_RESTART,
          states.SOFT_REBOOT: sushy.ResetType.GRACEFUL_RESTART}


def read_power_state(task: base.Task) -> str:
    # Always from the BMC: the conductor and the waits below confirm
    # power changes with it.
    state = common.call(task, 'read power state',
                        lambda system: system.power_state, confirm=True)
    return _READ.get(state, states.POWER_ERROR)


def _wait(task: base.Task, target: str, timeout: int | None) -> None:
    bmc_common.wait_for_power_state(
        lambda: read_power_state(task), target, timeout,
        CONF.redfish.power_poll_interval,
        common.parse_driver_info(task.node).bmc)


def change_power_state(task: base.Task, power_state: str,
                       timeout: int | None = None) -> None:
    """Request ``power_state`` and wait until the system is there."""
    if power_state not in _RESET:
        raise exception.InvalidParameterValue(
            err='redfish power interface cannot set power state %s'
                % power_state)
    target = bmc_common.TARGET_OF[power_state]

    def reset(system: System) -> bool:
        """Reset the system as needed, on the one read of it; whether
        it was."""
        current = _READ.get(system.power_state, states.POWER_ERROR)
        wanted = power_state
        if wanted in (states.REBOOT, states.SOFT_REBOOT):
            if current == states.POWER_OFF:
                wanted = states.POWER_ON
        elif current == target:
            return False
        system.reset_system(_RESET[wanted])
        return True

    # On the power state the task read last, unless it reset since.
    if common.call(task, 'set power state to %s' % power_state, reset,
                   power_only=True):
        _wait(task, target, timeout)


class RedfishPower(bmc_common.BMCPower):
    properties = common.PROPERTIES
    check_driver_info = staticmethod(common.validate)
    read_power_state = staticmethod(read_power_state)

    def set_power_state(self, task: base.Task, power_state: str,
                        timeout: int | None = None) -> None:
        change_power_state(task, power_state, timeout)

    def reboot(self, task: base.Task, timeout: int | None = None) -> None:
        change_power_state(task, states.REBOOT, timeout)

    def get_supported_power_states(self, task: base.Task) -> list[str]:
        return list(_RESET)

    def bmc_endpoint(self, task: base.Task) -> str:
        return common.parse_driver_info(task.node).address
