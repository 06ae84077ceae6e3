"""Ports and port groups: changed with their node's lock held.

A port that carries a tenant VIF on an active node is in use: its
address cannot change and it cannot be deleted until the node is in
maintenance or no longer active, as in Ironic. The ports of a port group
share one physical network (the network mapping of VIFs relies on it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.db import portgroups as portgroups_db
from ironside.db import ports as ports_db

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager


def _in_use(task: TaskManager, port: dict[str, Any]) -> bool:
    node = task.node
    return bool(ports_db.vif_of(port)) and \
        node.provision_state == states.ACTIVE and not node.maintenance


def _check_physical_network(port: dict[str, Any], changes: dict[str, Any]
                            ) -> None:
    """409 unless the port, as ``changes`` leave it, is on the physical
    network of the other ports of its port group (or, with none, of the
    group itself), as Ironic's validate_port_physnet."""
    portgroup_id = changes.get('portgroup_id', port.get('portgroup_id'))
    if not portgroup_id or not (
            {'portgroup_id', 'physical_network'} & set(changes)):
        return
    members = {member['physical_network'] for member in
               ports_db.list_ports({'portgroup_id': portgroup_id})
               if member['id'] != port.get('id')}
    portgroup = portgroups_db.get(portgroup_id)
    if not members:
        if portgroup['physical_network'] is None:
            return
        members = {portgroup['physical_network']}
    group_physnet = sorted(members, key=str)[0]
    physnet = changes.get('physical_network', port.get('physical_network'))
    if physnet != group_physnet:
        raise exception.Conflict(
            'Port with physical network %s cannot become a member of port '
            'group %s which has ports in physical network %s.'
            % (physnet, portgroup['uuid'], group_physnet))


def create_port(task: TaskManager, values: dict[str, Any]) -> str:
    values = dict(values, node_id=task.node.id)
    _check_physical_network({}, values)
    uuid: str = ports_db.create(values)['uuid']
    return uuid


def update_port(task: TaskManager, port_uuid: str, values: dict[str, Any],
                expected: dict[str, Any] | None = None) -> str:
    port = ports_db.get(port_uuid)
    if port['node_id'] != task.node.id:
        raise exception.PortNotFound(port=port_uuid)
    if 'address' in values and values['address'] != port['address'] and \
            _in_use(task, port):
        raise exception.InvalidState(
            'The address of port %s can not change while VIF %s is '
            'attached to it on active node %s' % (
                port_uuid, ports_db.vif_of(port), task.node.uuid))
    if 'node_id' in values and values['node_id'] != port['node_id'] and \
            ports_db.vif_of(port):
        raise exception.InvalidState(
            'Port %s can not move to another node while VIF %s is '
            'attached to it' % (port_uuid, ports_db.vif_of(port)))
    _check_physical_network(port, {
        name: value for name, value in values.items()
        if name in ('portgroup_id', 'physical_network')
        and value != port[name]})
    uuid: str = ports_db.update(port['id'], values, expected)['uuid']
    return uuid


def destroy_port(task: TaskManager, port_uuid: str) -> None:
    port = ports_db.get(port_uuid)
    if _in_use(task, port):
        raise exception.InvalidState(
            'Cannot delete port %s as node %s is active and VIF %s is '
            'attached to it' % (port_uuid, task.node.uuid,
                                ports_db.vif_of(port)))
    ports_db.destroy(port['id'])


def create_portgroup(task: TaskManager, values: dict[str, Any]) -> str:
    values = dict(values, node_id=task.node.id)
    uuid: str = portgroups_db.create(values)['uuid']
    return uuid


def update_portgroup(task: TaskManager, portgroup_uuid: str,
                     values: dict[str, Any],
                     expected: dict[str, Any] | None = None) -> str:
    portgroup = portgroups_db.get(portgroup_uuid)
    if 'node_id' in values and values['node_id'] != portgroup['node_id'] \
            and ports_db.list_ports({'portgroup_id': portgroup['id']},
                                    limit=1):
        raise exception.PortgroupNotEmpty(portgroup=portgroup_uuid)
    uuid: str = portgroups_db.update(portgroup['id'], values, expected)['uuid']
    if 'physical_network' in values:
        # As Ironic: the group's ports follow its physical network.
        for port in ports_db.list_ports({'portgroup_id': portgroup['id']}):
            if port['physical_network'] != values['physical_network']:
                ports_db.update(port['id'], {
                    'physical_network': values['physical_network']})
    return uuid


def destroy_portgroup(task: TaskManager, portgroup_uuid: str) -> None:
    portgroups_db.destroy(portgroup_uuid)
