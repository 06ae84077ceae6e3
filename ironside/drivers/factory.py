"""Loads hardware types and interface implementations with stevedore.

One :class:`DriverFactory` per conductor process knows which hardware
types and interfaces are enabled, which implementations each type
supports (and its default), and builds the set of interface objects a
node uses. Interface objects are stateless singletons shared by all nodes.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import Any

from stevedore import extension

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.common.conf.default import INTERFACE_TYPES
from ironside.drivers import base

LOG = logging.getLogger(__name__)

HARDWARE_TYPES_NAMESPACE = 'ironside.hardware.types'
INTERFACE_NAMESPACE = 'ironside.hardware.interfaces.%s'


@dataclasses.dataclass
class NodeDriver:
    """The interface objects of one node, by interface type."""

    hardware_type_name: str
    hardware_type: base.HardwareType
    interfaces: dict[str, base.BaseInterface]

    def __getattr__(self, name: str) -> base.BaseInterface:
        # Through __dict__: while it is unset (an object being copied),
        # self.interfaces would come back here.
        interfaces: dict[str, base.BaseInterface] = \
            self.__dict__['interfaces']
        try:
            return interfaces[name]
        except KeyError:
            raise AttributeError(name) from None

    def all_interfaces(self) -> dict[str, base.BaseInterface]:
        return dict(self.interfaces)


def _load(namespace: str, enabled: list[str] | None) -> dict[str, Any]:
    """Entry points of ``namespace``, instantiated; only ``enabled`` ones."""
    loaded = {}

    def _failed(_manager: Any, entrypoint: Any, exc: BaseException
                ) -> None:
        LOG.warning('Could not load %s plugin %s: %s', namespace,
                    entrypoint.name, exc)

    manager = extension.ExtensionManager(
        namespace, invoke_on_load=True, on_load_failure_callback=_failed)
    for ext in manager:
        if enabled is None or ext.name in enabled:
            loaded[ext.name] = ext.obj
    for name in enabled or ():
        if name not in loaded:
            LOG.warning('Enabled %s plugin %s is not installed',
                        namespace, name)
    return loaded


AGENT_DEPLOY = 'direct'


class DriverFactory:
    def __init__(self) -> None:
        self.hardware_types: dict[str, base.HardwareType] = _load(
            HARDWARE_TYPES_NAMESPACE, CONF.enabled_hardware_types)
        self.interfaces: dict[str, dict[str, base.BaseInterface]] = {
            iface: _load(INTERFACE_NAMESPACE % iface,
                         getattr(CONF, 'enabled_%s_interfaces' % iface))
            for iface in INTERFACE_TYPES}
        self._supported = {
            (hw, iface): self._compute_supported(hw, iface)
            for hw in self.hardware_types for iface in INTERFACE_TYPES}
        if not self.hardware_types:
            raise exception.DriverLoadError(
                driver=','.join(CONF.enabled_hardware_types or []),
                reason='no enabled hardware type could be loaded')

    def _compute_supported(self, hw_name: str, iface: str) -> list[str]:
        hw_type = self.hardware_types[hw_name]
        ranked = []
        for name, impl in self.interfaces[iface].items():
            rank = hw_type.preference(iface, type(impl))
            if rank is not None:
                ranked.append((rank, name))
        names = [name for _, name in sorted(ranked)]
        if iface == 'deploy' and AGENT_DEPLOY in names and \
                CONF.conductor.deploy_kernel and CONF.conductor.deploy_ramdisk:
            # With an agent ramdisk for every node, the agent's deploy
            # (which writes an image) is the default, as in Ironic.
            names.remove(AGENT_DEPLOY)
            names.insert(0, AGENT_DEPLOY)
        default = getattr(CONF, 'default_%s_interface' % iface)
        if default in names:
            names.remove(default)
            names.insert(0, default)
        return names

    def supported_interfaces(self, hw_name: str, iface: str) -> list[str]:
        """Enabled implementations the type supports, the default first."""
        self.hardware_type(hw_name)
        return list(self._supported[(hw_name, iface)])

    def default_interface(self, hw_name: str, iface: str) -> str | None:
        supported = self.supported_interfaces(hw_name, iface)
        return supported[0] if supported else None

    def hardware_type(self, name: str) -> base.HardwareType:
        try:
            return self.hardware_types[name]
        except KeyError:
            raise exception.DriverNotFound(driver_name=name) from None

    def registration(self) -> list[tuple[str, str, str, bool]]:
        """(hardware type, interface type, name, is default) rows."""
        rows: list[tuple[str, str, str, bool]] = []
        for (hw, iface), names in sorted(self._supported.items()):
            rows.extend((hw, iface, name, i == 0)
                        for i, name in enumerate(names))
        return rows

    def resolve_interfaces(self, driver: str, values: dict[str, Any],
                           reset: bool = False) -> dict[str, str]:
        """Fill in and check a node's ``*_interface`` fields.

        Unset fields (or all, with ``reset``) get the type's default;
        names the type does not support are refused, naming the choices.
        """
        self.hardware_type(driver)
        result = {}
        for iface in INTERFACE_TYPES:
            field = '%s_interface' % iface
            name = None if reset else values.get(field)
            supported = self._supported[(driver, iface)]
            if name is None:
                if not supported:
                    if iface in base.CORE_INTERFACES:
                        raise exception.NoValidHost(
                            reason='no enabled %s interface supports '
                                   'hardware type %s' % (iface, driver))
                    continue
                name = supported[0]
            elif name not in self.interfaces[iface]:
                raise exception.InterfaceNotFoundInEntrypoint(
                    iface=name, entrypoint=INTERFACE_NAMESPACE % iface,
                    valid=sorted(self.interfaces[iface]))
            elif name not in supported:
                raise exception.IncompatibleInterface(
                    interface_type=iface, interface_impl=name,
                    hardware_type=driver)
            result[field] = name
        return result

    def driver_for(self, node: Any) -> NodeDriver:
        """The interface objects ``node`` uses."""
        hw_type = self.hardware_type(node.driver)
        interfaces = {}
        for iface in INTERFACE_TYPES:
            name = getattr(node, '%s_interface' % iface)
            if name is None:
                name = self.default_interface(node.driver, iface)
                if name is None:
                    continue
            try:
                interfaces[iface] = self.interfaces[iface][name]
            except KeyError:
                raise exception.InterfaceNotFoundInEntrypoint(
                    iface=name, entrypoint=INTERFACE_NAMESPACE % iface,
                    valid=sorted(self.interfaces[iface])) from None
        return NodeDriver(node.driver, hw_type, interfaces)

    def driver_properties(self, driver: str) -> dict[str, str]:
        """driver_info keys of a type's default interfaces, described."""
        properties = dict(self.hardware_type(driver).get_properties())
        for iface in INTERFACE_TYPES:
            name = self.default_interface(driver, iface)
            if name:
                properties.update(self.interfaces[iface][name]
                                  .get_properties())
        return properties


_FACTORY: DriverFactory | None = None
_FACTORY_LOCK = threading.Lock()


def get_factory() -> DriverFactory:
    global _FACTORY
    if _FACTORY is None:
        with _FACTORY_LOCK:
            if _FACTORY is None:
                _FACTORY = DriverFactory()
    return _FACTORY


def reset_factory() -> None:
    """Forget loaded drivers (tests change enabled_* options)."""
    global _FACTORY
    with _FACTORY_LOCK:
        _FACTORY = None
