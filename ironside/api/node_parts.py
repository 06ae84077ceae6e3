"""Things a node has: traits, history, BIOS settings and child nodes.

Traits change through the conductor (they steer deploy templates and
scheduling); history, BIOS settings and children are read from the
database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import base
from ironside.api import collection
from ironside.api import links
from ironside.api import node_access
from ironside.api import node_view
from ironside.api import nodes
from ironside.api import schemas
from ironside.api import versions
from ironside.api import wire
from ironside.api.schemas import common as common_schemas
from ironside.common import exception
from ironside.db import history as history_db
from ironside.db import models
from ironside.db import node_views
from ironside.db import nodes as nodes_db
from ironside.drivers.base import BIOS_SETTINGS_KEY
from ironside.drivers.base import FIRMWARE_COMPONENTS_KEY
from ironside.drivers.base import VMEDIA_DEVICES

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

TRAITS_BODY = {
    'type': 'object',
    'properties': {'traits': {'type': 'array',
                              'items': common_schemas.TRAIT}},
    'required': ['traits'],
    'additionalProperties': False,
}

BIOS_REGISTRY_FIELDS = ('attribute_type', 'allowable_values', 'lower_bound',
                        'max_length', 'min_length', 'read_only',
                        'reset_required', 'unique', 'upper_bound')


def _require(req: falcon.Request, minor: int) -> None:
    """Sub-resources newer than the request do not exist (404)."""
    if not req.context.version.allows(minor):
        raise falcon.HTTPNotFound()


def check_trait(trait: str) -> None:
    problem = common_schemas.trait_problem(trait)
    if problem:
        raise exception.InvalidParameterValue(err='Invalid trait: %s'
                                              % problem)


def _traits_in_version(req: falcon.Request, node_ident: str) -> None:
    """Below 1.37 Ironic's nodes controller takes a traits path as its
    own: GET reads "traits" as a field the version lacks (406, once the
    node is found), PUT has no handler (405), DELETE an extra segment
    (404)."""
    if req.context.version.allows(versions.NODE_TRAITS):
        return
    if req.method == 'GET':
        node_access.get_node(req, node_ident, 'baremetal:node:get', ['id'])
        raise exception.NotAcceptable()
    if req.method == 'PUT':
        raise falcon.HTTPMethodNotAllowed(['GET'])
    raise exception.NotFound()


class Traits(base.Resource):
    """GET, PUT and DELETE /v1/nodes/{node_ident}/traits (1.37)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _traits_in_version(req, node_ident)
        wire.query(req, {})
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:traits:list',
                                   ['id', 'uuid'])
        wire.send(resp, {'traits': nodes_db.get_node_traits(row['id'])})

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _traits_in_version(req, node_ident)
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
        _traits_in_version(req, node_ident)
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:traits:delete')
        self.rpcapi.remove_node_traits(req.context.ctx, uuid, None)
        wire.no_content(resp)


class Trait(base.Resource):
    """PUT and DELETE /v1/nodes/{node_ident}/traits/{trait}."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str, trait: str) -> None:
        _traits_in_version(req, node_ident)
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
        _traits_in_version(req, node_ident)
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


def _history_entry(req: falcon.Request, node_uuid: str,
                   record: models.NodeHistory, detail: bool
                   ) -> dict[str, Any]:
    version = req.context.version
    entry: dict[str, Any] = {
        'uuid': record.uuid,
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


class Children:
    """GET /v1/nodes/{node_ident}/children (1.83): the UUIDs of the nodes
    whose ``parent_node`` it is, among those the caller may list."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require(req, versions.PARENT_CHILD_NODES)
        wire.query(req, {})
        parent = node_access.node_uuid(req, node_ident, 'baremetal:node:get')
        filters = {'parent_node': parent}
        project = nodes.list_project(req, 'node')
        if project is not None:
            filters['project'] = project
        children = node_views.select_node_dicts(['uuid'], filters)
        wire.send(resp, {
            'children': [child['uuid'] for child in children],
            'links': {'href': links.url(req.context.public_url, 'nodes',
                                        '?parent_node=%s' % parent),
                      'rel': 'children'}})


def _bios_setting(req: falcon.Request, node_uuid: str, name: str, value: Any
                  ) -> dict[str, Any]:
    setting = {'name': name, 'value': value}
    if req.context.version.allows(versions.BIOS_REGISTRY):
        setting.update({field: None for field in BIOS_REGISTRY_FIELDS})
    setting['links'] = links.self_and_bookmark(
        req.context.public_url, 'nodes', '%s/bios/%s' % (node_uuid, name))
    return setting


def _bios_settings(req: falcon.Request, node_ident: str
                   ) -> tuple[str, dict[str, Any]]:
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


FIRMWARE_FIELDS = ('component', 'initial_version', 'current_version',
                   'last_version_flashed', 'created_at', 'updated_at')


class Firmware:
    """GET /v1/nodes/{node_ident}/firmware (1.86): the components the
    conductor read when the node was last cleaned or serviced."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require(req, versions.FIRMWARE_INTERFACE)
        wire.query(req, {})
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:firmware:get',
                                   ['uuid', 'driver_internal_info'])
        cached = (row['driver_internal_info'] or {}).get(
            FIRMWARE_COMPONENTS_KEY) or []
        wire.send(resp, {'firmware': [
            {field: item.get(field) for field in FIRMWARE_FIELDS}
            for item in cached]})


VMEDIA_BODY = {
    'type': 'object',
    'properties': {
        'device_type': {'type': 'string',
                        'enum': list(VMEDIA_DEVICES) +
                        [d.upper() for d in VMEDIA_DEVICES]},
        'image_url': {'type': 'string', 'minLength': 1, 'maxLength': 2048},
        'image_download_source': {'type': 'string',
                                  'enum': ['http', 'local', 'swift']},
    },
    'required': ['device_type', 'image_url'],
    'additionalProperties': False,
}


def _device_types(req: falcon.Request) -> list[str] | None:
    """``device_types`` of a DELETE: in the query, or (as openstacksdk
    sends it) in a JSON body; comma separated."""
    given = wire.query(req, {'device_types': wire.as_string})[
        'device_types']
    body = wire.read_json(req) if req.content_length else None
    if given is None and isinstance(body, dict):
        given = body.get('device_types')
    if given is None:
        return None
    names = [n.strip().lower() for n in (
        given if isinstance(given, list) else str(given).split(','))
        if str(n).strip()]
    unknown = [n for n in names if n not in VMEDIA_DEVICES]
    if unknown:
        raise exception.InvalidParameterValue(
            err='Unknown virtual media device type %s; expected one of %s'
                % (', '.join(unknown), ', '.join(VMEDIA_DEVICES)))
    return names


class VirtualMedia(base.Resource):
    """POST, DELETE (1.89) and GET (1.93) /v1/nodes/{node_ident}/vmedia:
    virtual media through the node's management interface."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        _require(req, versions.VMEDIA_GET)
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:vmedia:get')
        wire.send(resp, {'vmedia': self.rpcapi.get_virtual_media(
            req.context.ctx, uuid)})

    def on_post(self, req: falcon.Request, resp: falcon.Response,
                node_ident: str) -> None:
        _require(req, versions.VMEDIA)
        wire.query(req, {})
        body = wire.read_json(req)
        schemas.validate('virtual media', body, VMEDIA_BODY)
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:vmedia:attach')
        self.rpcapi.attach_virtual_media(
            req.context.ctx, uuid, body['device_type'].lower(),
            body['image_url'])
        wire.no_content(resp)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  node_ident: str) -> None:
        _require(req, versions.VMEDIA)
        device_types = _device_types(req)
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:vmedia:detach')
        self.rpcapi.detach_virtual_media(req.context.ctx, uuid,
                                         device_types)
        wire.no_content(resp)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    node = '/v1/nodes/{node_ident}'
    app.add_route(node + '/traits', Traits(rpcapi))
    app.add_route(node + '/traits/{trait}', Trait(rpcapi))
    app.add_route(node + '/history', History())
    app.add_route(node + '/children', Children())
    app.add_route(node + '/history/{event}', HistoryEvent())
    app.add_route(node + '/bios', Bios())
    app.add_route(node + '/bios/{setting}', BiosSetting())
    app.add_route(node + '/firmware', Firmware())
    app.add_route(node + '/vmedia', VirtualMedia(rpcapi))
