"""/v1/portgroups (1.23): bonds of a node's ports."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon
from oslo_utils import uuidutils

from ironside.api import node_owned
from ironside.api import owned_resources
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.api.schemas import port as port_schemas
from ironside.common import exception
from ironside.db import portgroups as portgroups_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

DEFAULT_MODE = 'active-backup'

VIEW = views.ResourceView(
    resource='portgroups',
    fields=(
        ('uuid', 1), ('name', 1), ('address', 1), ('node_uuid', 1),
        ('extra', 1), ('internal_info', 1),
        ('standalone_ports_supported', 1), ('created_at', 1),
        ('updated_at', 1),
        ('mode', versions.PORTGROUP_MODE_PROPERTIES),
        ('properties', versions.PORTGROUP_MODE_PROPERTIES),
        ('physical_network', versions.PORTGROUP_PHYSICAL_NETWORK),
        ('category', versions.PORTGROUP_CATEGORY),
    ),
    default_list_fields=('uuid', 'address', 'name'),
    sub_links=(('ports', versions.PORTGROUPS_SUBCONTROLLERS),))

UNSORTABLE = ('extra', 'internal_info', 'properties')


def _check_values(values: dict[str, Any]) -> None:
    node_owned.booleans(values, ('standalone_ports_supported',))
    if values.get('address') is not None:
        values['address'] = wire.normalize_mac(values['address'])
    if values.get('uuid') is not None:
        wire.as_uuid('uuid', values['uuid'])
    name = values.get('name')
    if name is not None and (not wire.is_logical_name(name) or
                             uuidutils.is_uuid_like(name)):
        raise exception.Invalid("Cannot use invalid name '%s' for a "
                                "portgroup" % name)


def _prepare_create(version: versions.Version,
                    values: dict[str, Any]) -> None:
    values.setdefault('mode', DEFAULT_MODE)


KIND = owned_resources.Kind(
    name='portgroup', plural='portgroups', minor=versions.PORTGROUPS,
    view=VIEW, unsortable=UNSORTABLE, schema=port_schemas.PORTGROUP,
    patch_schema=port_schemas.PORTGROUP,
    patch_allowed=port_schemas.PORTGROUP_PATCH_ALLOWED,
    documents=('extra', 'properties'),
    flags=('standalone_ports_supported',), path_field='portgroup_ident',
    get=portgroups_db.get, list=portgroups_db.list_portgroups,
    not_found=lambda ident: exception.PortgroupNotFound(portgroup=ident),
    check_values=_check_values, prepare_create=_prepare_create)


class PortgroupList:
    """GET /v1/portgroups[/detail] and /v1/nodes/{node}/portgroups."""

    def __init__(self, detail: bool = False, under_node: bool = False
                 ) -> None:
        self.detail = detail
        self.under_node = under_node

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None) -> None:
        owned_resources.require(req, versions.PORTGROUPS)
        version = req.context.version
        if self.under_node:
            owned_resources.require(req, versions.PORTGROUPS_SUBCONTROLLERS)
        filters = {'address': wire.as_mac, 'shard': wire.as_string_list,
                   'conductor_groups': wire.as_string_list}
        if not self.under_node:
            filters['node'] = wire.as_uuid_or_name
        query = wire.query(req, owned_resources.list_readers(self.detail,
                                                             **filters))
        if query['shard'] is not None:
            versions.require(version, versions.PORTGROUP_SHARD,
                             'the shard filter')
        if query['conductor_groups'] is not None:
            versions.require(version, versions.PORT_CONDUCTOR_GROUPS_FILTER,
                             'the conductor_groups filter')
        node = node_ident or query.get('node')
        path = 'nodes/%s/portgroups' % node_ident if self.under_node \
            else 'portgroups'
        owned_resources.send_page(req, resp, KIND, query, {
            'node_id': node_owned.node_id_filter(req, node),
            'address': query['address'], 'shard': query['shard'],
            'conductor_groups': query['conductor_groups']}, path,
            self.detail)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/portgroups',
                  owned_resources.Collection(KIND, rpcapi, PortgroupList()))
    app.add_route('/v1/portgroups/detail', PortgroupList(detail=True))
    app.add_route('/v1/portgroups/{portgroup_ident}',
                  owned_resources.Item(KIND, rpcapi))
    app.add_route('/v1/nodes/{node_ident}/portgroups',
                  PortgroupList(under_node=True))
    app.add_route('/v1/nodes/{node_ident}/portgroups/detail',
                  PortgroupList(detail=True, under_node=True))
