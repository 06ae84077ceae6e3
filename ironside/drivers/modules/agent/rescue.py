"""The ``agent`` rescue interface: a deployed machine booted into the
agent's (rescue) ramdisk, where the user logs in as ``rescue`` with the
password given with the ``rescue`` verb.

``rescue`` powers the machine off and boots the rescue ramdisk
(driver_info ``rescue_kernel``/``rescue_ramdisk``, else the deploy
ones); at the agent's first heartbeat ``rescue.finalize_rescue`` hands it
the password, after which the agent stops serving its API. ``unrescue``
powers off and boots the instance's disk again.
"""

from __future__ import annotations

from ironside.common import exception
from ironside.common import states
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers.modules import boot_files
from ironside.drivers.modules.agent import client
from ironside.drivers.modules.agent import ramdisk

PASSWORD_KEY = 'rescue_password'


class AgentRescue(base.RescueInterface):
    def get_properties(self) -> dict[str, str]:
        return {key: value for key, value in boot_files.PROPERTIES.items()
                if key.startswith('rescue_')}

    def validate(self, task: base.Task) -> None:
        task.driver.boot.validate_ramdisk(task, boot_files.RESCUE)
        ramdisk.check_ports(task)
        ramdisk.api_url()

    def rescue(self, task: base.Task) -> step_defs.Wait:
        ramdisk.boot_ramdisk(task, boot_files.RESCUE)
        return step_defs.await_callback(task)

    def poll_rescue(self, task: base.Task) -> bool:
        node = task.node
        if not ramdisk.agent_is_up(node):
            return False
        password = (node.instance_info or {}).get(PASSWORD_KEY)
        if not password:
            raise exception.MissingParameterValue(
                err='Node %s has no rescue password to give its agent'
                    % node.uuid)
        result = client.AgentClient(node).run(
            'rescue.finalize_rescue',
            {'rescue_password': password, 'hashed': False}, wait=True)
        if result.get('command_status') != client.SUCCEEDED:
            raise client.command_failed(node.uuid, 'rescue.finalize_rescue',
                                        result)
        task.driver.boot.clean_up_ramdisk(task)
        return True

    def unrescue(self, task: base.Task) -> None:
        ramdisk.power_off(task)
        task.driver.boot.clean_up_ramdisk(task)
        task.driver.boot.prepare_instance(task)
        task.driver.power.set_power_state(task, states.POWER_ON)
        task.node.power_state = states.POWER_ON

    def clean_up(self, task: base.Task) -> None:
        task.driver.boot.clean_up_ramdisk(task)
