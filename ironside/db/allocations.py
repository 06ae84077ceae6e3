"""Queries on allocations: requests for a node matching some criteria.

An allocation that found its node points at it (``node_id``) and the
node points back (``allocation_id``), with ``instance_uuid`` set to the
allocation's UUID, as Ironic does; both change in one transaction.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import resources
from ironside.db import session as db_session

NODE = resources.table(models.Node)
ALLOCATION = resources.table(models.Allocation)

ALLOCATING = 'allocating'
ACTIVE = 'active'
ERROR = 'error'

ALLOCATIONS = resources.Resource(
    model=models.Allocation,
    not_found=lambda ident: exception.AllocationNotFound(allocation=ident),
    duplicates={
        'name': lambda v: exception.AllocationDuplicateName(
            name=v.get('name')),
        'uuid': lambda v: exception.AllocationAlreadyExists(
            uuid=v.get('uuid')),
    },
    joins=(resources.Join(lambda: ALLOCATION.c.node_id == NODE.c.id,
                          (('node_uuid', NODE.c.uuid),)),))

create = ALLOCATIONS.create
get = ALLOCATIONS.get
update = ALLOCATIONS.update
id_for = ALLOCATIONS.id_for


def list_allocations(filters: dict[str, Any], limit: int | None = None,
                     marker: str | None = None, sort_key: str = 'id',
                     sort_dir: str = 'asc') -> list[dict[str, Any]]:
    """node_id, resource_class, state, owner."""
    clauses = [ALLOCATION.c[name] == filters[name]
               for name in ('node_id', 'resource_class', 'state', 'owner')
               if filters.get(name) is not None]
    return ALLOCATIONS.list(clauses, limit, marker, sort_key, sort_dir)


def owner_of(allocation_id: int) -> str | None:
    with db_session.reader() as session:
        return session.scalar(sa.select(ALLOCATION.c.owner).where(
            ALLOCATION.c.id == allocation_id))


def attach_node(allocation_id: int, node: models.Node) -> None:
    """The allocation got its node: link both ways, in one transaction.

    ``node`` is the node as its lock's holder read it; its links (and
    ``instance_info['traits']``) are set on it and saved with it. As
    every node write, through :func:`ironside.db.nodes.save_node`.
    NodeAssociated if the node has another instance;
    InstanceAssociated if another node already uses the allocation UUID
    as instance_uuid.
    """
    with db_session.writer_connection() as connection:
        allocation = connection.execute(
            sa.select(ALLOCATION.c.uuid, ALLOCATION.c.traits)
            .where(ALLOCATION.c.id == allocation_id)
            .with_for_update()).first()
        if allocation is None:
            raise exception.AllocationNotFound(allocation=allocation_id)
        if node.instance_uuid and node.instance_uuid != allocation.uuid:
            raise exception.NodeAssociated(node=node.uuid,
                                           instance=node.instance_uuid)
        connection.execute(
            sa.update(ALLOCATION).where(ALLOCATION.c.id == allocation_id)
            .values(node_id=node.id, state=ACTIVE, last_error=None,
                    updated_at=models.utcnow()))
        node.allocation_id = allocation_id
        node.instance_uuid = allocation.uuid
        node.instance_info = dict(node.instance_info or {},
                                  traits=list(allocation.traits or []))
        nodes_db.save_node(node)


def fail(allocation_id: int, error: str) -> None:
    update(allocation_id, {'state': ERROR, 'last_error': error,
                           'node_id': None})


def destroy(ident: str | int) -> None:
    """Delete an allocation and unlink its node (instance_uuid too)."""
    with db_session.writer_connection() as connection:
        allocation_id = connection.execute(
            sa.select(ALLOCATION.c.id).where(
                ALLOCATIONS.ident_clause(ident)).with_for_update()).scalar()
        if allocation_id is None:
            raise exception.AllocationNotFound(allocation=ident)
        nodes_db.unlink_allocation(allocation_id)
        connection.execute(sa.delete(ALLOCATION).where(
            ALLOCATION.c.id == allocation_id))
