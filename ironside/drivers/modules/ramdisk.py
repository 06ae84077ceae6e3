"""The ``ramdisk`` deploy interface of the ipmi and redfish types.

There is no agent in a ramdisk here, so this deploy writes no image and
cannot erase disks. What it does is what a BMC can do, in steps a deploy
template can put other steps between (BIOS and RAID steps, say):

``deploy.deploy`` (priority 100)
    Powers the node off, so the steps that follow configure a node that
    is not running.
``deploy.prepare_instance_boot`` (priority 60)
    Asks the boot interface to point the node at its instance: the boot
    device (``pxe``) or the virtual media ISO (``redfish-virtual-media``).
``deploy.boot_instance`` (priority 20)
    Powers the node on (power cycles it if a step left it on) and waits
    until the BMC reports it on.

The node is ``active`` when the BMC says it is powered on with the boot
device set; whether the operating system came up is not known. Tearing
down powers the node off and undoes the boot configuration. It offers no
clean steps.
"""

from __future__ import annotations

from ironside.common import states
from ironside.drivers import base
from ironside.drivers import step_defs


class RamdiskDeploy(base.DeployInterface):
    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: base.Task) -> None:
        """Nothing of its own: power, management and boot validate."""

    @step_defs.deploy_step(priority=100)
    def deploy(self, task: base.Task) -> None:
        """Power the node off before it is configured."""
        task.driver.power.set_power_state(task, states.POWER_OFF)
        task.node.power_state = states.POWER_OFF

    @step_defs.deploy_step(priority=60)
    def prepare_instance_boot(self, task: base.Task) -> None:
        """Point the node's boot at its instance (boot interface)."""
        task.driver.boot.prepare_instance(task)

    @step_defs.deploy_step(priority=20)
    def boot_instance(self, task: base.Task) -> None:
        """Power the node on (or cycle it) and wait until it is on."""
        power = task.driver.power
        if power.get_power_state(task) == states.POWER_ON:
            power.reboot(task)
        else:
            power.set_power_state(task, states.POWER_ON)
        task.node.power_state = states.POWER_ON

    def tear_down(self, task: base.Task) -> None:
        task.driver.power.set_power_state(task, states.POWER_OFF)
        task.node.power_state = states.POWER_OFF
