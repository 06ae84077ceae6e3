"""Hardware interfaces and hardware types.

A *hardware type* (``ipmi``, ``redfish``, ``fake-hardware``) says which
implementations of each *interface type* (power, management, deploy, …)
it works with. Implementations are stevedore plugins in the
``ironside.hardware.interfaces.<type>`` namespaces; a node names one per
interface type in its ``*_interface`` fields.

An interface's methods marked with the decorators of
:mod:`ironside.drivers.step_defs` are its steps; :class:`BaseInterface`
lists and runs them.

Drivers see the conductor only through the ``task`` they are handed: its
``node`` (a database record they may change; the conductor saves it),
``driver`` (the node's interfaces by type), ``context`` and ``shared``.
"""

from __future__ import annotations

import abc
import inspect
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import ClassVar
from typing import TypedDict

from ironside.common import exception
from ironside.common import states
from ironside.common.conf.default import INTERFACE_TYPES
from ironside.drivers import boot_modes
from ironside.drivers import indicators
from ironside.drivers import step_defs
from ironside.drivers import vendor_defs

# The step and vendor method plugin API stays where plugins written as
# for Ironic look for it (ironic.drivers.base); the steps are declared
# in step_defs, the vendor methods in vendor_defs.
from ironside.drivers.step_defs import StepInfo as StepInfo
from ironside.drivers.step_defs import StepMark
from ironside.drivers.step_defs import Wait as Wait
from ironside.drivers.step_defs import await_callback as await_callback
from ironside.drivers.step_defs import clean_step as clean_step
from ironside.drivers.step_defs import deploy_step as deploy_step
from ironside.drivers.step_defs import poll_later as poll_later
from ironside.drivers.step_defs import service_step as service_step

# Drivers name it base.Task, beside the interfaces it is handed to.
from ironside.drivers.task import Task as Task

# (the vendor methods' decorators, as said above)
from ironside.drivers.vendor_defs import driver_passthru as driver_passthru
from ironside.drivers.vendor_defs import passthru as passthru

CORE_INTERFACES = ('boot', 'deploy', 'management', 'power')


class BaseInterface(abc.ABC):
    """What every interface implementation offers."""

    interface_type: ClassVar[str]
    _step_methods: ClassVar[dict[str, dict[str, StepMark]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, dict[str, StepMark]] = {
            kind: {} for kind in step_defs.FLOW_STATES}
        for name, member in inspect.getmembers(cls, inspect.isfunction):
            for kind in step_defs.FLOW_STATES:
                info = getattr(member, '_%s_step' % kind, None)
                if info is not None:
                    found[kind][name] = info
        cls._step_methods = found

    @abc.abstractmethod
    def get_properties(self) -> dict[str, str]:
        """``driver_info`` keys this interface reads, with descriptions."""

    @abc.abstractmethod
    def validate(self, task: Task) -> None:
        """Check the node can use this interface; raise a clear error if not.

        Must not change the node or the hardware.
        """

    def _steps(self, kind: str) -> list[StepInfo]:
        steps = []
        for name, info in sorted(self._step_methods[kind].items()):
            step: StepInfo = {'interface': self.interface_type, 'step': name,
                              'priority': info['priority'],
                              'argsinfo': info['argsinfo']}
            if kind in step_defs.ABORTABLE_KINDS:
                step['abortable'] = info['abortable']
            steps.append(step)
        return steps

    def get_deploy_steps(self, task: Task) -> list[StepInfo]:
        """The deploy steps this interface can perform on ``task.node``."""
        return self._steps(step_defs.DEPLOY)

    def get_clean_steps(self, task: Task) -> list[StepInfo]:
        """The clean steps this interface can perform on ``task.node``."""
        return self._steps(step_defs.CLEAN)

    def get_service_steps(self, task: Task) -> list[StepInfo]:
        """The service steps this interface can perform on ``task.node``."""
        return self._steps(step_defs.SERVICE)

    def get_steps(self, task: Task, kind: str) -> list[StepInfo]:
        """The steps of ``kind`` (deploy, clean, service) it offers."""
        get: Callable[[Task], list[StepInfo]] = getattr(
            self, 'get_%s_steps' % kind)
        return get(task)

    def execute_step(self, task: Task, kind: str, step: StepInfo
                    ) -> Wait | None:
        """Run a step of ``kind``; None when done, a :class:`Wait` when it
        goes on."""
        execute: Callable[[Task, StepInfo], Wait | None] = getattr(
            self, 'execute_%s_step' % kind)
        return execute(task, step)

    def _execute_step(self, task: Task, step: StepInfo) -> Wait | None:
        method: Callable[..., Wait | None] = getattr(self, step['step'])
        return method(task, **(step.get('args') or {}))

    def execute_service_step(self, task: Task, step: StepInfo) -> Wait | None:
        """Run a service step; None when done, a Wait when it goes on."""
        return self._execute_step(task, step)

    def execute_deploy_step(self, task: Task, step: StepInfo) -> Wait | None:
        """Run a deploy step; None when done, a Wait when it goes on."""
        return self._execute_step(task, step)

    def execute_clean_step(self, task: Task, step: StepInfo) -> Wait | None:
        """Run a clean step; None when done, a Wait when it goes on."""
        return self._execute_step(task, step)

    def accepts_unknown_steps(self, task: Task, kind: str) -> bool:
        """Whether a step of ``kind`` this interface does not list yet
        may be asked for: an interface whose steps come from the agent
        knows them only once the agent ran on the machine, so steps named
        before that are checked again then."""
        return False

    def poll_async_step(self, task: Task, step: StepInfo) -> bool:
        """Whether an asynchronous step that asked for polling has finished.

        Called by the conductor for steps that returned
        :func:`~ironside.drivers.step_defs.poll_later`;
        raise to fail the step. Interfaces that finish their steps by
        calling back (as an agent does) never get here.
        """
        raise NotImplementedError(
            '%s interface did not say how to poll step %s'
            % (self.interface_type, step.get('step')))


class PowerInterface(BaseInterface):
    interface_type = 'power'

    @abc.abstractmethod
    def get_power_state(self, task: Task) -> str:
        """The node's real power state (POWER_ON / POWER_OFF / ERROR)."""

    @abc.abstractmethod
    def set_power_state(self, task: Task, power_state: str,
                        timeout: int | None = None) -> None:
        """Set power on/off (or soft off) and wait until it is reached."""

    @abc.abstractmethod
    def reboot(self, task: Task, timeout: int | None = None) -> None:
        """Power cycle the node; it ends powered on."""

    def get_supported_power_states(self, task: Task) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT]


class ManagementInterface(BaseInterface, boot_modes.BootModeMethods,
                          indicators.IndicatorMethods):
    interface_type = 'management'

    @abc.abstractmethod
    def get_supported_boot_devices(self, task: Task) -> list[str]:
        """Boot devices the node can be set to (see boot_devices)."""

    @abc.abstractmethod
    def set_boot_device(self, task: Task, device: str,
                        persistent: bool = False) -> None:
        """Boot from ``device`` next time (or every time if persistent)."""

    @abc.abstractmethod
    def get_boot_device(self, task: Task) -> dict[str, Any]:
        """``{'boot_device': str|None, 'persistent': bool|None}``."""

    def get_sensors_data(self, task: Task) -> dict[str, Any]:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='get_sensors_data')

    def inject_nmi(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='inject_nmi')

    def attach_virtual_media(self, task: Task, device_type: str,
                             image_url: str) -> None:
        """Insert ``image_url`` into the BMC's virtual ``device_type``
        (one of VMEDIA_DEVICES)."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='virtual media')

    def detach_virtual_media(self, task: Task,
                             device_types: Sequence[str] | None = None
                             ) -> None:
        """Eject the virtual media of these types (every type if None)."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='virtual media')

    def get_virtual_media(self, task: Task) -> list[dict[str, Any]]:
        """Each virtual media device: ``{'device_type', 'image',
        'inserted'}``."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='virtual media')

    @step_defs.service_step(priority=0, argsinfo={
        'mode': {'description': 'The boot mode to set: "uefi" or "bios".',
                 'required': True}})
    def apply_boot_mode(self, task: Task, mode: str) -> None:
        """Service step: change the boot mode of a deployed machine."""
        self.set_boot_mode(task, mode)


class BootInterface(BaseInterface):
    interface_type = 'boot'

    def validate_ramdisk(self, task: Task, purpose: str = 'deploy') -> None:
        """Check the node can boot the agent's ``purpose`` ramdisk
        (deploy or rescue) this way."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='booting a ramdisk')

    def prepare_ramdisk(self, task: Task, ramdisk_params: dict[str, Any],
                        purpose: str = 'deploy') -> None:
        """Make the node boot into the agent's ``purpose`` ramdisk (deploy
        or rescue) with ``ramdisk_params`` on its kernel command line."""

    def clean_up_ramdisk(self, task: Task) -> None:
        """Undo prepare_ramdisk."""

    def prepare_instance(self, task: Task) -> None:
        """Make the node boot the deployed instance."""

    def clean_up_instance(self, task: Task) -> None:
        """Undo prepare_instance."""


class DeployInterface(BaseInterface):
    interface_type = 'deploy'

    # Whether deploying boots the agent's ramdisk (the boot interface then
    # checks it can, when it validates).
    needs_ramdisk: ClassVar[bool] = False

    def validate_agent(self, task: Task) -> None:
        """Check an agent booted on the node could reach it (for cleaning
        and servicing, which boot it without a deploy's validation)."""

    def prepare(self, task: Task) -> None:
        """Get ready to deploy (before any deploy step runs)."""

    def clean_up(self, task: Task) -> None:
        """Undo prepare, after tear down."""

    @abc.abstractmethod
    def tear_down(self, task: Task) -> None:
        """Undeploy the instance; the node ends powered off."""

    def take_over(self, task: Task) -> None:
        """Another conductor took this node over; re-establish state."""

    def prepare_cleaning(self, task: Task) -> Wait | None:
        """Get ready to clean. A :class:`Wait` (booting the agent, say)
        holds the cleaning in ``clean wait`` until
        :meth:`poll_prepared` says it is ready; then the clean steps are
        computed and run."""

    def tear_down_cleaning(self, task: Task) -> None:
        """Undo prepare_cleaning."""

    def prepare_service(self, task: Task) -> Wait | None:
        """Get ready to service a deployed node; as prepare_cleaning."""

    def tear_down_service(self, task: Task) -> None:
        """Undo prepare_service."""

    def poll_prepared(self, task: Task, kind: str) -> bool:
        """Whether a preparation that returned a :class:`Wait` is over
        (``kind``: clean or service); raise if it failed."""
        raise NotImplementedError(
            'deploy interface %s did not say how to wait for its %s '
            'preparation' % (type(self).__name__, kind))


class ConsoleInterface(BaseInterface):
    interface_type = 'console'

    @abc.abstractmethod
    def start_console(self, task: Task) -> None: ...

    @abc.abstractmethod
    def stop_console(self, task: Task) -> None: ...

    @abc.abstractmethod
    def get_console(self, task: Task) -> dict[str, Any]: ...


class RescueInterface(BaseInterface):
    interface_type = 'rescue'

    @abc.abstractmethod
    def rescue(self, task: Task) -> Wait | None:
        """Boot the node into a rescue system; None when it is in rescue,
        a :class:`Wait` when :meth:`poll_rescue` will say."""

    def poll_rescue(self, task: Task) -> bool:
        """Whether the rescue that returned a Wait is done; raise if it
        failed."""
        raise NotImplementedError(
            'rescue interface %s did not say how to wait for a rescue'
            % type(self).__name__)

    @abc.abstractmethod
    def unrescue(self, task: Task) -> None:
        """Boot the node back into its instance."""

    def clean_up(self, task: Task) -> None:
        """Undo what a rescue set up (after a failed rescue, or a tear
        down of a rescued node)."""


class Inspected(TypedDict):
    """What an inspection found, in Ironic's formats: the ``inventory``
    (cpu, memory, disks, interfaces, system_vendor, bmc_address...) and
    ``plugin_data`` (what processing derived from it)."""

    inventory: dict[str, Any]
    plugin_data: dict[str, Any]


class InspectInterface(BaseInterface):
    interface_type = 'inspect'

    @abc.abstractmethod
    def inspect_hardware(self, task: Task) -> Inspected | Wait:
        """Discover the hardware: set the node's properties and return what
        was found (the conductor stores it and applies inspection rules),
        or a :class:`Wait` when an agent on the machine will send it
        (``continue_inspection``)."""

    def continue_inspection(self, task: Task, inventory: dict[str, Any],
                            plugin_data: dict[str, Any]) -> Inspected:
        """What an agent sent, after a Wait: set the node's properties
        from it, end what inspect_hardware started (power the machine
        off), and return it."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='inventory from an agent')

    def abort(self, task: Task) -> None:
        """End an inspection that failed or was aborted while it waited
        (power the machine off, undo its boot configuration)."""


class NetworkInterface(BaseInterface):
    interface_type = 'network'

    @abc.abstractmethod
    def vif_list(self, task: Task) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    def vif_attach(self, task: Task, vif_info: dict[str, Any]) -> None: ...

    @abc.abstractmethod
    def vif_detach(self, task: Task, vif_id: str) -> None: ...


class StorageInterface(BaseInterface):
    interface_type = 'storage'

    def should_write_image(self, task: Task) -> bool:
        return True


class VendorInterface(BaseInterface):
    """Vendor methods: those marked with
    :func:`~ironside.drivers.vendor_defs.passthru` (on a node) or
    :func:`~ironside.drivers.vendor_defs.driver_passthru` (on the
    hardware type), called by name through the vendor_passthru routes."""

    interface_type = 'vendor'
    _node_methods: ClassVar[dict[str, tuple[str, dict[str, Any]]]] = {}
    _driver_methods: ClassVar[dict[str, tuple[str, dict[str, Any]]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._node_methods = vendor_defs.collect(cls, vendor_defs.NODE_ATTR)
        cls._driver_methods = vendor_defs.collect(cls,
                                                  vendor_defs.DRIVER_ATTR)

    def _routes(self, methods: dict[str, tuple[str, dict[str, Any]]]
                ) -> dict[str, dict[str, Any]]:
        return {name: dict(metadata, func=getattr(self, attr))
                for name, (attr, metadata) in methods.items()}

    @property
    def vendor_routes(self) -> dict[str, dict[str, Any]]:
        """Node methods by API name: their metadata and ``func``."""
        return self._routes(self._node_methods)

    @property
    def driver_routes(self) -> dict[str, dict[str, Any]]:
        """Driver methods by API name: their metadata and ``func``."""
        return self._routes(self._driver_methods)

    def validate(self, task: Task, method: str | None = None,
                 **kwargs: Any) -> None:
        """Check the node can use this interface; with ``method``, also
        the arguments (``kwargs``, with ``http_method``) it is called
        with. Must not change the node or the hardware."""

    def driver_validate(self, method: str, **kwargs: Any) -> None:
        """Check the arguments a driver vendor method is called with."""


class RAIDInterface(BaseInterface):
    interface_type = 'raid'


# Where a BIOS interface caches the settings it read or applied, as
# {name: value} in driver_internal_info; GET /v1/nodes/{node}/bios shows it.
BIOS_SETTINGS_KEY = 'bios_settings'


class BIOSInterface(BaseInterface):
    interface_type = 'bios'


# Where the conductor caches a node's firmware components, as a list of
# {component, initial_version, current_version, last_version_flashed,
# created_at, updated_at} in driver_internal_info (read when cleaning
# starts); GET /v1/nodes/{node}/firmware shows it.
FIRMWARE_COMPONENTS_KEY = 'firmware_components'


class FirmwareInterface(BaseInterface):
    interface_type = 'firmware'

    def read_components(self, task: Task) -> dict[str, str]:
        """The version of each firmware component (``bios``, ``bmc``,
        ...) as the hardware reports it now."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='firmware components')


INTERFACE_BASES: dict[str, type[BaseInterface]] = {
    cls.interface_type: cls for cls in (
        BIOSInterface, BootInterface, ConsoleInterface, DeployInterface,
        FirmwareInterface, InspectInterface, ManagementInterface,
        NetworkInterface, PowerInterface, RAIDInterface, RescueInterface,
        StorageInterface, VendorInterface)}
assert set(INTERFACE_BASES) == set(INTERFACE_TYPES)


class HardwareType:
    """A kind of server management: the interfaces that work with it.

    ``supported_interfaces`` maps each interface type to implementation
    classes, preferred first. An implementation is supported if it is one
    of these classes *or a subclass of one*: a plugin that extends, say,
    the redfish deploy interface with a step of its own works with the
    redfish hardware type without changing it.
    """

    supported_interfaces: ClassVar[Mapping[str, Sequence[type]]] = {}

    def supports(self, interface_type: str, impl: type) -> bool:
        return self.preference(interface_type, impl) is not None

    def preference(self, interface_type: str, impl: type
                   ) -> tuple[int, int] | None:
        """Sort key of ``impl`` among the supported ones; None if not one.

        Listed classes rank in their order; a subclass ranks right after
        the class it extends, so installing a plugin never changes which
        implementation new nodes get by default.
        """
        for rank, cls in enumerate(
                self.supported_interfaces.get(interface_type, ())):
            if isinstance(impl, type) and issubclass(impl, cls):
                return (rank, 0 if impl is cls else 1)
        return None

    def get_properties(self) -> dict[str, str]:
        return {}


class BootDevice:
    PXE = 'pxe'
    DISK = 'disk'
    CDROM = 'cdrom'
    BIOS = 'bios'
    SAFE = 'safe'
    WANBOOT = 'wanboot'
    UEFIHTTP = 'uefihttp'
    ALL = (PXE, DISK, CDROM, BIOS, SAFE, WANBOOT, UEFIHTTP)


# Virtual media device types (Ironic's names).
VMEDIA_CDROM = 'cdrom'
VMEDIA_FLOPPY = 'floppy'
VMEDIA_DISK = 'disk'
VMEDIA_DEVICES = (VMEDIA_CDROM, VMEDIA_FLOPPY, VMEDIA_DISK)
