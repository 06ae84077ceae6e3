"""/v1/portgroups (1.23): bonds of a node's ports."""

from __future__ import annotations

from typing import Any

import falcon
from oslo_utils import uuidutils

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


def _require(req) -> None:
    if not req.context.version.allows(versions.PORTGROUPS):
        raise falcon.HTTPNotFound()


def _not_found(ident: str) -> exception.PortgroupNotFound:
    return exception.PortgroupNotFound(portgroup=ident)


class PortgroupList:
    """GET /v1/portgroups[/detail] and /v1/nodes/{node}/portgroups."""

    def __init__(self, detail: bool = False, under_node: bool = False
                 ) -> None:
        self.detail = detail
        self.under_node = under_node

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None) -> None:
        _require(req)
        version = req.context.version
        if self.under_node and \
                not version.allows(versions.PORTGROUPS_SUBCONTROLLERS):
            raise falcon.HTTPNotFound()
        readers = {'marker': wire.as_uuid, 'limit': wire.as_integer,
                   'sort_key': wire.as_string, 'sort_dir': wire.as_string,
                   'address': wire.as_mac, 'shard': wire.as_string_list,
                   'conductor_groups': wire.as_string_list}
        if not self.under_node:
            readers['node'] = wire.as_uuid_or_name
        if not self.detail:
            readers.update(fields=wire.as_fields, detail=wire.as_boolean)
        query = wire.query(req, readers)
        if query['shard'] is not None:
            versions.require(version, versions.PORTGROUP_SHARD,
                             'the shard filter')
        if query['conductor_groups'] is not None:
            versions.require(version, versions.PORT_CONDUCTOR_GROUPS_FILTER,
                             'the conductor_groups filter')
        sort_key = collection.sort_key(query['sort_key'], UNSORTABLE)
        VIEW.check_newer(version, [sort_key])
        VIEW.check_fields(version, query.get('fields'))
        fields = None if self.detail else collection.fields_or_default(
            version, query['fields'], query['detail'],
            VIEW.default_list_fields)
        node = node_ident or query.get('node')
        filters = {'node_id': node_owned.node_id_filter(req, node),
                   'address': query['address'], 'shard': query['shard'],
                   'conductor_groups': query['conductor_groups'],
                   'project': nodes.list_project(req, 'portgroup')}
        page_size = collection.limit(query['limit'])
        rows = portgroups_db.list_portgroups(
            filters, page_size, query['marker'], sort_key,
            collection.sort_dir(query['sort_dir']))
        render = VIEW.renderer(req, fields)
        base = 'nodes/%s/portgroups' % node_ident if self.under_node \
            else 'portgroups'
        if self.detail:
            base += '/detail'
        params = {k: v for k, v in query.items()
                  if k not in ('limit', 'marker')}
        wire.send(resp, collection.answer(
            req, 'portgroups', [render(row) for row in rows], page_size,
            base, params))


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


class PortgroupCollection(PortgroupList):
    """GET and POST /v1/portgroups."""

    def __init__(self, rpcapi) -> None:
        super().__init__()
        self.rpcapi = rpcapi

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        wire.query(req, {})
        version = req.context.version
        body = wire.read_json(req)
        schemas.validate('portgroup', body, port_schemas.PORTGROUP)
        values = dict(body)
        VIEW.check_newer(version, [k for k, v in values.items()
                                   if v is not None])
        _check_values(values)
        node = node_owned.node_for_body(
            req, wire.as_uuid('node_uuid', values.pop('node_uuid')),
            'baremetal:portgroup:create')
        values['node_id'] = node['id']
        values.setdefault('mode', DEFAULT_MODE)
        values = {k: v for k, v in values.items() if v is not None}
        uuid = self.rpcapi.create_portgroup(req.context.ctx, node['uuid'],
                                            values)
        resp.location = links.url(req.context.public_url, 'portgroups',
                                  uuid)
        wire.send(resp, VIEW.renderer(req)(portgroups_db.get(uuid)),
                  status=201)


class Portgroup(base.Resource):
    """GET, PATCH and DELETE /v1/portgroups/{portgroup_ident}."""

    def _get(self, req, ident: str, rule: str) -> dict[str, Any]:
        _require(req)
        wire.as_uuid_or_name('portgroup', ident)
        row = portgroups_db.get(ident)
        node_owned.authorize(req, rule, row, _not_found(ident))
        return row

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               portgroup_ident: str) -> None:
        query = wire.query(req, {'fields': wire.as_fields})
        row = self._get(req, portgroup_ident, 'baremetal:portgroup:get')
        VIEW.check_fields(req.context.version, query['fields'])
        wire.send(resp, VIEW.renderer(req, query['fields'])(row))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 portgroup_ident: str) -> None:
        wire.query(req, {})
        row = self._get(req, portgroup_ident, 'baremetal:portgroup:update')
        _patch, values, expected = node_owned.patched(
            req, row, port_schemas.PORTGROUP['properties'],
            port_schemas.PORTGROUP_PATCH_ALLOWED,
            port_schemas.PORTGROUP, 'portgroup')
        VIEW.check_newer(req.context.version, values)
        _check_values(values)
        node_owned.node_uuid_to_id(values, req,
                                   'baremetal:portgroup:update')
        node_owned.settle_removals(values, ('extra', 'properties'),
                                   ('standalone_ports_supported',))
        uuid = self.rpcapi.update_portgroup(req.context.ctx, row['uuid'],
                                            values, expected=expected)
        wire.send(resp, VIEW.renderer(req)(portgroups_db.get(uuid)))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  portgroup_ident: str) -> None:
        wire.query(req, {})
        row = self._get(req, portgroup_ident, 'baremetal:portgroup:delete')
        self.rpcapi.destroy_portgroup(req.context.ctx, row['uuid'])
        wire.no_content(resp)


def register(app: falcon.App, rpcapi) -> None:
    app.add_route('/v1/portgroups', PortgroupCollection(rpcapi))
    app.add_route('/v1/portgroups/detail', PortgroupList(detail=True))
    app.add_route('/v1/portgroups/{portgroup_ident}', Portgroup(rpcapi))
    app.add_route('/v1/nodes/{node_ident}/portgroups',
                  PortgroupList(under_node=True))
    app.add_route('/v1/nodes/{node_ident}/portgroups/detail',
                  PortgroupList(detail=True, under_node=True))
