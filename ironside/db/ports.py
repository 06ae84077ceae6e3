"""Queries on ports: a node's network interfaces, by MAC address."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ironside.common import exception
from ironside.common import vifs
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

NODE = resources.table(models.Node)
PORTGROUP = resources.table(models.Portgroup)
PORT = resources.table(models.Port)

PORTS = resources.Resource(
    model=models.Port,
    not_found=lambda ident: exception.PortNotFound(port=ident),
    duplicates={
        'address': lambda v: exception.MACAlreadyExists(
            mac=v.get('address')),
        'name': lambda v: exception.PortDuplicateName(name=v.get('name')),
        'uuid': lambda v: exception.PortAlreadyExists(uuid=v.get('uuid')),
    },
    joins=(
        resources.Join(lambda: PORT.c.node_id == NODE.c.id,
                       (('node_uuid', NODE.c.uuid),
                        ('node_owner', NODE.c.owner),
                        ('node_lessee', NODE.c.lessee))),
        resources.Join(lambda: PORT.c.portgroup_id == PORTGROUP.c.id,
                       (('portgroup_uuid', PORTGROUP.c.uuid),)),
    ))

create = PORTS.create
get = PORTS.get
update = PORTS.update
# Re-exported: the queries and the conductor read VIFs with it.
vif_of = vifs.vif_of
destroy = PORTS.destroy
id_for = PORTS.id_for


def filter_clauses(filters: dict[str, Any]) -> list[sa.ColumnElement[bool]]:
    """Those of resources.node_child_clauses, portgroup_id and
    description_contains."""
    clauses = resources.node_child_clauses(PORT, filters)
    if filters.get('portgroup_id') is not None:
        clauses.append(PORT.c.portgroup_id == filters['portgroup_id'])
    if filters.get('description_contains'):
        clauses.append(PORT.c.description.contains(
            filters['description_contains']))
    return clauses


def list_ports(filters: dict[str, Any], limit: int | None = None,
               marker: str | None = None, sort_key: str = 'id',
               sort_dir: str = 'asc') -> list[dict[str, Any]]:
    return PORTS.list(filter_clauses(filters), limit, marker, sort_key,
                      sort_dir)



def nodes_with_addresses(addresses: list[str]) -> list[str]:
    """UUIDs of the nodes that have a port with one of ``addresses``
    (MACs, lower case), each once."""
    if not addresses:
        return []
    query = sa.select(NODE.c.uuid).distinct().select_from(
        PORT.join(NODE, PORT.c.node_id == NODE.c.id)).where(
        PORT.c.address.in_(addresses))
    with db_session.reader() as session:
        return [row[0] for row in session.execute(query)]
