"""/v1/volume (1.32): volume connectors and targets, always none.

Ironside has no storage interface that boots from volumes, so there are
never connectors or targets. Lists answer empty (Nova lists targets when
it cleans up after any failed deploy) and creating one is refused.
"""

from __future__ import annotations

import falcon

from ironside.api import links
from ironside.api import node_access
from ironside.api import policy
from ironside.api import versions
from ironside.api import wire
from ironside.common import exception

KINDS = ('connectors', 'targets')
LIST_PARAMS = {'node': wire.as_uuid_or_name, 'detail': wire.as_boolean,
               'fields': wire.as_fields, 'marker': wire.as_uuid,
               'limit': wire.as_integer, 'sort_key': wire.as_string,
               'sort_dir': wire.as_string, 'project': wire.as_string}


def _require(req) -> None:
    if not req.context.version.allows(versions.VOLUME):
        raise falcon.HTTPNotFound()


class Volume:
    """GET /v1/volume and /v1/nodes/{node_ident}/volume."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None) -> None:
        _require(req)
        wire.query(req, {})
        base = req.context.public_url
        prefix = 'volume'
        if node_ident is not None:
            node_access.get_node(req, node_ident, 'baremetal:node:get',
                                 ['uuid'])
            prefix = 'nodes/%s/volume' % node_ident
        body = {kind: links.self_and_bookmark(base, prefix, kind)
                for kind in KINDS}
        body['links'] = links.self_and_bookmark(base, prefix)
        wire.send(resp, body)


class VolumeList:
    """GET of connectors or targets: always empty."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None) -> None:
        _require(req)
        query = wire.query(req, LIST_PARAMS if node_ident is None else {
            k: v for k, v in LIST_PARAMS.items() if k != 'node'})
        policy.authorize('baremetal:volume:get', req.context.ctx)
        node = node_ident or query.get('node')
        if node is not None:
            node_access.get_node(req, node, 'baremetal:node:get', ['uuid'])
        wire.send(resp, {self.kind: []})



class VolumeCollection(VolumeList):
    """GET and POST (refused) /v1/volume/{connectors,targets}."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        raise exception.Invalid(
            'Ironside does not support volume %s: no storage interface '
            'boots from volumes' % self.kind)


class VolumeItem:
    """GET /v1/volume/{kind}/{ident}: there is none."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               ident: str) -> None:
        _require(req)
        raise exception.NotFound('Volume %s %s could not be found.'
                                 % (self.kind[:-1], ident))


def register(app: falcon.App, rpcapi) -> None:
    app.add_route('/v1/volume', Volume())
    app.add_route('/v1/nodes/{node_ident}/volume', Volume())
    for kind in KINDS:
        app.add_route('/v1/volume/%s' % kind, VolumeCollection(kind))
        app.add_route('/v1/volume/%s/detail' % kind, VolumeList(kind))
        app.add_route('/v1/volume/%s/{ident}' % kind, VolumeItem(kind))
        app.add_route('/v1/nodes/{node_ident}/volume/%s' % kind,
                      VolumeList(kind))
