"""Node management: boot device, NMI, maintenance, and VIFs.

Each asks the conductor that owns the node, which talks to the BMC or
the network interface; the API only checks the request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import falcon

from ironside.api import base
from ironside.api import node_access
from ironside.api import schemas
from ironside.api import versions
from ironside.api import wire
from ironside.api.schemas import node as node_schema
from ironside.common import exception

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI


class BootDevice(base.Resource):
    """GET and PUT /v1/nodes/{node_ident}/management/boot_device."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:get_boot_device')
        wire.send(resp, self.rpcapi.get_boot_device(req.context.ctx,
                                                    uuid))

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        body = wire.read_object(req, ('boot_device', 'persistent'),
                                required=('boot_device',))
        device = wire.as_string('boot_device', body['boot_device'])
        if device is None:
            raise exception.MissingParameterValue(
                err='Missing mandatory parameter: boot_device')
        persistent = wire.as_boolean('persistent', body.get('persistent'))
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:set_boot_device')
        self.rpcapi.set_boot_device(req.context.ctx, uuid, device,
                                    persistent=bool(persistent))
        wire.no_content(resp)


class SupportedBootDevices(base.Resource):
    """GET /v1/nodes/{node_ident}/management/boot_device/supported."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:get_boot_device')
        devices = self.rpcapi.get_supported_boot_devices(req.context.ctx,
                                                         uuid)
        wire.send(resp, {'supported_boot_devices': devices})


class InjectNmi(base.Resource):
    """PUT /v1/nodes/{node_ident}/management/inject_nmi (1.29)."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        if not req.context.version.allows(versions.INJECT_NMI):
            raise falcon.HTTPNotFound()
        wire.query(req, {})
        wire.read_object(req, ())
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:inject_nmi')
        self.rpcapi.inject_nmi(req.context.ctx, uuid)
        wire.no_content(resp)


class Maintenance(base.Resource):
    """PUT and DELETE /v1/nodes/{node_ident}/maintenance."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        query = wire.query(req, {'reason': wire.as_string})
        body = wire.read_object(req, ('reason',))
        reason = wire.as_string('reason', body.get('reason',
                                                   query['reason']))
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:set_maintenance')
        self.rpcapi.update_node(req.context.ctx, uuid,
                                {'maintenance': True,
                                 'maintenance_reason': reason})
        wire.no_content(resp, 202)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  node_ident: str) -> None:
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:clear_maintenance')
        self.rpcapi.update_node(req.context.ctx, uuid,
                                {'maintenance': False})
        wire.no_content(resp, 202)


def _require_vifs(req: falcon.Request) -> None:
    if not req.context.version.allows(versions.VIFS):
        raise falcon.HTTPNotFound()


class Vifs(base.Resource):
    """GET and POST /v1/nodes/{node_ident}/vifs (1.28)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require_vifs(req)
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:vif:list')
        wire.send(resp, {'vifs': self.rpcapi.vif_list(req.context.ctx,
                                                      uuid)})

    def on_post(self, req: falcon.Request, resp: falcon.Response,
                node_ident: str) -> None:
        _require_vifs(req)
        wire.query(req, {})
        vif = schemas.validate('vif', wire.read_json(req, default={}),
                               node_schema.VIF)
        wire.as_uuid_or_name('id', vif['id'])
        if req.context.version.allows(versions.VIF_ATTACH_PORT):
            if 'port_uuid' in vif and 'portgroup_uuid' in vif:
                raise exception.Invalid(
                    'Cannot specify both port_uuid and portgroup_uuid')
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:vif:attach')
        self.rpcapi.vif_attach(req.context.ctx, uuid, vif)
        wire.no_content(resp)


class Vif(base.Resource):
    """DELETE /v1/nodes/{node_ident}/vifs/{vif_id}."""

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  node_ident: str, vif_id: str) -> None:
        _require_vifs(req)
        wire.query(req, {})
        wire.as_uuid_or_name('vif_id', vif_id)
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:vif:detach')
        self.rpcapi.vif_detach(req.context.ctx, uuid, vif_id)
        wire.no_content(resp)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    node = '/v1/nodes/{node_ident}'
    app.add_route(node + '/management/boot_device', BootDevice(rpcapi))
    app.add_route(node + '/management/boot_device/supported',
                  SupportedBootDevices(rpcapi))
    app.add_route(node + '/management/inject_nmi', InjectNmi(rpcapi))
    app.add_route(node + '/maintenance', Maintenance(rpcapi))
    app.add_route(node + '/vifs', Vifs(rpcapi))
    app.add_route(node + '/vifs/{vif_id}', Vif(rpcapi))


