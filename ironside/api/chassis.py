"""/v1/chassis: groups of nodes, kept for clients that still use them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import falcon

from ironside.api import collection
from ironside.api import links
from ironside.api import nodes
from ironside.api import patch as json_patch
from ironside.api import policy
from ironside.api import schemas
from ironside.api import views
from ironside.api import wire
from ironside.api.schemas import chassis as chassis_schema
from ironside.common import exception
from ironside.db import chassis as chassis_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

VIEW = views.ResourceView(
    resource='chassis',
    fields=(('uuid', 1), ('description', 1), ('extra', 1),
            ('created_at', 1), ('updated_at', 1)),
    default_list_fields=('uuid', 'description'),
    sub_links=(('nodes', 1),))


class ChassisList:
    """GET /v1/chassis and GET /v1/chassis/detail."""

    def __init__(self, detail: bool = False) -> None:
        self.detail = detail

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = collection.read_list_query(
            req, VIEW, ('extra',), detail_endpoint=self.detail,
            authorize=lambda: policy.authorize('baremetal:chassis:get',
                                               req.context.ctx))
        rows = chassis_db.list_chassis(
            (), query.page_size, query.marker, query.sort_key,
            query.sort_dir)
        render = VIEW.renderer(req, query.fields)
        wire.send(resp, collection.answer(
            req, 'chassis', [render(row) for row in rows], query.page_size,
            'chassis/detail' if self.detail else 'chassis',
            query.next_params()))



class ChassisCollection(ChassisList):
    """GET and POST /v1/chassis."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        policy.authorize('baremetal:chassis:create', req.context.ctx)
        # As Ironic: no body is an empty one.
        body = schemas.validate('chassis', wire.read_json(req, default={}),
                                chassis_schema.CHASSIS)
        values = {k: v for k, v in body.items() if v is not None}
        if 'uuid' in values:
            wire.as_uuid('uuid', values['uuid'])
        row = chassis_db.create(values)
        resp.location = links.url(req.context.public_url, 'chassis',
                                  row['uuid'])
        wire.send(resp, VIEW.renderer(req)(row), status=201)


class Chassis:
    """GET, PATCH and DELETE /v1/chassis/{chassis_uuid}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               chassis_uuid: str) -> None:
        query = wire.query(req, {'fields': wire.as_fields})
        policy.authorize('baremetal:chassis:get', req.context.ctx)
        VIEW.check_fields(req.context.version, query['fields'])
        row = chassis_db.get(wire.uuid('chassis_uuid', chassis_uuid))
        wire.send(resp, VIEW.renderer(req, query['fields'])(row))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 chassis_uuid: str) -> None:
        wire.query(req, {})
        policy.authorize('baremetal:chassis:update', req.context.ctx)
        row = chassis_db.get(wire.uuid('chassis_uuid', chassis_uuid))
        patch = json_patch.validate(req.context.version, wire.read_json(req))
        json_patch.check_allowed(patch, ('description', 'extra'))
        document = {'description': row['description'], 'extra': row['extra']}
        result = schemas.validate('chassis',
                                  json_patch.apply(document, patch),
                                  chassis_schema.CHASSIS)
        values = json_patch.changes(document, result)
        if 'extra' in values and values['extra'] is None:
            values['extra'] = {}
        expected = json_patch.originals(document, values)
        wire.send(resp, VIEW.renderer(req)(chassis_db.update(
            row['id'], values, expected=expected)))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  chassis_uuid: str) -> None:
        wire.query(req, {})
        policy.authorize('baremetal:chassis:delete', req.context.ctx)
        chassis_db.destroy(wire.uuid('chassis_uuid', chassis_uuid))
        wire.no_content(resp)


def _malformed() -> exception.Invalid:
    return exception.Invalid('Malformed request URI.')


class ChassisNodes(nodes.NodeList):
    """GET /v1/chassis/{chassis_uuid}/nodes (and /detail): the chassis'
    nodes, as Ironic's nodes controller below the chassis one lists
    them; that controller refuses to create, show, change or delete a
    node (400)."""

    def on_post(self, req: falcon.Request, resp: falcon.Response,
                chassis_uuid: str | None = None) -> None:
        raise _malformed()

    on_patch = on_delete = on_put = on_post


class ChassisNode:
    """/v1/chassis/{chassis_uuid}/nodes/{node}: 400 on every method."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               chassis_uuid: str, node_ident: str) -> None:
        raise _malformed()

    on_post = on_patch = on_delete = on_put = on_get


class NodesWithoutChassis(ChassisNodes):
    """/v1/chassis/nodes: no chassis named (400, Ironic's messages)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               chassis_uuid: str | None = None) -> None:
        raise exception.MissingParameterValue(err='Chassis id not '
                                                  'specified.')

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 chassis_uuid: str | None = None) -> None:
        raise wire.invalid('Expected UUID for chassis_uuid: nodes')


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/chassis', ChassisCollection())
    app.add_route('/v1/chassis/detail', ChassisList(detail=True))
    app.add_route('/v1/chassis/{chassis_uuid}', Chassis())
    app.add_route('/v1/chassis/nodes', NodesWithoutChassis(rpcapi))
    app.add_route('/v1/chassis/{chassis_uuid}/nodes', ChassisNodes(rpcapi))
    app.add_route('/v1/chassis/{chassis_uuid}/nodes/detail',
                  ChassisNodes(rpcapi, detail=True))
    app.add_route('/v1/chassis/{chassis_uuid}/nodes/{node_ident}',
                  ChassisNode())
