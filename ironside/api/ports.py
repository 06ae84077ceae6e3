"""/v1/ports (and a node's or port group's ports): network interfaces.

Ports are read from the database; creating, changing and deleting them
goes through the conductor of their node, which holds the node's lock
while it does.
"""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import node_owned
from ironside.api import owned_resources
from ironside.api import patch as json_patch
from ironside.api import schemas
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.api.schemas import port as port_schemas
from ironside.common import exception
from ironside.db import portgroups as portgroups_db
from ironside.db import ports as ports_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

VIEW = views.ResourceView(
    resource='ports',
    fields=(
        ('uuid', 1), ('address', 1), ('node_uuid', 1), ('extra', 1),
        ('created_at', 1), ('updated_at', 1),
        ('internal_info', versions.PORT_INTERNAL_INFO),
        ('pxe_enabled', versions.PORT_ADVANCED_NET_FIELDS),
        ('local_link_connection', versions.PORT_ADVANCED_NET_FIELDS),
        ('portgroup_uuid', versions.PORTGROUPS_SUBCONTROLLERS),
        ('physical_network', versions.PORT_PHYSICAL_NETWORK),
        ('is_smartnic', versions.PORT_SMARTNIC),
        ('name', versions.PORT_NAME),
        ('description', versions.PORT_DESCRIPTION),
        ('vendor', versions.PORT_VENDOR),
        ('category', versions.PORT_CATEGORY),
    ),
    default_list_fields=('uuid', 'address'))

UNSORTABLE = ('extra', 'internal_info', 'local_link_connection')


class PortList:
    """GET /v1/ports[/detail], and the same under a node or port group."""

    def __init__(self, detail: bool = False, parent: str | None = None
                 ) -> None:
        self.detail = detail
        self.parent = parent        # None, 'node' or 'portgroup'

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None,
               portgroup_ident: str | None = None) -> None:
        version = req.context.version
        readers: dict[str, wire.Reader] = {
            'address': wire.as_mac, 'shard': wire.as_string_list,
            'conductor_groups': wire.as_string_list,
            'description_contains': wire.as_string}
        if self.parent is None:
            readers.update(node=wire.as_uuid_or_name,
                           node_uuid=wire.as_uuid,
                           portgroup=wire.as_uuid_or_name)
        query = wire.query(req, owned_resources.list_readers(self.detail,
                                                             **readers))
        if self.parent == 'portgroup':
            owned_resources.require(req, versions.PORTGROUPS_SUBCONTROLLERS)
        node = node_ident or query.get('node_uuid') or query.get('node')
        portgroup = portgroup_ident or query.get('portgroup')
        if portgroup is not None:
            versions.require(version, versions.PORTGROUPS_SUBCONTROLLERS,
                             'the portgroup filter')
        for name, minor in (('shard', versions.NODE_SHARD),
                            ('conductor_groups',
                             versions.PORT_CONDUCTOR_GROUPS_FILTER),
                            ('description_contains',
                             versions.PORT_DESCRIPTION)):
            if query[name] is not None:
                versions.require(version, minor, 'the %s filter' % name)
        if sum(1 for f in (node, portgroup, query['shard']) if f) > 1:
            raise exception.Invalid(
                'Ports can be filtered by only one of node, portgroup and '
                'shard at a time')
        if query['conductor_groups'] and (node or portgroup or
                                          query['address']):
            raise exception.Invalid(
                'Filtering by conductor_groups cannot be combined with '
                'node_ident, portgroup_ident, or node address filters.')
        filters = {'node_id': node_owned.node_id_filter(req, node),
                   'address': query['address'], 'shard': query['shard'],
                   'conductor_groups': query['conductor_groups'],
                   'description_contains': query['description_contains']}
        if portgroup is not None:
            filters['portgroup_id'] = _portgroup_id(req, portgroup)
        path = 'ports'
        if self.parent == 'node':
            path = 'nodes/%s/ports' % node_ident
        elif self.parent == 'portgroup':
            path = 'portgroups/%s/ports' % portgroup_ident
        owned_resources.send_page(req, resp, KIND, query, filters, path,
                                  self.detail)


def _portgroup_id(req: falcon.Request, ident: str) -> int:
    row = portgroups_db.get(ident)
    node_owned.authorize(req, 'baremetal:portgroup:get', row,
                         exception.PortgroupNotFound(portgroup=ident))
    return row['id']


def _prepare_create(version: versions.Version,
                    values: dict[str, Any]) -> None:
    if 'node_ident' in values:
        versions.require(version, versions.PORT_NODE_IDENT, 'node_ident')


def _check_values(values: dict[str, Any]) -> None:
    """Checks of a port as created or patched; normalises in place."""
    node_owned.booleans(values, ('pxe_enabled', 'is_smartnic'))
    if 'address' in values:
        values['address'] = wire.normalize_mac(values['address'])
    if values.get('uuid') is not None:
        wire.as_uuid('uuid', values['uuid'])
    if values.get('local_link_connection'):
        schemas.validate('local_link_connection',
                         values['local_link_connection'],
                         port_schemas.LOCAL_LINK_CONNECTION)
    if values.get('is_smartnic'):
        try:
            schemas.validate('local_link_connection',
                             values.get('local_link_connection') or {},
                             port_schemas.LOCAL_LINK_SMART_NIC)
        except exception.InvalidParameterValue:
            raise exception.Invalid(
                'Smart NIC port must have port_id and hostname in '
                'local_link_connection') from None
    if 'physical_network' in values and \
            values['physical_network'] is not None and \
            not values['physical_network']:
        raise exception.Invalid('A non-empty value is required when '
                                'setting physical_network')
    if values.get('name') is not None and not wire.is_logical_name(
            values['name']):
        raise exception.Invalid("Cannot use invalid name '%s' for a port"
                                % values['name'])


def _portgroup_of(node_id: int, values: dict[str, Any]) -> None:
    """portgroup_uuid -> portgroup_id (400 if missing or on another node)."""
    if 'portgroup_uuid' not in values:
        return
    ident = values.pop('portgroup_uuid')
    if ident is None:
        values['portgroup_id'] = None
        return
    # Ironic takes a port group name here too, despite the field's name.
    try:
        portgroup = portgroups_db.get(
            wire.uuid_or_name('portgroup_uuid', ident))
    except exception.PortgroupNotFound as exc:
        exc.code = HTTPStatus.BAD_REQUEST
        raise
    if portgroup['node_id'] != node_id:
        raise exception.Invalid('Port can not be added to a portgroup '
                                'belonging to a different node.')
    if values.get('pxe_enabled') and \
            not portgroup['standalone_ports_supported']:
        raise exception.Conflict(
            "Port group %s doesn't support standalone ports. This port "
            "cannot be created as a member of that portgroup as the port's "
            "'pxe_enabled' field was set to True." % portgroup['uuid'])
    values['portgroup_id'] = portgroup['id']


def _check_patch(version: versions.Version, patch: Sequence[dict],
                 row: dict[str, Any], values: dict[str, Any]) -> None:
    """From 1.102 a port group has a physical network, changed on the
    group: a port in a group does not change its own (400, as Ironic)."""
    if version.allows(versions.PORTGROUP_PHYSICAL_NETWORK) and \
            json_patch.touches(patch, '/physical_network') and \
            values.get('portgroup_id', row['portgroup_id']) is not None:
        raise exception.Invalid('physical_network cannot be changed while '
                                'the port belongs to a portgroup.')


KIND = owned_resources.Kind(
    name='port', plural='ports', minor=versions.MIN_MINOR, view=VIEW,
    unsortable=UNSORTABLE, schema=port_schemas.PORT,
    patch_schema=dict(port_schemas.PORT,
                      oneOf=[{'required': ['node_uuid']}]),
    patch_allowed=port_schemas.PORT_PATCH_ALLOWED,
    documents=('extra', 'local_link_connection'),
    flags=('pxe_enabled', 'is_smartnic'), path_field='port_ident',
    get=ports_db.get, list=ports_db.list_ports,
    not_found=lambda ident: exception.PortNotFound(port=ident),
    check_values=_check_values, prepare_create=_prepare_create,
    resolve_links=_portgroup_of, check_patch=_check_patch)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/ports',
                  owned_resources.Collection(KIND, rpcapi, PortList()))
    app.add_route('/v1/ports/detail', PortList(detail=True))
    app.add_route('/v1/ports/{port_ident}', owned_resources.Item(KIND, rpcapi))
    app.add_route('/v1/nodes/{node_ident}/ports', PortList(parent='node'))
    app.add_route('/v1/nodes/{node_ident}/ports/detail',
                  PortList(detail=True, parent='node'))
    app.add_route('/v1/portgroups/{portgroup_ident}/ports',
                  PortList(parent='portgroup'))
    app.add_route('/v1/portgroups/{portgroup_ident}/ports/detail',
                  PortList(detail=True, parent='portgroup'))
