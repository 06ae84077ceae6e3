"""Implementations for interfaces a hardware type does not support.

They validate fine and refuse every action with a clear error, so a node
always has an implementation of each interface type.
"""

from __future__ import annotations

from typing import Any

from ironside.common import exception
from ironside.drivers import base


def _unsupported(task, what: str):
    raise exception.UnsupportedDriverExtension(driver=task.node.driver,
                                               extension=what)


class _NoProperties:
    def get_properties(self) -> dict[str, str]:
        return {}


class _Refusing(_NoProperties):
    """validate() fails: the interface exists but does nothing."""

    def validate(self, task) -> None:
        _unsupported(task, self.interface_type)


class NoBIOS(_Refusing, base.BIOSInterface):
    pass


class NoConsole(_Refusing, base.ConsoleInterface):
    def start_console(self, task) -> None:
        _unsupported(task, 'console')

    def stop_console(self, task) -> None:
        _unsupported(task, 'console')

    def get_console(self, task) -> dict[str, Any]:
        _unsupported(task, 'console')


class NoFirmware(_Refusing, base.FirmwareInterface):
    pass


class NoInspect(_Refusing, base.InspectInterface):
    def inspect_hardware(self, task) -> str | None:
        _unsupported(task, 'inspect')


class NoRAID(_Refusing, base.RAIDInterface):
    pass


class NoRescue(_Refusing, base.RescueInterface):
    def rescue(self, task) -> str | None:
        _unsupported(task, 'rescue')

    def unrescue(self, task) -> str | None:
        _unsupported(task, 'rescue')


class NoVendor(_Refusing, base.VendorInterface):
    pass


class NoopStorage(_NoProperties, base.StorageInterface):
    """Local disks only: nothing to attach, nothing to validate."""

    def validate(self, task) -> None:
        pass


class NoopNetwork(_NoProperties, base.NetworkInterface):
    """No network switching; VIFs are recorded on the node's ports.

    A VIF is attached to the first free port (``internal_info
    ['tenant_vif_port_id']``), or, for nodes without ports, kept on the
    node itself so standalone users can still attach one.
    """

    def validate(self, task) -> None:
        pass

    def vif_list(self, task) -> list[dict[str, Any]]:
        return [{'id': vif} for vif in
                task.node.driver_internal_info.get('vifs', [])]

    def vif_attach(self, task, vif_info: dict[str, Any]) -> None:
        vifs = task.node.driver_internal_info.setdefault('vifs', [])
        if vif_info['id'] in vifs:
            raise exception.VifAlreadyAttached(
                vif=vif_info['id'], object_type='node',
                object_uuid=task.node.uuid)
        vifs.append(vif_info['id'])

    def vif_detach(self, task, vif_id: str) -> None:
        vifs = task.node.driver_internal_info.get('vifs', [])
        if vif_id not in vifs:
            raise exception.VifNotAttached(vif=vif_id, node=task.node.uuid)
        vifs.remove(vif_id)
