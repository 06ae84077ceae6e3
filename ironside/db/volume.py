"""Queries on volume connectors and targets: a node's storage endpoints.

Both belong to a node and are read with their node's UUID, owner and
lessee joined (for the API's access checks) like ports.
"""

from __future__ import annotations

from typing import Any

from ironside.common import exception
from ironside.db import models
from ironside.db import resources

NODE = resources.table(models.Node)


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
    joins=(_node_join(resources.table(models.VolumeConnector)),))

TARGETS = resources.Resource(
    model=models.VolumeTarget,
    not_found=lambda ident: exception.VolumeTargetNotFound(target=ident),
    duplicates={
        'boot_index': lambda v: exception.VolumeTargetBootIndexAlreadyExists(
            boot_index=v.get('boot_index')),
        'uuid': lambda v: exception.VolumeTargetAlreadyExists(
            uuid=v.get('uuid')),
    },
    joins=(_node_join(resources.table(models.VolumeTarget)),))

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


def of_node(kind: str, node_id: int, sort_key: str = 'id'
            ) -> list[dict[str, Any]]:
    """All connectors or targets of one node, as :func:`list_of` gives
    them (:meth:`resources.Resource.of_node`)."""
    return BY_KIND[kind].of_node(node_id, sort_key)
