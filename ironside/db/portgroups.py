"""Queries on port groups: bonds of a node's ports."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

NODE = models.Node.__table__
PORTGROUP = models.Portgroup.__table__

PORTGROUPS = resources.Resource(
    model=models.Portgroup,
    not_found=lambda ident: exception.PortgroupNotFound(portgroup=ident),
    duplicates={
        'address': lambda v: exception.PortgroupMACAlreadyExists(
            mac=v.get('address')),
        'name': lambda v: exception.PortgroupDuplicateName(
            name=v.get('name')),
        'uuid': lambda v: exception.PortgroupAlreadyExists(
            uuid=v.get('uuid')),
    },
    joins=(
        resources.Join(lambda: PORTGROUP.c.node_id == NODE.c.id,
                       (('node_uuid', NODE.c.uuid),
                        ('node_owner', NODE.c.owner),
                        ('node_lessee', NODE.c.lessee))),
    ))

create = PORTGROUPS.create
get = PORTGROUPS.get
update = PORTGROUPS.update
id_for = PORTGROUPS.id_for


def destroy(ident: str) -> None:
    """Delete a port group with no ports (PortgroupNotEmpty otherwise)."""
    portgroup_id = PORTGROUPS.id_for(ident)
    with db_session.writer() as session:
        if session.scalar(sa.select(models.Port.id).where(
                models.Port.portgroup_id == portgroup_id).limit(1)):
            raise exception.PortgroupNotEmpty(portgroup=ident)
        session.execute(sa.delete(models.Portgroup).where(
            models.Portgroup.id == portgroup_id))


def list_portgroups(filters: dict[str, Any], limit: int | None = None,
                    marker: str | None = None, sort_key: str = 'id',
                    sort_dir: str = 'asc') -> list[dict[str, Any]]:
    """node_id, address, shard (list), conductor_groups, project."""
    clauses = []
    if filters.get('node_id') is not None:
        clauses.append(PORTGROUP.c.node_id == filters['node_id'])
    if filters.get('address') is not None:
        clauses.append(PORTGROUP.c.address == filters['address'])
    if filters.get('shard'):
        clauses.append(NODE.c.shard.in_(filters['shard']))
    if filters.get('conductor_groups'):
        clauses.append(NODE.c.conductor_group.in_(
            filters['conductor_groups']))
    if filters.get('project'):
        clauses.append((NODE.c.owner == filters['project']) |
                       (NODE.c.lessee == filters['project']))
    return PORTGROUPS.list(clauses, limit, marker, sort_key, sort_dir)
