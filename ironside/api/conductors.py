"""/v1/conductors (1.49): the conductors and whether they are alive."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import collection
from ironside.api import links
from ironside.api import node_view
from ironside.api import policy
from ironside.api import versions
from ironside.api import wire
from ironside.common import exception
from ironside.common.conf import CONF
from ironside.db import conductors as conductors_db
from ironside.db import models

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

FIELDS = ('hostname', 'conductor_group', 'alive', 'drivers', 'created_at',
          'updated_at')
DEFAULT_FIELDS = ('hostname', 'conductor_group', 'alive')


def _require(req: falcon.Request) -> None:
    if not req.context.version.allows(versions.CONDUCTORS):
        raise falcon.HTTPNotFound()


def _render(req: falcon.Request, conductor: models.Conductor,
            fields: tuple[str, ...] | list[str]) -> dict[str, Any]:
    deadline = models.utcnow() - datetime.timedelta(
        seconds=CONF.conductor.heartbeat_timeout)
    values = {
        'hostname': conductor.hostname,
        'conductor_group': conductor.conductor_group or '',
        'alive': bool(conductor.online and conductor.heartbeat_at and
                      conductor.heartbeat_at > deadline),
        'drivers': sorted(conductor.hardware_types or []),
        'created_at': node_view.isotime(conductor.created_at),
        'updated_at': node_view.isotime(conductor.updated_at),
    }
    result = {name: values[name] for name in fields}
    result['links'] = links.self_and_bookmark(req.context.public_url,
                                              'conductors',
                                              conductor.hostname)
    return result


def _fields(fields: list[str] | None) -> None:
    unknown = [f for f in fields or () if f not in FIELDS]
    if unknown:
        raise exception.InvalidParameterValue(
            err='Field(s) "%s" are not valid' % ', '.join(unknown))


class Conductors:
    """GET /v1/conductors."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        query = wire.query(req, {
            'marker': wire.as_string, 'limit': wire.as_integer,
            'sort_key': wire.as_string, 'sort_dir': wire.as_string,
            'fields': wire.as_fields, 'detail': wire.as_boolean})
        policy.authorize('baremetal:conductor:get', req.context.ctx)
        _fields(query['fields'])
        if query['sort_key'] not in (None, 'id', 'hostname'):
            raise exception.InvalidParameterValue(
                err='The sort_key value %s is an invalid field for sorting'
                    % query['sort_key'])
        fields = collection.fields_or_default(
            req.context.version, query['fields'], query['detail'],
            DEFAULT_FIELDS) or FIELDS
        page_size = collection.limit(query['limit'])
        rows = conductors_db.list_conductors(
            page_size, query['marker'],
            collection.sort_dir(query['sort_dir']))
        items = [_render(req, row, fields) for row in rows]
        params = {k: v for k, v in query.items()
                  if k not in ('limit', 'marker')}
        wire.send(resp, collection.answer(req, 'conductors', items,
                                          page_size, 'conductors', params,
                                          key='hostname'))


class Conductor:
    """GET /v1/conductors/{hostname}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               hostname: str) -> None:
        _require(req)
        query = wire.query(req, {'fields': wire.as_fields})
        policy.authorize('baremetal:conductor:get', req.context.ctx)
        _fields(query['fields'])
        conductor = conductors_db.get_conductor(hostname)
        wire.send(resp, _render(req, conductor, query['fields'] or FIELDS))


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/conductors', Conductors())
    app.add_route('/v1/conductors/{hostname}', Conductor())
