"""/v1/volume (1.32): volume connectors and targets, and their root.

Both kinds belong to a node and share one shape of API, so one set of
resources serves them, told apart by a :class:`Kind` (fields, schema,
what PATCH may change). They are read from the database; creating,
changing and deleting them goes through the conductor of their node,
which holds the node's lock and refuses changes while the node is
powered on (see conductor/volume.py), as Ironic does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import collection
from ironside.api import links
from ironside.api import node_access
from ironside.api import node_owned
from ironside.api import nodes
from ironside.api import policy
from ironside.api import schemas
from ironside.api import versions
from ironside.api import views
from ironside.api import volume_connectors
from ironside.api import volume_targets
from ironside.api import wire
from ironside.common import exception
from ironside.db import resources
from ironside.db import volume as volume_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str                               # 'connectors'
    view: views.ResourceView
    schema: dict
    patch_allowed: tuple[str, ...]
    document_fields: tuple[str, ...]
    unsortable: tuple[str, ...]
    normalise: Callable[[dict], dict]
    # Changes rendered items in place before they are sent.
    finish: Callable[[Any, list[dict]], None] = lambda req, items: None

    @property
    def db(self) -> resources.Resource:
        return volume_db.BY_KIND[self.name]

    def not_found(self, ident: str) -> exception.IronsideException:
        return self.db.not_found(ident)


KINDS = {
    'connectors': Kind('connectors', volume_connectors.VIEW,
                       volume_connectors.SCHEMA,
                       volume_connectors.PATCH_ALLOWED,
                       volume_connectors.DOCUMENT_FIELDS,
                       volume_connectors.UNSORTABLE,
                       volume_connectors.normalise),
    'targets': Kind('targets', volume_targets.VIEW, volume_targets.SCHEMA,
                    volume_targets.PATCH_ALLOWED,
                    volume_targets.DOCUMENT_FIELDS,
                    volume_targets.UNSORTABLE, volume_targets.normalise,
                    volume_targets.redact),
}


def _require(req: falcon.Request) -> None:
    if not req.context.version.allows(versions.VOLUME):
        raise falcon.HTTPNotFound()


def _send_one(req: falcon.Request, resp: falcon.Response, kind: Kind,
              row: dict[str, Any],
              fields: list[str] | None = None, status: int = 200) -> None:
    item = kind.view.renderer(req, fields)(row)
    kind.finish(req, [item])
    wire.send(resp, item, status=status)


class Volume:
    """GET /v1/volume and /v1/nodes/{node_ident}/volume."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None) -> None:
        _require(req)
        wire.query(req, {})
        base = req.context.public_url
        prefix = 'volume'
        if node_ident is None:
            policy.authorize('baremetal:volume:get', req.context.ctx)
        else:
            node_access.get_node(req, node_ident, 'baremetal:node:get',
                                 ['uuid'])
            prefix = 'nodes/%s/volume' % node_ident
        body = {name: links.self_and_bookmark(base, prefix, name)
                for name in KINDS}
        body['links'] = links.self_and_bookmark(base, prefix)
        wire.send(resp, body)


class VolumeList:
    """GET of connectors or targets, all or a node's."""

    def __init__(self, kind: Kind, detail: bool = False) -> None:
        self.kind = kind
        self.detail = detail

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None) -> None:
        _require(req)
        kind = self.kind
        found: dict[str, Any] = {}
        query = collection.read_list_query(
            req, kind.view, kind.unsortable,
            filters=None if node_ident is not None else {
                'node': wire.as_uuid_or_name},
            detail_endpoint=self.detail, detail_minor=versions.VOLUME,
            authorize=lambda: found.update(
                project=nodes.list_project(req, 'volume')))
        node = node_ident or query.values.get('node')
        filters = {'node_id': node_owned.node_id_filter(req, node),
                   'project': found['project']}
        page_size = query.page_size
        rows = volume_db.list_of(kind.name, filters, page_size,
                                 query.marker, query.sort_key,
                                 query.sort_dir)
        render = kind.view.renderer(req, query.fields)
        items = [render(row) for row in rows]
        kind.finish(req, items)
        params = query.next_params()
        base = 'volume/%s' % kind.name
        if node_ident is not None:
            base = 'nodes/%s/%s' % (node_ident, base)
        wire.send(resp, collection.answer(req, kind.name, items, page_size,
                                          base, params))


class VolumeCollection(VolumeList):
    """GET and POST /v1/volume/{connectors,targets}."""

    def __init__(self, kind: Kind, rpcapi: ConductorAPI) -> None:
        super().__init__(kind)
        self.rpcapi = rpcapi

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        wire.query(req, {})
        kind = self.kind
        body = wire.read_json(req)
        schemas.validate('volume %s' % kind.name[:-1], body, kind.schema)
        values = kind.normalise(body)
        if values.get('uuid') is not None:
            wire.as_uuid('uuid', values['uuid'])
        node = node_owned.node_for_body(
            req, wire.uuid('node_uuid', values.pop('node_uuid')),
            'baremetal:volume:create')
        values = {k: v for k, v in values.items() if v is not None}
        uuid = self.rpcapi.create_volume(req.context.ctx, kind.name,
                                         node['uuid'], values)
        resp.location = links.url(req.context.public_url,
                                  'volume/%s' % kind.name, uuid)
        _send_one(req, resp, kind, kind.db.get(uuid), status=201)


class VolumeItem:
    """GET, PATCH and DELETE /v1/volume/{kind}/{ident}: an identity that
    is no UUID is 400 (Ironic validates the argument first), an unknown
    UUID 404 on every verb."""

    def __init__(self, kind: Kind, rpcapi: ConductorAPI) -> None:
        self.kind = kind
        self.rpcapi = rpcapi

    def _get(self, req: falcon.Request, ident: str, rule: str
             ) -> dict[str, Any]:
        _require(req)
        wire.as_uuid('%s_uuid' % self.kind.name[:-1], ident)
        row = self.kind.db.get(ident)
        node_owned.authorize(req, rule, row, self.kind.not_found(ident))
        return row

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               ident: str) -> None:
        row = self._get(req, ident, 'baremetal:volume:get')
        query = wire.query(req, {'fields': wire.as_fields})
        self.kind.view.check_fields(req.context.version, query['fields'])
        _send_one(req, resp, self.kind, row, query['fields'])

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 ident: str) -> None:
        row = self._get(req, ident, 'baremetal:volume:update')
        wire.query(req, {})
        kind = self.kind
        _patch, values, expected = node_owned.patched(
            req, row, kind.document_fields, kind.patch_allowed, kind.schema,
            'volume %s' % kind.name[:-1])
        if 'uuid' in values:
            raise exception.Invalid('uuid cannot be changed')
        values = kind.normalise(values)
        node_owned.node_uuid_to_id(values, req, 'baremetal:volume:update')
        for name in ('extra', 'properties'):
            if name in values and values[name] is None:
                values[name] = {}
        expected = {k: v for k, v in expected.items() if k != 'node_uuid'}
        uuid = self.rpcapi.update_volume(req.context.ctx, kind.name,
                                         row['uuid'], values,
                                         expected=expected)
        _send_one(req, resp, kind, kind.db.get(uuid))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  ident: str) -> None:
        row = self._get(req, ident, 'baremetal:volume:delete')
        wire.query(req, {})
        self.rpcapi.destroy_volume(req.context.ctx, self.kind.name,
                                   row['uuid'])
        wire.no_content(resp)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/volume', Volume())
    app.add_route('/v1/nodes/{node_ident}/volume', Volume())
    for name, kind in KINDS.items():
        app.add_route('/v1/volume/%s' % name,
                      VolumeCollection(kind, rpcapi))
        app.add_route('/v1/volume/%s/detail' % name,
                      VolumeList(kind, detail=True))
        app.add_route('/v1/volume/%s/{ident}' % name,
                      VolumeItem(kind, rpcapi))
        app.add_route('/v1/nodes/{node_ident}/volume/%s' % name,
                      VolumeList(kind))
