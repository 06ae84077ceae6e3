"""/v1/nodes/{node}/management/indicators (1.63): the node's LEDs.

An indicator is named ``NAME@COMPONENT`` as in Ironic (the component is
``system``, ``chassis``, ``disk``, ...); the management interface says
which it has and reads or sets their states through the conductor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import base
from ironside.api import links
from ironside.api import node_access
from ironside.api import versions
from ironside.api import wire
from ironside.common import exception

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

STATES = ('OFF', 'ON', 'BLINKING', 'UNKNOWN')


def split_indicator(indicator: str) -> tuple[str, str]:
    """``(component, name)`` of ``NAME@COMPONENT``; 400 if malformed."""
    name, sep, component = indicator.rpartition('@')
    if not sep or not name or not component:
        raise exception.InvalidParameterValue(
            err='Malformed indicator name "%s"' % indicator)
    return component, name


def _uuid(req: falcon.Request, node_ident: str, rule: str) -> str:
    if not req.context.version.allows(versions.INDICATORS):
        raise falcon.HTTPNotFound()
    wire.query(req, {})
    return node_access.node_uuid(req, node_ident, rule)


class Indicators(base.Resource):
    """GET /v1/nodes/{node_ident}/management/indicators."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        uuid = _uuid(req, node_ident, 'baremetal:node:get_indicator_state')
        supported = self.rpcapi.get_supported_indicators(req.context.ctx,
                                                         uuid)
        result = []
        for component, indicators in sorted(supported.items()):
            for name, fields in sorted(indicators.items()):
                ident = '%s@%s' % (name, component)
                result.append(_indicator(req, node_ident, ident, component,
                                         fields))
        wire.send(resp, {'indicators': result})


def _indicator(req: falcon.Request, node_ident: str, ident: str,
               component: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {'name': ident, 'component': component,
            'readonly': fields.get('readonly', True),
            'states': fields.get('states', []),
            'links': links.self_and_bookmark(
                req.context.public_url, 'nodes',
                '%s/management/indicators/%s' % (node_ident, ident))}


class Indicator(base.Resource):
    """GET and PUT /v1/nodes/{node_ident}/management/indicators/{ind}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str, indicator: str) -> None:
        uuid = _uuid(req, node_ident, 'baremetal:node:get_indicator_state')
        component, name = split_indicator(indicator)
        state = self.rpcapi.get_indicator_state(req.context.ctx, uuid,
                                                component, name)
        wire.send(resp, {'state': state})

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str, indicator: str) -> None:
        uuid = _uuid(req, node_ident, 'baremetal:node:set_indicator_state')
        body = wire.read_object(req, ('state',), required=('state',))
        state = wire.as_string('state', body['state'])
        if state not in STATES:
            raise exception.InvalidParameterValue(
                err='Invalid indicator state %s; valid ones are %s'
                    % (state, ', '.join(STATES)))
        component, name = split_indicator(indicator)
        self.rpcapi.set_indicator_state(req.context.ctx, uuid, component,
                                        name, state)
        wire.no_content(resp)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    path = '/v1/nodes/{node_ident}/management/indicators'
    app.add_route(path, Indicators(rpcapi))
    app.add_route(path + '/{indicator}', Indicator(rpcapi))
