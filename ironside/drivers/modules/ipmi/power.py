"""Power of ipmi nodes through pyghmi: read, on, off, soft off, reboot.

A change is sent once, then the BMC is read every
[ipmi]power_poll_interval seconds until the node reaches the new state or
the timeout the conductor passes ([conductor]power_state_change_timeout,
or the API request's) is spent.
"""

from __future__ import annotations

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import bmc_common
from ironside.drivers.modules.ipmi import common
from ironside.drivers.modules.ipmi import operations

# pyghmi's words for the power states.
# By pyghmi's word for it (None when it has none).
_READ: dict[str | None, str] = {'on': states.POWER_ON,
                                'off': states.POWER_OFF}
_SET = {states.POWER_ON: 'on', states.POWER_OFF: 'off',
        states.SOFT_POWER_OFF: 'shutdown'}


def read_power_state(task: base.Task) -> str:
    state = common.call(task, 'power status', operations.get_power)
    return _READ.get(state, states.POWER_ERROR)


def _wait(task: base.Task, target: str, timeout: int | None) -> None:
    bmc_common.wait_for_power_state(
        lambda: read_power_state(task), target, timeout,
        CONF.ipmi.power_poll_interval,
        common.parse_driver_info(task.node).name)


class IPMIPower(bmc_common.BMCPower):
    properties = common.PROPERTIES
    check_driver_info = staticmethod(common.validate)
    read_power_state = staticmethod(read_power_state)

    def set_power_state(self, task: base.Task, power_state: str,
                        timeout: int | None = None) -> None:
        if power_state not in _SET:
            raise exception.InvalidParameterValue(
                err='ipmi power interface cannot set power state %s'
                    % power_state)
        common.call(task, 'power %s' % _SET[power_state],
                    operations.set_power, _SET[power_state])
        _wait(task, bmc_common.TARGET_OF[power_state], timeout)

    def reboot(self, task: base.Task, timeout: int | None = None) -> None:
        """Power cycle: on from off, hard reset when on."""
        if read_power_state(task) == states.POWER_OFF:
            self.set_power_state(task, states.POWER_ON, timeout)
            return
        common.call(task, 'power reset', operations.set_power, 'reset')
        _wait(task, states.POWER_ON, timeout)

    def get_supported_power_states(self, task: base.Task) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT,
                states.SOFT_POWER_OFF]

    def bmc_endpoint(self, task: base.Task) -> str:
        return common.parse_driver_info(task.node).name
