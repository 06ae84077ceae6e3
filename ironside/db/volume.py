"""Queries on volume connectors and targets: a node's storage endpoints.

Both belong to a node and are read with their node's UUID, owner and
lessee joined (for the API's access checks) like ports.
"""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

NODE = models.Node.__table__


def _node_join(table: Any) -> resources.Join:
    return resources.Join(lambda: table.c.node_id == NODE.c.id,
                          (('node_uuid', NODE.c.uuid),
                           ('node_owner', NODE.c.owner),
                           ('node_lessee', NODE.c.lessee)))


CONNECTORS = resources.Resource(
    model=models.VolumeConnector,
    not_found=lambda ident: exception.VolumeConnectorNotFound(
        connector=ident),
    duplicates={
        'connector_id': lambda v: exception.
        VolumeConnectorTypeAndIdAlreadyExists(
            type=v.get('type'), connector_id=v.get('connector_id')),
        'uuid': lambda v: exception.VolumeConnectorAlreadyExists(
            uuid=v.get('uuid')),
    },
    joins=(_node_join(models.VolumeConnector.__table__),))

TARGETS = resources.Resource(
    model=models.VolumeTarget,
    not_found=lambda ident: exception.VolumeTargetNotFound(target=ident),
    duplicates={
        'boot_index': lambda v: exception.VolumeTargetBootIndexAlreadyExists(
            boot_index=v.get('boot_index')),
        'uuid': lambda v: exception.VolumeTargetAlreadyExists(
            uuid=v.get('uuid')),
    },
    joins=(_node_join(models.VolumeTarget.__table__),))

# By the name of the API's collection.
BY_KIND = {'connectors': CONNECTORS, 'targets': TARGETS}


def list_of(kind: str, filters: dict[str, Any], limit: int | None = None,
            marker: str | None = None, sort_key: str = 'id',
            sort_dir: str = 'asc') -> list[dict[str, Any]]:
    """A page of connectors or targets; filters: node_id, project."""
    resource = BY_KIND[kind]
    return resource.list(
        resources.node_child_clauses(resource.table, filters), limit,
        marker, sort_key, sort_dir)


@functools.cache
def _of_node_query(kind: str, sort_key: str) -> sa.Select:
    resource = BY_KIND[kind]
    query = resource.select().where(
        resource.table.c.node_id == sa.bindparam('node_id'))
    return db_session.paginate(query, resource.model, None, None, sort_key,
                               'asc')


def of_node(kind: str, node_id: int, sort_key: str = 'id'
            ) -> list[dict[str, Any]]:
    """All connectors or targets of one node, as :func:`list_of` gives
    them: what a deploy validates, with a statement built once."""
    with db_session.reader() as session:
        return [dict(row._mapping) for row in session.connection().execute(
            _of_node_query(kind, sort_key), {'node_id': node_id})]
