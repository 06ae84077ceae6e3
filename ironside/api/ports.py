"""/v1/ports (and a node's or port group's ports): network interfaces.

Ports are read from the database; creating, changing and deleting them
goes through the conductor of their node, which holds the node's lock
while it does.
"""

from __future__ import annotations

from typing import Any

import falcon

from ironside.api import base
from ironside.api import collection
from ironside.api import links
from ironside.api import node_owned
from ironside.api import nodes
from ironside.api import schemas
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.api.schemas import port as port_schemas
from ironside.common import exception
from ironside.db import portgroups as portgroups_db
from ironside.db import ports as ports_db

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


def _not_found(ident: str) -> exception.PortNotFound:
    return exception.PortNotFound(port=ident)


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
        readers = {'marker': wire.as_uuid, 'limit': wire.as_integer,
                   'sort_key': wire.as_string, 'sort_dir': wire.as_string,
                   'address': wire.as_mac,
                   'shard': wire.as_string_list,
                   'conductor_groups': wire.as_string_list,
                   'description_contains': wire.as_string}
        if self.parent is None:
            readers.update(node=wire.as_uuid_or_name, node_uuid=wire.as_uuid,
                           portgroup=wire.as_uuid_or_name)
        if not self.detail:
            readers.update(fields=wire.as_fields, detail=wire.as_boolean)
        query = wire.query(req, readers)
        if self.parent == 'node':
            _require_node_subresource(req, versions.MIN_MINOR)
        elif self.parent == 'portgroup':
            _require_node_subresource(req, versions.PORTGROUPS_SUBCONTROLLERS)
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
        sort_key = collection.sort_key(query['sort_key'], UNSORTABLE)
        VIEW.check_newer(version, [sort_key])
        VIEW.check_fields(version, query.get('fields'))
        fields = None if self.detail else collection.fields_or_default(
            version, query['fields'], query['detail'],
            VIEW.default_list_fields)
        filters = {'node_id': node_owned.node_id_filter(req, node),
                   'address': query['address'], 'shard': query['shard'],
                   'conductor_groups': query['conductor_groups'],
                   'description_contains': query['description_contains'],
                   'project': nodes.list_project(req, 'port')}
        if portgroup is not None:
            filters['portgroup_id'] = _portgroup_id(req, portgroup)
        page_size = collection.limit(query['limit'])
        rows = ports_db.list_ports(filters, page_size, query['marker'],
                                   sort_key,
                                   collection.sort_dir(query['sort_dir']))
        render = VIEW.renderer(req, fields)
        params = {k: v for k, v in query.items()
                  if k not in ('limit', 'marker')}
        base = 'ports'
        if self.parent == 'node':
            base = 'nodes/%s/ports' % node_ident
        elif self.parent == 'portgroup':
            base = 'portgroups/%s/ports' % portgroup_ident
        if self.detail:
            base += '/detail'
        wire.send(resp, collection.answer(
            req, 'ports', [render(row) for row in rows], page_size, base,
            params))


def _require_node_subresource(req, minor: int) -> None:
    if not req.context.version.allows(minor):
        raise falcon.HTTPNotFound()


def _portgroup_id(req, ident: str) -> int:
    row = portgroups_db.get(ident)
    node_owned.authorize(req, 'baremetal:portgroup:get', row,
                         exception.PortgroupNotFound(portgroup=ident))
    return row['id']


def _check_create_fields(version: versions.Version,
                         values: dict[str, Any]) -> None:
    VIEW.check_newer(version, [name for name, value in values.items()
                               if value is not None])
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
            wire.as_uuid_or_name('portgroup_uuid', ident))
    except exception.PortgroupNotFound as exc:
        exc.code = 400
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


class PortCollection(PortList):
    """GET and POST /v1/ports."""

    def __init__(self, rpcapi) -> None:
        super().__init__()
        self.rpcapi = rpcapi

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        version = req.context.version
        body = wire.read_json(req)
        schemas.validate('port', body, port_schemas.PORT)
        values = dict(body)
        _check_create_fields(version, values)
        _check_values(values)
        node = node_owned.node_for_body(
            req, values.pop('node_ident', None) or
            wire.as_uuid('node_uuid', values.pop('node_uuid', None)),
            'baremetal:port:create')
        values['node_id'] = node['id']
        _portgroup_of(node['id'], values)
        values = {k: v for k, v in values.items() if v is not None}
        uuid = self.rpcapi.create_port(req.context.ctx, node['uuid'],
                                       values)
        resp.location = links.url(req.context.public_url, 'ports', uuid)
        wire.send(resp, VIEW.renderer(req)(ports_db.get(uuid)), status=201)


class Port(base.Resource):
    """GET, PATCH and DELETE /v1/ports/{port_ident}."""

    def _get(self, req, ident: str, rule: str) -> dict[str, Any]:
        wire.as_uuid_or_name('port', ident)
        row = ports_db.get(ident)
        node_owned.authorize(req, rule, row, _not_found(ident))
        return row

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               port_ident: str) -> None:
        query = wire.query(req, {'fields': wire.as_fields})
        VIEW.check_fields(req.context.version, query['fields'])
        row = self._get(req, port_ident, 'baremetal:port:get')
        wire.send(resp, VIEW.renderer(req, query['fields'])(row))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 port_ident: str) -> None:
        wire.query(req, {})
        row = self._get(req, port_ident, 'baremetal:port:update')
        patch, values, expected = node_owned.patched(
            req, row, port_schemas.PORT['properties'],
            port_schemas.PORT_PATCH_ALLOWED,
            dict(port_schemas.PORT, oneOf=[{'required': ['node_uuid']}]),
            'port')
        VIEW.check_newer(req.context.version, values)
        _check_values(values)
        node_owned.node_uuid_to_id(values, req, 'baremetal:port:update')
        _portgroup_of(values.get('node_id', row['node_id']), values)
        node_owned.settle_removals(values, ('extra', 'local_link_connection'),
                                   ('pxe_enabled', 'is_smartnic'))
        uuid = self.rpcapi.update_port(req.context.ctx, row['uuid'], values,
                                       expected=expected)
        wire.send(resp, VIEW.renderer(req)(ports_db.get(uuid)))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  port_ident: str) -> None:
        wire.query(req, {})
        row = self._get(req, port_ident, 'baremetal:port:delete')
        self.rpcapi.destroy_port(req.context.ctx, row['uuid'])
        wire.no_content(resp)


def register(app: falcon.App, rpcapi) -> None:
    app.add_route('/v1/ports', PortCollection(rpcapi))
    app.add_route('/v1/ports/detail', PortList(detail=True))
    app.add_route('/v1/ports/{port_ident}', Port(rpcapi))
    app.add_route('/v1/nodes/{node_ident}/ports', PortList(parent='node'))
    app.add_route('/v1/nodes/{node_ident}/ports/detail',
                  PortList(detail=True, parent='node'))
    app.add_route('/v1/portgroups/{portgroup_ident}/ports',
                  PortList(parent='portgroup'))
    app.add_route('/v1/portgroups/{portgroup_ident}/ports/detail',
                  PortList(detail=True, parent='portgroup'))


