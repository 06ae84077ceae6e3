"""Things a node has: traits, history, and BIOS settings.

Traits change through the conductor (they steer deploy templates and
scheduling); history and BIOS settings are read from the database.
"""

from __future__ import annotations

from typing import Any

import falcon

from ironside.api import base
from ironside.api import collection
from ironside.api import links
from ironside.api import node_access
from ironside.api import node_view
from ironside.api import schemas
from ironside.api import versions
from ironside.api import wire
from ironside.api.schemas import common as common_schemas
from ironside.common import exception
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db

TRAITS_BODY = {
    'type': 'object',
    'properties': {'traits': {'type': 'array',
                              'items': common_schemas.TRAIT}},
    'required': ['traits'],
    'additionalProperties': False,
}

# Where BIOS interfaces cache the settings they read or applied:
# driver_internal_info[BIOS_SETTINGS_KEY] = {name: value}.
BIOS_SETTINGS_KEY = 'bios_settings'
BIOS_REGISTRY_FIELDS = ('attribute_type', 'allowable_values', 'lower_bound',
                        'max_length', 'min_length', 'read_only',
                        'reset_required', 'unique', 'upper_bound')


def _require(req, minor: int) -> None:
    """Sub-resources newer than the request do not exist (404)."""
    if not req.context.version.allows(minor):
        raise falcon.HTTPNotFound()


def check_trait(trait: str) -> None:
    problem = common_schemas.trait_problem(trait)
    if problem:
        raise exception.InvalidParameterValue(err='Invalid trait: %s'
                                              % problem)


class Traits(base.Resource):
    """GET, PUT and DELETE /v1/nodes/{node_ident}/traits (1.37)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require(req, versions.NODE_TRAITS)
        wire.query(req, {})
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:traits:list',
                                   ['id', 'uuid'])
        wire.send(resp, {'traits': nodes_db.get_node_traits(row['id'])})

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require(req, versions.NODE_TRAITS)
        wire.query(req, {})
        body = wire.read_json(req)
        if body is None:
            raise exception.Invalid(
                'A single node trait may be added via PUT /v1/nodes/<node '
                'identifier>/traits/<trait> with no body, or all node '
                'traits may be replaced via PUT /v1/nodes/<node '
                'identifier>/traits with the list of traits specified in '
                'the request body.')
        schemas.validate('traits', body, TRAITS_BODY)
        for trait in body['traits']:
            check_trait(trait)
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:traits:set')
        self.rpcapi.add_node_traits(req.context.ctx, uuid,
                                    sorted(set(body['traits'])),
                                    replace=True)
        wire.no_content(resp)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  node_ident: str) -> None:
        _require(req, versions.NODE_TRAITS)
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:traits:delete')
        self.rpcapi.remove_node_traits(req.context.ctx, uuid, None)
        wire.no_content(resp)


class Trait(base.Resource):
    """PUT and DELETE /v1/nodes/{node_ident}/traits/{trait}."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str, trait: str) -> None:
        _require(req, versions.NODE_TRAITS)
        wire.query(req, {})
        if wire.read_json(req) not in (None, {}):
            raise exception.Invalid(
                'No body should be provided when adding a trait')
        check_trait(trait)
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:traits:set')
        self.rpcapi.add_node_traits(req.context.ctx, uuid, [trait])
        resp.location = links.url(req.context.public_url, 'nodes',
                                  '%s/traits/%s' % (node_ident, trait))
        wire.no_content(resp)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  node_ident: str, trait: str) -> None:
        _require(req, versions.NODE_TRAITS)
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:traits:delete')
        try:
            self.rpcapi.remove_node_traits(req.context.ctx, uuid,
                                           [trait])
        except exception.NodeTraitNotFound:
            raise exception.NodeTraitNotFound(node_id=uuid,
                                              trait=trait) from None
        wire.no_content(resp)


HISTORY_FIELDS = ('uuid', 'created_at', 'severity', 'event')
HISTORY_DETAIL_FIELDS = HISTORY_FIELDS + ('event_type', 'conductor', 'user')


def _history_entry(req, node_uuid: str, record, detail: bool
                   ) -> dict[str, Any]:
    version = req.context.version
    entry = {'uuid': record.uuid,
             'created_at': node_view.isotime(record.created_at),
             'severity': record.severity, 'event': record.event or ''}
    if detail:
        entry.update(event_type=record.event_type,
                     conductor=record.conductor, user=record.user)
        if version.allows(versions.NODE_HISTORY_PROJECT):
            entry['project'] = None
        if version.allows(versions.NODE_HISTORY_FIELDS):
            entry.update(state=None, target_provision_state=None,
                         duration_seconds=None)
    elif len(entry['event']) > 255:
        entry['event'] = entry['event'][:251] + '...'
    entry['links'] = [links.make(
        'self', req.context.public_url, 'nodes',
        '%s/history/%s' % (node_uuid, record.uuid))]
    return entry


class History:
    """GET /v1/nodes/{node_ident}/history (1.78)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require(req, versions.NODE_HISTORY)
        query = wire.query(req, {
            'detail': wire.as_boolean, 'marker': wire.as_uuid,
            'limit': wire.as_integer, 'sort_key': wire.as_string,
            'sort_dir': wire.as_string})
        if query['sort_key'] not in (None, 'created_at', 'id'):
            raise exception.InvalidParameterValue(
                err='The sort_key value %s is an invalid field for sorting'
                    % query['sort_key'])
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:history:get',
                                   ['id', 'uuid'])
        page_size = collection.limit(query['limit'])
        records = history_db.list_for_node(
            row['id'], limit=page_size, marker=query['marker'],
            sort_dir=collection.sort_dir(query['sort_dir']))
        entries = [_history_entry(req, row['uuid'], record,
                                  bool(query['detail']))
                   for record in records]
        params = {'detail': query['detail'], 'sort_key': query['sort_key'],
                  'sort_dir': query['sort_dir']}
        wire.send(resp, collection.answer(
            req, 'history', entries, page_size,
            'nodes/%s/history' % node_ident, params))


class HistoryEvent:
    """GET /v1/nodes/{node_ident}/history/{event}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str, event: str) -> None:
        _require(req, versions.NODE_HISTORY)
        wire.query(req, {})
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:history:get',
                                   ['id', 'uuid'])
        record = history_db.get(row['id'], event)
        wire.send(resp, _history_entry(req, row['uuid'], record, True))


def _bios_setting(req, node_uuid: str, name: str, value: Any
                  ) -> dict[str, Any]:
    setting = {'name': name, 'value': value}
    if req.context.version.allows(versions.BIOS_REGISTRY):
        setting.update({field: None for field in BIOS_REGISTRY_FIELDS})
    setting['links'] = links.self_and_bookmark(
        req.context.public_url, 'nodes', '%s/bios/%s' % (node_uuid, name))
    return setting


def _bios_settings(req, node_ident: str) -> tuple[str, dict[str, Any]]:
    row = node_access.get_node(req, node_ident, 'baremetal:node:bios:get',
                               ['uuid', 'driver_internal_info'])
    settings = (row['driver_internal_info'] or {}).get(
        BIOS_SETTINGS_KEY) or {}
    return row['uuid'], settings


class Bios:
    """GET /v1/nodes/{node_ident}/bios (1.40)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require(req, versions.BIOS_INTERFACE)
        query = wire.query(req, {'detail': wire.as_boolean,
                                 'fields': wire.as_fields})
        uuid, settings = _bios_settings(req, node_ident)
        items = [_bios_setting(req, uuid, name, value)
                 for name, value in sorted(settings.items())]
        if query['fields']:
            keep = set(query['fields']) | {'links'}
            items = [{k: v for k, v in item.items() if k in keep}
                     for item in items]
        wire.send(resp, {'bios': items})


class BiosSetting:
    """GET /v1/nodes/{node_ident}/bios/{setting}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str, setting: str) -> None:
        _require(req, versions.BIOS_INTERFACE)
        wire.query(req, {})
        uuid, settings = _bios_settings(req, node_ident)
        if setting not in settings:
            raise exception.NotFound(
                'Node %s does not have a BIOS setting %s' % (uuid, setting))
        wire.send(resp, {setting: _bios_setting(req, uuid, setting,
                                                settings[setting])})


def register(app: falcon.App, rpcapi) -> None:
    node = '/v1/nodes/{node_ident}'
    app.add_route(node + '/traits', Traits(rpcapi))
    app.add_route(node + '/traits/{trait}', Trait(rpcapi))
    app.add_route(node + '/history', History())
    app.add_route(node + '/history/{event}', HistoryEvent())
    app.add_route(node + '/bios', Bios())
    app.add_route(node + '/bios/{setting}', BiosSetting())
