"""The ``direct`` deploy interface: ironic-python-agent writes the image.

Deploy steps, as Ironic's (priority):

``deploy.deploy`` (100)
    Boots the machine into the agent's ramdisk (boot interface) and
    waits for the agent to heartbeat; the agent's own deploy steps then
    join the step list.
``deploy.write_image`` (80)
    The agent downloads the image, checks its checksum and writes it
    and the config drive to the machine's disk (``standby`` extension,
    through the agent's ``write_image`` deploy step).
``deploy.prepare_instance_boot`` (60)
    Reads the disk's identifier from the agent, installs a boot loader
    where the machine boots in UEFI mode, and points the boot at the
    disk (boot interface).
``deploy.tear_down_agent`` (40)
    Asks the agent to power the machine off (it syncs the disks first),
    and powers it off through the BMC if it is not off in
    [agent]power_off_timeout.
``deploy.switch_to_tenant_network`` (30)
    The network interface's move to the tenant network (``noop``: none).
``deploy.boot_instance`` (20)
    Powers the machine on: it boots what was written.

With [deploy]fast_track an agent left running by inspection or cleaning
is used as it is: ``deploy.deploy`` and the preparation of cleaning boot
nothing, and cleaning leaves the agent running.

Cleaning boots the agent (``prepare_cleaning``), asks it for its clean
steps (``erase_devices_metadata``, priority 99, in automated cleaning;
``erase_devices``, 10; both overridable in [deploy]) and runs them with
the out-of-band ones; servicing likewise with its service steps.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers.modules import boot_files
from ironside.drivers.modules.agent import client
from ironside.drivers.modules.agent import images
from ironside.drivers.modules.agent import in_band
from ironside.drivers.modules.agent import ramdisk

LOG = logging.getLogger(__name__)

# How often the BMC is asked whether the machine the agent powers off is
# off yet.
_POWER_OFF_POLL = 0.25
# Seconds between checks that the booted agent heartbeated (a heartbeat
# checks at once; this only bounds a lost one).
_BOOT_POLL = 10.0


def _boot_agent(task: base.Task) -> step_defs.Wait:
    """Boot the machine into the agent's ramdisk, or, with fast track,
    use the agent that runs: polled at once, its steps read then, as
    after a boot."""
    if ramdisk.fast_track_agent(task):
        return step_defs.Wait(poll=True, interval=0.0, refresh_steps=True)
    ramdisk.boot_ramdisk(task)
    return step_defs.Wait(poll=True, interval=_BOOT_POLL, refresh_steps=True)


class AgentDeploy(base.DeployInterface):
    needs_ramdisk = True

    def get_properties(self) -> dict[str, str]:
        return dict(boot_files.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        """What a deploy needs: an image the agent can fetch and verify,
        and a ramdisk the boot interface can boot."""
        if task.node.provision_state in (states.AVAILABLE, states.ACTIVE,
                                         states.DEPLOYFAIL,
                                         states.DEPLOYING) or \
                (task.node.instance_info or {}).get('image_source'):
            images.validate(task.node)
        task.driver.boot.validate_ramdisk(task)
        ramdisk.check_ports(task)
        ramdisk.api_url()

    def validate_agent(self, task: base.Task) -> None:
        ramdisk.check_ports(task)
        ramdisk.api_url()

    # Steps

    def _own_step(self, step: dict[str, Any], kind: str) -> bool:
        return step['step'] in self._step_methods[kind]

    def accepts_unknown_steps(self, task: base.Task, kind: str) -> bool:
        return not in_band.knows_steps(task.node, kind)

    def get_deploy_steps(self, task: base.Task) -> list[step_defs.StepInfo]:
        own = super().get_deploy_steps(task)
        names = {step['step'] for step in own}
        return own + [step for step in in_band.cached_steps(
            task.node, step_defs.DEPLOY, self.interface_type)
            if step['step'] not in names]

    def get_clean_steps(self, task: base.Task) -> list[step_defs.StepInfo]:
        return super().get_clean_steps(task) + in_band.cached_steps(
            task.node, step_defs.CLEAN, self.interface_type)

    def get_service_steps(self, task: base.Task) -> list[step_defs.StepInfo]:
        return super().get_service_steps(task) + in_band.cached_steps(
            task.node, step_defs.SERVICE, self.interface_type)

    def execute_step(self, task: base.Task, kind: str, step: step_defs.StepInfo
                     ) -> step_defs.Wait | None:
        if self._own_step(dict(step), kind):
            return super().execute_step(task, kind, step)
        return in_band.execute(task, kind, dict(step))

    def poll_async_step(self, task: base.Task,
                        step: step_defs.StepInfo) -> bool:
        kind = step_defs.flow_of(task.node)
        if kind == step_defs.DEPLOY and step.get('step') == 'deploy':
            return self._agent_ready(task, kind)
        return in_band.poll(task, kind, dict(step))

    def _agent_ready(self, task: base.Task, kind: str) -> bool:
        """Whether the booted agent heartbeated; its steps are read then."""
        if not ramdisk.agent_is_up(task.node):
            return False
        in_band.refresh(task, kind)
        return True

    @step_defs.deploy_step(priority=100)
    def deploy(self, task: base.Task) -> step_defs.Wait | None:
        """Boot the machine into the agent's ramdisk."""
        if not task.driver.storage.should_write_image(task):
            return None
        return _boot_agent(task)

    @step_defs.deploy_step(priority=80)
    def write_image(self, task: base.Task) -> step_defs.Wait | None:
        """Have the agent write the image and the config drive."""
        if not task.driver.storage.should_write_image(task):
            return None
        node = task.node
        images.validate(node)
        configdrive = images.config_drive(node)
        info = images.image_info(node)
        if configdrive:
            info['configdrive'] = configdrive
        step = {'interface': 'deploy', 'step': 'write_image',
                'args': {'image_info': info, 'configdrive': configdrive}}
        node.driver_internal_info['is_whole_disk_image'] = \
            images.is_whole_disk(node)
        return in_band.execute(task, step_defs.DEPLOY, step)

    @step_defs.deploy_step(priority=60)
    def prepare_instance_boot(self, task: base.Task) -> None:
        """Point the machine's boot at what the agent wrote: a partition
        image (or a whole disk booted by UEFI) has its boot loader
        installed by the agent first."""
        node = task.node
        if task.driver.storage.should_write_image(task):
            agent = client.AgentClient(node)
            result = agent.run('standby.get_partition_uuids', {}, wait=True)
            if result.get('command_status') != client.SUCCEEDED:
                raise exception.AgentCommandFailed(
                    node=node.uuid, command='standby.get_partition_uuids',
                    error=client.command_error(result))
            uuids = result.get('command_result') or {}
            root = uuids.get('root uuid')
            if root:
                node.driver_internal_info['root_uuid_or_disk_id'] = root
            whole_disk = node.driver_internal_info.get(
                'is_whole_disk_image', True)
            mode = images.boot_mode(node)
            if not whole_disk and not root:
                # As Ironic: no boot loader can be installed, but the
                # image is written and firmware may find it.
                LOG.error('The agent of node %s found no root file system '
                          'UUID on the partition image it wrote (%s); no '
                          'boot loader is installed and the machine may '
                          'not boot it', node.uuid, uuids)
            elif not whole_disk or mode == 'uefi':
                efi = None if whole_disk or mode != 'uefi' else \
                    uuids.get('efi system partition uuid')
                self._install_boot_loader(task, agent, root, efi, mode,
                                          whole_disk)
        task.driver.boot.prepare_instance(task)

    def _install_boot_loader(self, task: base.Task,
                             agent: client.AgentClient, root: str | None,
                             efi: str | None, mode: str,
                             whole_disk: bool) -> None:
        """A partition image cannot boot without its boot loader: a
        failure fails the step. A whole disk image brings its own, and
        the agent only registers it with the UEFI firmware: as in
        Ironic, a failure there (an image without an EFI system
        partition) is logged, and the deploy goes on."""
        result = agent.run_and_wait('image.install_bootloader', {
            'root_uuid': root, 'efi_system_part_uuid': efi,
            'prep_boot_part_uuid': None, 'target_boot_mode': mode})
        if result.get('command_status') == client.SUCCEEDED:
            return
        if not whole_disk:
            raise client.command_failed(
                task.node.uuid, 'image.install_bootloader', result)
        LOG.warning('The agent of node %s could not set up UEFI boot of '
                    'the whole disk image it wrote (%s); the firmware boots '
                    'what the disk holds', task.node.uuid,
                    client.command_error(result))

    @step_defs.deploy_step(priority=40)
    def tear_down_agent(self, task: base.Task) -> None:
        """Have the agent power the machine off (the BMC if it will not)."""
        node = task.node
        power = task.driver.power
        try:
            client.AgentClient(node).run('standby.power_off', {})
        except exception.IronsideException as exc:
            LOG.warning('The agent of node %s did not take power_off (%s); '
                        'the BMC powers the machine off', node.uuid,
                        exc.message)
        else:
            deadline = time.monotonic() + CONF.agent.power_off_timeout
            # The agent syncs the disks, then powers off: soon, usually.
            pause = _POWER_OFF_POLL / 4
            while time.monotonic() < deadline:
                time.sleep(pause)
                if power.get_power_state(task) == states.POWER_OFF:
                    node.power_state = states.POWER_OFF
                    ramdisk.forget_agent(node)
                    return
                pause = _POWER_OFF_POLL
            LOG.warning('Node %s is not off %.0f s after its agent was asked '
                        'to power it off; the BMC powers it off', node.uuid,
                        CONF.agent.power_off_timeout)
        ramdisk.power_off(task)

    @step_defs.deploy_step(priority=30)
    def switch_to_tenant_network(self, task: base.Task) -> None:
        """The network interface moves the node to its tenant network."""
        network = task.driver.interfaces.get('network')
        hook = getattr(network, 'configure_tenant_networks', None)
        if hook is not None:
            hook(task)

    @step_defs.deploy_step(priority=20)
    def boot_instance(self, task: base.Task) -> None:
        """Power the machine on: it boots the deployed image."""
        task.driver.power.set_power_state(task, states.POWER_ON)
        task.node.power_state = states.POWER_ON

    # Life cycle around the steps

    def prepare(self, task: base.Task) -> None:
        """Nothing before the steps: deploy.deploy boots the agent."""

    def clean_up(self, task: base.Task) -> None:
        """After a deploy (failed or torn down): no boot files, and no
        agent the node would take heartbeats or commands from."""
        task.driver.boot.clean_up_ramdisk(task)
        task.node.driver_internal_info.pop(in_band.STARTED_KEY, None)
        ramdisk.forget_agent(task.node)

    def tear_down(self, task: base.Task) -> None:
        ramdisk.power_off(task)

    def take_over(self, task: base.Task) -> None:
        """The agent is reached through the node's record: nothing to do."""

    def prepare_cleaning(self, task: base.Task) -> step_defs.Wait | None:
        return self._boot_for(task)

    def tear_down_cleaning(self, task: base.Task) -> None:
        if CONF.deploy.fast_track:
            # The agent stays up for what comes next (fast track).
            return
        self._end_ramdisk(task)

    def prepare_service(self, task: base.Task) -> step_defs.Wait | None:
        return self._boot_for(task)

    def tear_down_service(self, task: base.Task) -> None:
        """Back to the instance: power off, boot the disk again."""
        self._end_ramdisk(task)
        task.driver.boot.prepare_instance(task)
        task.driver.power.set_power_state(task, states.POWER_ON)
        task.node.power_state = states.POWER_ON

    def poll_prepared(self, task: base.Task, kind: str) -> bool:
        return self._agent_ready(task, kind)

    def _boot_for(self, task: base.Task) -> step_defs.Wait:
        ramdisk.check_ports(task)
        return _boot_agent(task)

    def _end_ramdisk(self, task: base.Task) -> None:
        ramdisk.power_off(task)
        task.driver.boot.clean_up_ramdisk(task)
