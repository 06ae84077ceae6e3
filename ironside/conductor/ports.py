"""Ports and port groups: changed with their node's lock held.

A port that carries a tenant VIF on an active node is in use: its
address cannot change and it cannot be deleted until the node is in
maintenance or no longer active, as in Ironic.
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


def create_port(task: TaskManager, values: dict[str, Any]) -> str:
    values = dict(values, node_id=task.node.id)
    return ports_db.create(values)['uuid']


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
    return ports_db.update(port['id'], values, expected)['uuid']


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
    return portgroups_db.create(values)['uuid']


def update_portgroup(task: TaskManager, portgroup_uuid: str,
                     values: dict[str, Any],
                     expected: dict[str, Any] | None = None) -> str:
    portgroup = portgroups_db.get(portgroup_uuid)
    if 'node_id' in values and values['node_id'] != portgroup['node_id'] \
            and ports_db.list_ports({'portgroup_id': portgroup['id']},
                                    limit=1):
        raise exception.PortgroupNotEmpty(portgroup=portgroup_uuid)
    return portgroups_db.update(portgroup['id'], values, expected)['uuid']


def destroy_portgroup(task: TaskManager, portgroup_uuid: str) -> None:
    portgroups_db.destroy(portgroup_uuid)
