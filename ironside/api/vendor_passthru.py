"""Vendor passthru: a node's and a hardware type's vendor methods.

``/v1/nodes/{node}/vendor_passthru?method=NAME`` (or ``.../NAME``, as
ironicclient calls it) relays the request to the node's conductor, which
calls the vendor interface's method with the JSON body as keyword
arguments; ``/v1/drivers/{driver}/vendor_passthru`` does the same for a
hardware type's driver methods. ``.../vendor_passthru/methods`` lists
them. An asynchronous method is answered 202 with no body, a
synchronous one 200 with its return value (as JSON, or raw when the
method says ``attach``), as Ironic answers. Both exist since 1.0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import base
from ironside.api import drivers
from ironside.api import node_access
from ironside.api import policy
from ironside.api import wire
from ironside.common import exception

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

NODE_RULE = 'baremetal:node:vendor_passthru'
DRIVER_RULE = 'baremetal:driver:vendor_passthru'


def _method_and_info(req: falcon.Request, method: str | None
                     ) -> tuple[str, dict[str, Any]]:
    """The method a call names (path or ``?method=``) and its arguments."""
    query = wire.query(req, {'method': wire.as_string})
    method = method or query['method']
    if not method:
        raise exception.InvalidParameterValue(err='Method not specified')
    info = wire.read_json(req, default={})
    if not isinstance(info, dict):
        raise exception.InvalidParameterValue(
            err='The arguments of vendor method %s must be a JSON object, '
                'not %s' % (method, type(info).__name__))
    return method, info


def _respond(resp: falcon.Response, answer: dict[str, Any]) -> None:
    if answer['async']:
        wire.no_content(resp, 202)
        return
    value = answer['return']
    if answer['attach']:
        resp.status = 200
        resp.content_type = falcon.MEDIA_TEXT if isinstance(value, str) \
            else 'application/octet-stream'
        wire.set_body(resp, value.encode('utf-8') if isinstance(value, str)
                      else bytes(value or b''))
        return
    wire.send(resp, value)


class _Passthru(base.Resource):
    """Every HTTP method a vendor method may answer, relayed alike."""

    def _call(self, req: falcon.Request, resp: falcon.Response,
              ident: str, method: str | None) -> None:
        raise NotImplementedError

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               method: str | None = None, **path: str) -> None:
        # The path's one other field: node_ident or driver_name.
        (ident,) = path.values()
        self._call(req, resp, ident, method)

    on_put = on_post = on_patch = on_delete = on_get


class NodePassthru(_Passthru):
    """/v1/nodes/{node_ident}/vendor_passthru[/{method}]."""

    def _call(self, req: falcon.Request, resp: falcon.Response,
              ident: str, method: str | None) -> None:
        method, info = _method_and_info(req, method)
        uuid = node_access.node_uuid(req, ident, NODE_RULE)
        _respond(resp, self.rpcapi.vendor_passthru(
            req.context.ctx, uuid, method, req.method, info))


class NodeMethods(base.Resource):
    """GET /v1/nodes/{node_ident}/vendor_passthru/methods."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident, NODE_RULE)
        wire.send(resp, self.rpcapi.get_node_vendor_passthru_methods(
            req.context.ctx, uuid))


class DriverPassthru(_Passthru):
    """/v1/drivers/{driver_name}/vendor_passthru[/{method}]."""

    def _call(self, req: falcon.Request, resp: falcon.Response,
              ident: str, method: str | None) -> None:
        method, info = _method_and_info(req, method)
        policy.authorize(DRIVER_RULE, req.context.ctx)
        drivers.hosts_of(ident)
        _respond(resp, self.rpcapi.driver_vendor_passthru(
            req.context.ctx, ident, method, req.method, info))


class DriverMethods(base.Resource):
    """GET /v1/drivers/{driver_name}/vendor_passthru/methods."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               driver_name: str) -> None:
        wire.query(req, {})
        policy.authorize(DRIVER_RULE, req.context.ctx)
        drivers.hosts_of(driver_name)
        wire.send(resp, self.rpcapi.get_driver_vendor_passthru_methods(
            req.context.ctx, driver_name))


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    for path, passthru, methods in (
            ('/v1/nodes/{node_ident}/vendor_passthru', NodePassthru,
             NodeMethods),
            ('/v1/drivers/{driver_name}/vendor_passthru', DriverPassthru,
             DriverMethods)):
        app.add_route(path, passthru(rpcapi))
        app.add_route(path + '/methods', methods(rpcapi))
        app.add_route(path + '/{method}', passthru(rpcapi))
