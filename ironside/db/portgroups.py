"""Queries on port groups: bonds of a node's ports."""

from __future__ import annotations

from typing import Any

from ironside.common import exception
from ironside.db import models
from ironside.db import resources

NODE = resources.table(models.Node)
PORTGROUP = resources.table(models.Portgroup)

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
    PORTGROUPS.destroy_unused(
        ident, resources.table(models.Port).c.portgroup_id,
        exception.PortgroupNotEmpty(portgroup=ident))


def list_portgroups(filters: dict[str, Any], limit: int | None = None,
                    marker: str | None = None, sort_key: str = 'id',
                    sort_dir: str = 'asc') -> list[dict[str, Any]]:
    """Filtered as resources.node_child_clauses says."""
    return PORTGROUPS.list(resources.node_child_clauses(PORTGROUP, filters),
                           limit, marker, sort_key, sort_dir)
