"""Volume connectors and targets: changed with their node's lock held.

As in Ironic, a node's storage endpoints may be changed only while it is
powered off (the storage interface reads them when it powers on or
deploys); deleting them is also allowed in the states a node itself may
be deleted in. One moved to another node is changed under that node's
lock, and that node must be powered off.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.db import volume as volume_db

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager


def _check_powered_off(task: TaskManager, action: str,
                       allowed_states: Collection[str]=()) -> None:
    node = task.node
    if node.provision_state in allowed_states:
        return
    if node.power_state != states.POWER_OFF:
        raise exception.InvalidStateRequested(
            action=action, node=node.uuid, state=node.power_state)


def _mine(task: TaskManager, kind: str, uuid: str,
          values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The row of ``uuid``, if it is (or ``values`` move it) on the
    task's node."""
    resource = volume_db.BY_KIND[kind]
    row = resource.get(uuid)
    if (values or {}).get('node_id', row['node_id']) != task.node.id:
        raise resource.not_found(uuid)
    return row


def create(task: TaskManager, kind: str, values: dict[str, Any]) -> str:
    values = dict(values, node_id=task.node.id)
    uuid: str = volume_db.BY_KIND[kind].create(values)['uuid']
    return uuid


def update(task: TaskManager, kind: str, uuid: str, values: dict[str, Any],
           expected: dict[str, Any] | None = None) -> str:
    row = _mine(task, kind, uuid, values)
    _check_powered_off(task, 'volume %s update' % kind[:-1])
    updated: str = volume_db.BY_KIND[kind].update(row['id'], values,
                                                  expected)['uuid']
    return updated


def destroy(task: TaskManager, kind: str, uuid: str) -> None:
    row = _mine(task, kind, uuid)
    _check_powered_off(task, 'volume %s deletion' % kind[:-1],
                       states.DELETE_ALLOWED_STATES)
    volume_db.BY_KIND[kind].destroy(row['id'])
