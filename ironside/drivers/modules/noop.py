"""Implementations for interfaces a hardware type does not support.

They validate fine and refuse every action with a clear error, so a node
always has an implementation of each interface type.
"""

from __future__ import annotations

from typing import Any
from typing import ClassVar
from typing import NoReturn

from ironside.common import exception
from ironside.common.vifs import EXTRA_KEY
from ironside.common.vifs import INTERNAL_KEY
from ironside.common.vifs import vif_of
from ironside.drivers import base
from ironside.drivers import step_defs


def _unsupported(task: base.Task, what: str) -> NoReturn:
    raise exception.UnsupportedDriverExtension(driver=task.node.driver,
                                               extension=what)


class _NoProperties:
    def get_properties(self) -> dict[str, str]:
        return {}


class _Refusing(_NoProperties):
    """validate() fails: the interface exists but does nothing."""

    # Set by the interface class it is mixed into.
    interface_type: ClassVar[str]

    def validate(self, task: base.Task) -> None:
        _unsupported(task, self.interface_type)


class NoBIOS(_Refusing, base.BIOSInterface):
    pass


class NoConsole(_Refusing, base.ConsoleInterface):
    def start_console(self, task: base.Task) -> None:
        _unsupported(task, 'console')

    def stop_console(self, task: base.Task) -> None:
        _unsupported(task, 'console')

    def get_console(self, task: base.Task) -> dict[str, Any]:
        _unsupported(task, 'console')


class NoFirmware(_Refusing, base.FirmwareInterface):
    pass


class NoInspect(_Refusing, base.InspectInterface):
    def inspect_hardware(self, task: base.Task) -> base.Inspected:
        _unsupported(task, 'inspect')


class NoRAID(_Refusing, base.RAIDInterface):
    pass


class NoRescue(_Refusing, base.RescueInterface):
    def rescue(self, task: base.Task) -> step_defs.Wait | None:
        _unsupported(task, 'rescue')

    def unrescue(self, task: base.Task) -> None:
        _unsupported(task, 'rescue')


class NoVendor(_NoProperties, base.VendorInterface):
    """No vendor methods: none to list, none to call."""

    def validate(self, task: base.Task, method: str | None = None,
                 **kwargs: Any) -> None:
        _unsupported(task, self.interface_type)


class NoopStorage(_NoProperties, base.StorageInterface):
    """Local disks only: nothing to attach.

    Volume connectors and targets may be recorded (Nova records a target
    before a boot-from-volume deploy), but this interface attaches none,
    so a node whose boot volume (``boot_index`` 0) is a volume target
    fails validation and says why, instead of deploying to its disk.
    """

    def validate(self, task: base.Task) -> None:
        boot = [t for t in task.volume_targets if t['boot_index'] == 0]
        if boot:
            raise exception.InvalidParameterValue(
                err='Booting from a volume is not supported: the storage '
                    'interface "noop" attaches no volumes, and volume '
                    'target %s of node %s is its boot volume '
                    '(boot_index 0)' % (boot[0]['uuid'], task.node.uuid))


class NoopNetwork(_NoProperties, base.NetworkInterface):
    """No network switching; VIFs are recorded on the node's ports.

    As Ironic does: a VIF goes onto the port or port group the caller
    names, else onto a free port group (one with ports), else a free port
    outside any group, PXE-enabled ports first; it is recorded in the
    port's ``internal_info['tenant_vif_port_id']``. A node with ports but
    none free refuses the VIF (400). A node without any port keeps its
    VIFs on the node itself, so standalone users can still attach one.
    """

    def validate(self, task: base.Task) -> None:
        pass

    def vif_list(self, task: base.Task) -> list[dict[str, Any]]:
        ports, groups = task.ports, task.portgroups
        vifs = [vif_of(p) for p in ports + groups]
        vifs += task.node.driver_internal_info.get('vifs', [])
        return [{'id': vif} for vif in vifs if vif]

    def vif_attach(self, task: base.Task, vif_info: dict[str, Any]) -> None:
        vif_id = vif_info['id']
        ports, groups = task.ports, task.portgroups
        for kind, items in (('port', ports), ('portgroup', groups)):
            for item in items:
                if vif_of(item) == vif_id:
                    raise exception.VifAlreadyAttached(
                        vif=vif_id, object_type=kind,
                        object_uuid=item['uuid'])
        vifs = task.node.driver_internal_info.setdefault('vifs', [])
        if vif_id in vifs:
            raise exception.VifAlreadyAttached(
                vif=vif_id, object_type='node', object_uuid=task.node.uuid)
        if not ports and not groups:
            vifs.append(vif_id)
            return
        kind, target = _free_port_like(vif_info, ports, groups)
        info = dict(target['internal_info'] or {})
        info[INTERNAL_KEY] = vif_id
        task.update_port(kind, target['id'], {'internal_info': info})

    def vif_detach(self, task: base.Task, vif_id: str) -> None:
        for kind, items in (('port', task.ports),
                            ('portgroup', task.portgroups)):
            for item in items:
                if vif_of(item) != vif_id:
                    continue
                info = dict(item['internal_info'] or {})
                extra = dict(item['extra'] or {})
                info.pop(INTERNAL_KEY, None)
                extra.pop(EXTRA_KEY, None)
                task.update_port(kind, item['id'], {'internal_info': info,
                                                    'extra': extra})
                return
        vifs = task.node.driver_internal_info.get('vifs', [])
        if vif_id not in vifs:
            raise exception.VifNotAttached(vif=vif_id, node=task.node.uuid)
        vifs.remove(vif_id)


def _free_port_like(vif_info: dict[str, Any], ports: list[dict[str, Any]],
                    groups: list[dict[str, Any]]
                    ) -> tuple[str, dict[str, Any]]:
    """('port' or 'portgroup', the row) to take the VIF; else 400."""
    vif_id = vif_info['id']
    for kind, items in (('port', ports), ('portgroup', groups)):
        wanted = vif_info.get('%s_uuid' % kind)
        if wanted is None:
            continue
        for item in items:
            if wanted in (item['uuid'], item.get('name')):
                if vif_of(item):
                    raise exception.NoFreePhysicalPorts(vif=vif_id)
                return kind, item
        raise exception.NoFreePhysicalPorts(vif=vif_id)
    grouped = {p['portgroup_id'] for p in ports if p['portgroup_id']}
    candidates = [(1, False, 'portgroup', g) for g in groups
                  if g['id'] in grouped and not vif_of(g)]
    candidates += [(0, bool(p['pxe_enabled']), 'port', p) for p in ports
                   if p['portgroup_id'] is None and not vif_of(p)]
    if not candidates:
        raise exception.NoFreePhysicalPorts(vif=vif_id)
    # Port groups first, then PXE-enabled ports; the oldest among equals.
    best = max(candidates, key=lambda c: (c[0], c[1], -c[3]['id']))
    return best[2], best[3]
