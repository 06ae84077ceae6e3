"""Fake interfaces: hardware that exists only in the database.

They behave like real ones in everything the conductor can see (steps
with priorities, an asynchronous step, power state that sticks), and
tests and demos steer them from ``driver_info``:

``fake_step_delay``
    Seconds every fake step takes (default 0).
``fake_step_delays``
    ``{"deploy.write_image": 2.5, ...}``: seconds per step, overriding
    ``fake_step_delay``.
``fake_fail_steps``
    ``["deploy.write_image", ...]`` (or a comma-separated string): these
    steps fail.
``fake_power_fail``
    ``true`` makes every power action fail; a list such as
    ``["power on", "get"]`` makes only those fail.
``fake_power_delay``
    Seconds a power change takes.
``fake_validate_fail``
    Interface types (``["power", ...]``) whose validation fails.
``fake_async_callback``
    ``true`` makes the asynchronous steps wait for a callback
    (``continue_node_deploy`` / ``continue_node_clean``), as a ramdisk
    agent would send, instead of being polled.
``fake_disks``
    The node's disks, ``[{"name": "/dev/sda", "serial": ..., "size": GiB},
    ...]`` (or names only); default one ``/dev/sda`` of
    ``properties.local_gb``. ``management.wipe_local_storage`` wipes them.
``fake_firmware``
    The firmware components and their versions, ``{"bios": "1.2.0",
    ...}``; default ``bios`` and ``bmc`` at ``1.0.0``. The firmware
    interface's ``update`` step flashes new versions.
``fake_inventory``
    Keys of the inventory inspection finds (Ironic's format), over those
    made from the node's properties: ``{"bmc_address": "192.0.2.1"}``.

Virtual media attached to a fake node is kept in its
``driver_internal_info`` (``fake_vmedia``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from typing import ClassVar

from ironside.common import exception
from ironside.common import states
from ironside.drivers import base
from ironside.drivers import indicators
from ironside.drivers import step_defs
from ironside.drivers.modules import local_storage

PROPERTIES = {
    'fake_step_delay': 'Seconds every fake step takes. Optional.',
    'fake_step_delays': 'Seconds per step, as {"interface.step": s}. '
                        'Optional.',
    'fake_fail_steps': 'Steps that fail, as ["interface.step", ...]. '
                       'Optional.',
    'fake_power_fail': 'true, or a list of power actions ("power on", '
                       '"power off", "rebooting", "get") that fail. '
                       'Optional.',
    'fake_power_delay': 'Seconds a power change takes. Optional.',
    'fake_validate_fail': 'Interface types whose validation fails. '
                          'Optional.',
    'fake_async_callback': 'true: asynchronous steps wait for a callback '
                           'instead of being polled. Optional.',
    'fake_disks': 'The disks, as [{"name": "/dev/sda", "serial": ..., '
                  '"size": GiB}, ...]. Optional; default one /dev/sda.',
    'fake_firmware': 'Firmware components and versions, as {"bios": '
                     '"1.2.0", ...}. Optional; default bios and bmc 1.0.0.',
    'fake_inventory': 'Keys of the inventory inspection finds, over those '
                      'made from the properties. Optional.',
}
# Firmware versions the fake firmware has flashed, in driver_internal_info.
FLASHED_KEY = 'fake_firmware_flashed'
VMEDIA_KEY = 'fake_vmedia'
FAKE_INDICATORS_KEY = 'fake_indicators'


def _as_list(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(',') if v.strip()]
    return [str(v) for v in value]


def _number(task: base.Task, key: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise exception.InvalidParameterValue(
            err='driver_info %s must be a number of seconds, not %r'
                % (key, value)) from None
    if number < 0:
        raise exception.InvalidParameterValue(
            err='driver_info %s must not be negative' % key)
    return number


def step_delay(task: base.Task, name: str) -> float:
    info = task.node.driver_info
    delays = info.get('fake_step_delays') or {}
    if name in delays:
        return _number(task, 'fake_step_delays', delays[name])
    return _number(task, 'fake_step_delay', info.get('fake_step_delay', 0))


def start_async_step(task: base.Task, name: str) -> step_defs.Wait:
    """Begin an asynchronous fake step that lasts its delay.

    It finishes when polled after the delay, or, with
    ``fake_async_callback``, when someone calls back.
    """
    delay = step_delay(task, name)
    task.node.driver_internal_info['fake_async_until'] = time.time() + delay
    if task.node.driver_info.get('fake_async_callback'):
        return step_defs.await_callback(task)
    return step_defs.poll_later(task, interval=delay or 0.01)


def poll_async_fake_step(task: base.Task, step: step_defs.StepInfo) -> bool:
    """Whether an asynchronous fake step's delay is over (then run it)."""
    until = task.node.driver_internal_info.get('fake_async_until')
    if until is not None and time.time() < until:
        return False
    task.node.driver_internal_info.pop('fake_async_until', None)
    run_fake_step(task, '%s.%s' % (step['interface'], step['step']),
                  sleep=False)
    return True


def run_fake_step(task: base.Task, name: str, sleep: bool = True) -> None:
    """What every fake step does: wait its delay, then fail if told to."""
    if sleep:
        delay = step_delay(task, name)
        if delay:
            time.sleep(delay)
    if name in _as_list(task.node.driver_info.get('fake_fail_steps')):
        raise exception.StepFailed(
            step=name, reason='fake failure requested by driver_info '
                              'fake_fail_steps')


class FakeInterfaceMixin:
    # Set by the interface class it is mixed into.
    interface_type: ClassVar[str]

    def get_properties(self) -> dict[str, str]:
        return dict(PROPERTIES)

    def validate(self, task: base.Task) -> None:
        info = task.node.driver_info
        for key in ('fake_step_delay', 'fake_power_delay'):
            if key in info:
                _number(task, key, info[key])
        delays = info.get('fake_step_delays', {})
        if not isinstance(delays, dict):
            raise exception.InvalidParameterValue(
                err='driver_info fake_step_delays must be an object of '
                    '"interface.step": seconds')
        for value in delays.values():
            _number(task, 'fake_step_delays', value)
        if 'fake_disks' in info:
            fake_disks(task.node)
        if self.interface_type in _as_list(info.get('fake_validate_fail')):
            raise exception.InvalidParameterValue(
                err='fake %s validation failure requested by driver_info '
                    'fake_validate_fail' % self.interface_type)


class FakePower(FakeInterfaceMixin, base.PowerInterface):
    """Power that is whatever it was last set to."""

    def _check(self, task: base.Task, action: str) -> None:
        fail = task.node.driver_info.get('fake_power_fail')
        if fail is True or (isinstance(fail, str) and
                            fail.lower() in ('true', '1', 'yes')) or \
                action in _as_list(fail if not isinstance(fail, bool)
                                   else None):
            raise exception.PowerStateFailure(pstate=action)

    def get_power_state(self, task: base.Task) -> str:
        self._check(task, 'get')
        return task.node.power_state or states.POWER_OFF

    def set_power_state(self, task: base.Task, power_state: str,
                        timeout: int | None = None) -> None:
        self._check(task, power_state)
        delay = _number(task, 'fake_power_delay',
                        task.node.driver_info.get('fake_power_delay', 0))
        if timeout is not None and delay > timeout:
            time.sleep(timeout)
            raise exception.PowerStateFailure(pstate=power_state)
        if delay:
            time.sleep(delay)
        if power_state == states.SOFT_POWER_OFF:
            power_state = states.POWER_OFF
        task.node.power_state = power_state

    def reboot(self, task: base.Task, timeout: int | None = None) -> None:
        self._check(task, states.REBOOT)
        task.node.power_state = states.POWER_ON

    def get_supported_power_states(self, task: base.Task) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT,
                states.SOFT_REBOOT, states.SOFT_POWER_OFF]


class FakeManagement(FakeInterfaceMixin, base.ManagementInterface):
    def get_supported_boot_devices(self, task: base.Task) -> list[str]:
        return [base.BootDevice.PXE, base.BootDevice.DISK,
                base.BootDevice.CDROM, base.BootDevice.BIOS]

    def set_boot_device(self, task: base.Task, device: str,
                        persistent: bool = False) -> None:
        if device not in self.get_supported_boot_devices(task):
            raise exception.InvalidParameterValue(
                err='Invalid boot device %s specified.' % device)
        task.node.driver_internal_info['fake_boot_device'] = {
            'boot_device': device, 'persistent': bool(persistent)}

    def get_boot_device(self, task: base.Task) -> dict[str, Any]:
        return dict(task.node.driver_internal_info.get(
            'fake_boot_device', {'boot_device': base.BootDevice.DISK,
                                 'persistent': True}))

    def get_sensors_data(self, task: base.Task) -> dict[str, Any]:
        return {}

    def inject_nmi(self, task: base.Task) -> None:
        pass

    def get_supported_boot_modes(self, task: base.Task) -> list[str]:
        return ['uefi', 'bios']

    def set_boot_mode(self, task: base.Task, mode: str) -> None:
        if mode not in self.get_supported_boot_modes(task):
            raise exception.InvalidParameterValue(
                err='Invalid boot mode %s; valid ones are uefi, bios' % mode)
        run_fake_step(task, 'management.apply_boot_mode')
        task.node.driver_internal_info['fake_boot_mode'] = mode

    def get_boot_mode(self, task: base.Task) -> str | None:
        mode: str | None = task.node.driver_internal_info.get(
            'fake_boot_mode')
        return mode

    def get_supported_indicators(self, task: base.Task
                                 ) -> dict[str, dict[str, Any]]:
        led = {'readonly': False, 'states': [indicators.OFF, indicators.ON,
                                             indicators.BLINKING]}
        return {indicators.SYSTEM: {'led': dict(led)},
                indicators.CHASSIS: {'led': dict(led)}}

    def get_indicator_state(self, task: base.Task, component: str,
                            indicator: str) -> str:
        indicators.check_known(self.get_supported_indicators(task),
                               component, indicator)
        state: str = task.node.driver_internal_info.get(
            FAKE_INDICATORS_KEY, {}).get('%s@%s' % (indicator, component),
                                         indicators.OFF)
        return state

    def set_indicator_state(self, task: base.Task, component: str,
                            indicator: str, state: str) -> None:
        indicators.check_known(self.get_supported_indicators(task),
                               component, indicator, state)
        task.node.driver_internal_info.setdefault(
            FAKE_INDICATORS_KEY, {})['%s@%s' % (indicator, component)] = state

    def get_secure_boot_state(self, task: base.Task) -> bool | None:
        """As last set; unknown (None) until then."""
        enabled: bool | None = task.node.driver_internal_info.get(
            'fake_secure_boot')
        return enabled

    def set_secure_boot_state(self, task: base.Task, enabled: bool) -> None:
        task.node.driver_internal_info['fake_secure_boot'] = bool(enabled)

    def attach_virtual_media(self, task: base.Task, device_type: str,
                             image_url: str) -> None:
        media = task.node.driver_internal_info.setdefault(VMEDIA_KEY, {})
        media[device_type] = image_url

    def detach_virtual_media(self, task: base.Task,
                             device_types: Sequence[str] | None=None) -> None:
        media = task.node.driver_internal_info.get(VMEDIA_KEY) or {}
        for device_type in list(media):
            if device_types is None or device_type in device_types:
                del media[device_type]

    def get_virtual_media(self, task: base.Task) -> list[dict[str, Any]]:
        media = task.node.driver_internal_info.get(VMEDIA_KEY) or {}
        return [{'device_type': kind, 'image': media.get(kind),
                 'inserted': kind in media} for kind in base.VMEDIA_DEVICES]

    @step_defs.clean_step(priority=0, argsinfo=local_storage.ARGSINFO)
    def wipe_local_storage(self, task: base.Task,
                           preserve_local_storage: bool = False) -> None:
        """Wipe every disk, or only the OS disk (see local_storage)."""
        run_fake_step(task, 'management.wipe_local_storage')
        chosen = local_storage.select(task.node, fake_disks(task.node),
                                      preserve_local_storage)
        local_storage.record(task.node, chosen, preserve_local_storage)


def fake_disks(node: Any) -> list[local_storage.Disk]:
    """The disks of a fake node: driver_info fake_disks, or one disk."""
    value = node.driver_info.get('fake_disks')
    if value is None:
        size = (node.properties or {}).get('local_gb')
        return [local_storage.Disk('/dev/sda', size=int(size)
                                   if isinstance(size, int) else None)]
    disks = []
    for item in value if isinstance(value, list) else [None]:
        if isinstance(item, str):
            item = {'name': item}
        if not isinstance(item, dict) or not isinstance(
                item.get('name'), str) or \
                set(item) - set(local_storage.HINTS):
            raise exception.InvalidParameterValue(
                err='driver_info fake_disks must be a list of disk names or '
                    'of {"name": ..., "serial": ..., "model": ..., '
                    '"vendor": ..., "wwn": ..., "size": GiB}, not %r'
                    % (value,))
        disks.append(local_storage.Disk(**item))
    return disks


class FakeBoot(FakeInterfaceMixin, base.BootInterface):
    pass


class FakeDeploy(FakeInterfaceMixin, base.DeployInterface):
    """A deploy shaped like Ironic's agent deploy, without the agent."""

    @step_defs.deploy_step(priority=100)
    def deploy(self, task: base.Task) -> None:
        """Boot the deployment ramdisk."""
        run_fake_step(task, 'deploy.deploy')

    @step_defs.deploy_step(priority=80)
    def write_image(self, task: base.Task) -> step_defs.Wait:
        """Write the image; asynchronous."""
        return start_async_step(task, 'deploy.write_image')

    @step_defs.deploy_step(priority=60)
    def prepare_instance_boot(self, task: base.Task) -> None:
        """Make the node boot from its disk."""
        run_fake_step(task, 'deploy.prepare_instance_boot')
        task.driver.management.set_boot_device(task, base.BootDevice.DISK,
                                               persistent=True)

    @step_defs.deploy_step(priority=20)
    def boot_instance(self, task: base.Task) -> None:
        """Power the node on into the deployed instance."""
        run_fake_step(task, 'deploy.boot_instance')
        task.driver.power.set_power_state(task, states.POWER_ON)

    @step_defs.clean_step(priority=99)
    def erase_devices_metadata(self, task: base.Task) -> None:
        """Wipe partition tables and signatures."""
        run_fake_step(task, 'deploy.erase_devices_metadata')

    @step_defs.clean_step(priority=0, abortable=True)
    def erase_devices(self, task: base.Task) -> step_defs.Wait:
        """Overwrite whole disks; asynchronous and abortable."""
        return start_async_step(task, 'deploy.erase_devices')

    def poll_async_step(self, task: base.Task,
                        step: step_defs.StepInfo) -> bool:
        return poll_async_fake_step(task, step)

    def tear_down(self, task: base.Task) -> None:
        task.driver.power.set_power_state(task, states.POWER_OFF)


class FakeConsole(FakeInterfaceMixin, base.ConsoleInterface):
    def start_console(self, task: base.Task) -> None:
        pass

    def stop_console(self, task: base.Task) -> None:
        pass

    def get_console(self, task: base.Task) -> dict[str, Any]:
        return {'type': 'socat', 'url': 'tcp://127.0.0.1:1'}


class FakeInspect(FakeInterfaceMixin, base.InspectInterface):
    def inspect_hardware(self, task: base.Task) -> base.Inspected:
        run_fake_step(task, 'inspect.inspect_hardware')
        properties = task.node.properties
        properties.setdefault('cpus', 2)
        properties.setdefault('memory_mb', 4096)
        properties.setdefault('local_gb', 40)
        properties.setdefault('cpu_arch', 'x86_64')
        inventory = {
            'cpu': {'count': properties['cpus'],
                    'architecture': properties['cpu_arch']},
            'memory': {'physical_mb': properties['memory_mb']},
            'disks': [dict(disk.as_dict(), size=(disk.size or 0) * 2 ** 30)
                      for disk in fake_disks(task.node)],
            'interfaces': [],
            'system_vendor': {'manufacturer': 'Ironside',
                              'product_name': 'Fake'},
        }
        found = task.node.driver_info.get('fake_inventory') or {}
        if not isinstance(found, dict):
            raise exception.InvalidParameterValue(
                err='driver_info fake_inventory must be an object')
        inventory.update(found)
        return {'inventory': inventory, 'plugin_data': {}}


class FakeRescue(FakeInterfaceMixin, base.RescueInterface):
    def rescue(self, task: base.Task) -> step_defs.Wait | None:
        return None

    def unrescue(self, task: base.Task) -> None:
        return None


class FakeVendor(FakeInterfaceMixin, base.VendorInterface):
    """Vendor methods to call, as Ironic's fake vendor has: the node's
    ``first_method`` (asynchronous) keeps its outcome in the node's
    ``driver_internal_info`` (``fake_vendor``), ``second_method``
    (synchronous) answers with it, ``fake_log`` answers raw text; the
    hardware type's ``first_method`` answers at once, its
    ``second_method`` runs in a worker."""

    NEEDS_BAR = ('first_method', 'second_method')

    def validate(self, task: base.Task, method: str | None = None,
                 **kwargs: Any) -> None:
        super().validate(task)
        if method in self.NEEDS_BAR and not kwargs.get('bar'):
            raise exception.MissingParameterValue(
                err="Parameter 'bar' not passed to method '%s'." % method)

    @base.passthru(['POST'], description='Test if the value of bar is baz; '
                   'the outcome is kept in driver_internal_info fake_vendor')
    def first_method(self, task: base.Task, http_method: str, bar: Any
                    ) -> None:
        run_fake_step(task, 'vendor.first_method')
        task.node.driver_internal_info['fake_vendor'] = {
            'first_method': {'bar': bar, 'result': bar == 'baz'}}

    @base.passthru(['GET', 'POST'], async_call=False,
                   require_exclusive_lock=False,
                   description='Test if the value of bar is kazoo, and '
                   'show what first_method last found')
    def second_method(self, task: base.Task, http_method: str, bar: Any
                     ) -> dict[str, Any]:
        return {'http_method': http_method, 'bar': bar,
                'result': bar == 'kazoo',
                'first_method': task.node.driver_internal_info.get(
                    'fake_vendor', {}).get('first_method')}

    @base.passthru(['GET'], async_call=False, attach=True,
                   require_exclusive_lock=False,
                   description='The fake BMC log, as plain text')
    def fake_log(self, task: base.Task, http_method: str) -> str:
        return 'fake BMC log of node %s\n' % task.node.uuid

    def driver_validate(self, method: str, **kwargs: Any) -> None:
        if method in self.NEEDS_BAR and not kwargs.get('bar'):
            raise exception.MissingParameterValue(
                err="Parameter 'bar' not passed to method '%s'." % method)

    @base.driver_passthru(['POST'], method='first_method',
                          async_call=False,
                          description='Test if the value of bar is baz')
    def driver_first_method(self, context: Any, http_method: str, bar: Any
                            ) -> dict[str, Any]:
        return {'http_method': http_method, 'bar': bar,
                'result': bar == 'baz'}

    @base.driver_passthru(['POST'], method='second_method',
                          description='Take bar, in a worker, and forget it')
    def driver_second_method(self, context: Any, http_method: str, bar: Any
                             ) -> None:
        return None


class FakeBIOS(FakeInterfaceMixin, base.BIOSInterface):
    """BIOS settings kept where the API reads cached ones (see base)."""

    SETTINGS_ARGSINFO = {
        'settings': {
            'description': 'A list of {"name": ..., "value": ...} '
                           'settings to apply.',
            'required': True,
        },
    }

    @step_defs.clean_step(priority=0, argsinfo=SETTINGS_ARGSINFO)
    @step_defs.deploy_step(priority=0, argsinfo=SETTINGS_ARGSINFO)
    def apply_configuration(self, task: base.Task,
                            settings: list[dict[str, Any]]) -> None:
        run_fake_step(task, 'bios.apply_configuration')
        if not isinstance(settings, list) or not all(
                isinstance(s, dict) and 'name' in s and 'value' in s
                for s in settings):
            raise exception.InvalidParameterValue(
                err='bios.apply_configuration: settings must be a list of '
                    '{"name": ..., "value": ...}')
        current = task.node.driver_internal_info.setdefault(
            base.BIOS_SETTINGS_KEY, {})
        current.update({s['name']: s['value'] for s in settings})

    @step_defs.clean_step(priority=0)
    @step_defs.deploy_step(priority=0)
    def factory_reset(self, task: base.Task) -> None:
        run_fake_step(task, 'bios.factory_reset')
        task.node.driver_internal_info[base.BIOS_SETTINGS_KEY] = {}


class FakeFirmware(FakeInterfaceMixin, base.FirmwareInterface):
    """Firmware components from ``driver_info['fake_firmware']``, and
    the versions flashed since."""

    UPDATE_ARGSINFO = {
        'settings': {
            'description': 'A list of {"component": ..., "url": ...}: the '
                           'image to flash on each component; the fake '
                           'takes the version from the URL\'s file name '
                           '("bios-1.2.3.bin" flashes 1.2.3).',
            'required': True,
        },
    }

    def read_components(self, task: base.Task) -> dict[str, str]:
        given = task.node.driver_info.get('fake_firmware')
        components = {str(k): str(v) for k, v in given.items()} \
            if isinstance(given, dict) else {'bios': '1.0.0', 'bmc': '1.0.0'}
        components.update(task.node.driver_internal_info.get(FLASHED_KEY)
                          or {})
        return components

    @step_defs.clean_step(priority=0, argsinfo=UPDATE_ARGSINFO)
    @step_defs.service_step(priority=0, argsinfo=UPDATE_ARGSINFO)
    def update(self, task: base.Task, settings: list[dict[str, Any]]
               ) -> None:
        run_fake_step(task, 'firmware.update')
        known = self.read_components(task)
        flashed = task.node.driver_internal_info.setdefault(FLASHED_KEY, {})
        for item in settings if isinstance(settings, list) else [None]:
            if not isinstance(item, dict) or item.get('component') not in \
                    known or not isinstance(item.get('url'), str):
                raise exception.InvalidParameterValue(
                    err='firmware.update: settings must be a list of '
                        '{"component": one of %s, "url": ...}'
                        % ', '.join(sorted(known)))
            name = item['url'].rstrip('/').rsplit('/', 1)[-1]
            version = name.rsplit('.', 1)[0].split('-')[-1] or name
            flashed[item['component']] = version


class FakeRAID(FakeInterfaceMixin, base.RAIDInterface):
    @step_defs.clean_step(priority=0)
    def create_configuration(self, task: base.Task) -> step_defs.Wait:
        """Build the target RAID configuration; asynchronous and, like real
        controllers, not abortable once started."""
        task.node.raid_config = dict(task.node.target_raid_config or {})
        return start_async_step(task, 'raid.create_configuration')

    def poll_async_step(self, task: base.Task,
                        step: step_defs.StepInfo) -> bool:
        return poll_async_fake_step(task, step)

    @step_defs.clean_step(priority=0)
    def delete_configuration(self, task: base.Task) -> None:
        run_fake_step(task, 'raid.delete_configuration')
        task.node.raid_config = {}

    @step_defs.deploy_step(priority=0, argsinfo={
        'raid_config': {'description': 'The RAID configuration to apply.',
                        'required': True},
        'delete_existing': {'description': 'Delete the existing '
                                           'configuration first.',
                            'required': False},
    })
    def apply_configuration(self, task: base.Task,
                            raid_config: dict[str, Any],
                            delete_existing: bool = True) -> None:
        run_fake_step(task, 'raid.apply_configuration')
        task.node.raid_config = dict(raid_config)
