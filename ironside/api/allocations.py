"""/v1/allocations (1.52): ask for a node matching criteria.

Creating an allocation records it as ``allocating`` and hands it to a
conductor, which picks an available node with the resource class and
traits asked (among the candidates, if given), links it, and marks the
allocation ``active`` (or ``error`` with ``last_error``). Clients poll
the allocation, as metalsmith and ``--wait`` do.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING
from typing import Any

import falcon
from oslo_utils import uuidutils

from ironside.api import base
from ironside.api import collection
from ironside.api import links
from ironside.api import node_access
from ironside.api import patch as json_patch
from ironside.api import policy
from ironside.api import schemas
from ironside.api import url_forms
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.api.schemas import common as common_schemas
from ironside.common import exception
from ironside.db import allocations as allocations_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

CREATE_SCHEMA = {
    'type': 'object',
    'properties': {
        'candidate_nodes': {'type': ['array', 'null'],
                            'items': {'type': 'string'}},
        'extra': {'type': ['object', 'null']},
        'name': {'type': ['string', 'null']},
        'node': {'type': ['string', 'null']},
        'owner': {'type': ['string', 'null']},
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'traits': {'type': ['array', 'null'], 'items': common_schemas.TRAIT},
        'uuid': {'type': ['string', 'null']},
    },
    'additionalProperties': False,
}
PATCH_SCHEMA = {
    'type': 'object',
    'properties': {'name': {'type': ['string', 'null']},
                   'extra': {'type': ['object', 'null']}},
}

VIEW = views.ResourceView(
    resource='allocations',
    fields=(('uuid', 1), ('name', 1), ('node_uuid', 1), ('state', 1),
            ('last_error', 1), ('resource_class', 1), ('traits', 1),
            ('candidate_nodes', 1), ('extra', 1), ('created_at', 1),
            ('updated_at', 1), ('owner', versions.ALLOCATION_OWNER)))
UNSORTABLE = ('extra', 'candidate_nodes', 'traits')


def _require(req: falcon.Request) -> None:
    if not req.context.version.allows(versions.ALLOCATIONS):
        raise falcon.HTTPNotFound()


def _target(row: dict[str, Any]) -> dict[str, Any]:
    return {'allocation.owner': row['owner']} if row.get('owner') else {}


def _get(req: falcon.Request, ident: str, rule: str) -> dict[str, Any]:
    wire.as_uuid_or_name('allocation', ident)
    row = url_forms.find(req, ident, allocations_db.get,
                         exception.AllocationNotFound)
    context = req.context.ctx
    if not policy.check(rule, context, _target(row)):
        if policy.check('baremetal:allocation:get', context, _target(row)):
            policy.authorize(rule, context, _target(row))
        raise exception.AllocationNotFound(allocation=ident)
    return row


def _list_owner(req: falcon.Request, owner: str | None) -> str | None:
    context = req.context.ctx
    if policy.check('baremetal:allocation:list_all', context):
        return owner
    policy.authorize('baremetal:allocation:list', context)
    project = getattr(context, 'project_id', None)
    if owner is not None and owner != project:
        raise exception.NotAuthorized()
    return project


class Allocations(base.Resource):
    """GET and POST /v1/allocations."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        version = req.context.version
        query = wire.query(req, {
            'node': wire.as_uuid_or_name, 'resource_class': wire.as_string,
            'state': wire.as_string, 'owner': wire.as_string,
            'marker': wire.as_uuid, 'limit': wire.as_integer,
            'sort_key': wire.as_string, 'sort_dir': wire.as_string,
            'fields': wire.as_fields})
        if query['owner'] is not None:
            versions.require(version, versions.ALLOCATION_OWNER,
                             'the owner filter')
        VIEW.check_fields(version, query['fields'])
        sort_key = collection.sort_key(query['sort_key'], UNSORTABLE)
        filters = {'resource_class': query['resource_class'],
                   'state': query['state'],
                   'owner': _list_owner(req, query['owner'])}
        if query['node']:
            try:
                filters['node_id'] = node_access.get_node(
                    req, query['node'], 'baremetal:node:get', ['id'])['id']
            except exception.NodeNotFound as exc:
                exc.code = HTTPStatus.BAD_REQUEST
                raise
        page_size = collection.limit(query['limit'])
        rows = allocations_db.list_allocations(
            filters, page_size, query['marker'], sort_key,
            collection.sort_dir(query['sort_dir']))
        render = VIEW.renderer(req, query['fields'])
        params = {k: v for k, v in query.items()
                  if k not in ('limit', 'marker')}
        wire.send(resp, collection.answer(
            req, 'allocations', [render(row) for row in rows], page_size,
            'allocations', params))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        if not req.context.version.allows(versions.ALLOCATIONS):
            raise falcon.HTTPMethodNotAllowed(['GET'])
        wire.query(req, {})
        version = req.context.version
        body = wire.read_json(req)
        schemas.validate('allocation', body, CREATE_SCHEMA)
        values = {k: v for k, v in body.items() if v is not None}
        self._authorize(req, values)
        if values.get('uuid'):
            wire.as_uuid('uuid', values['uuid'])
        name = values.get('name')
        if name and (not wire.is_logical_name(name) or
                     uuidutils.is_uuid_like(name)):
            raise exception.Invalid("Cannot create allocation with invalid "
                                    "name '%s'" % name)
        node = None
        # An empty node names none (fuzzing found it stored as a column).
        node_ident = values.pop('node', None)
        if node_ident:
            if not version.allows(versions.ALLOCATION_BACKFILL):
                raise exception.Invalid('Cannot set node when creating an '
                                        'allocation in this API version')
            try:
                node = node_access.get_node(req, node_ident,
                                            'baremetal:node:get')
            except exception.NodeNotFound as exc:
                exc.code = HTTPStatus.BAD_REQUEST
                raise
        if not values.get('resource_class'):
            if node is None:
                raise exception.Invalid('The resource_class field is '
                                        'mandatory when not backfilling')
            values['resource_class'] = node['resource_class']
        if values.get('candidate_nodes'):
            values['candidate_nodes'] = self._candidates(
                req, values['candidate_nodes'])
        values.setdefault('uuid', uuidutils.generate_uuid())
        values['traits'] = sorted(set(values.get('traits') or []))
        # Answered as created (allocating), as Ironic: the worker may
        # already have moved on, and the client polls for the outcome.
        created = self.rpcapi.create_allocation(
            req.context.ctx, values,
            node_uuid=node['uuid'] if node is not None else None)
        resp.location = links.url(req.context.public_url, 'allocations',
                                  created['uuid'])
        wire.send(resp, VIEW.renderer(req)(created), status=201)

    def _authorize(self, req: falcon.Request, values: dict[str, Any]) -> None:
        version = req.context.version
        context = req.context.ctx
        if 'owner' in values:
            versions.require(version, versions.ALLOCATION_OWNER, 'owner')
        policy.authorize('baremetal:allocation:create', context)
        if not policy.enforced() or policy.check(
                'baremetal:allocation:create_restricted', context):
            return
        project = getattr(context, 'project_id', None)
        if values.get('owner') and values['owner'] != project:
            raise exception.NotAuthorized(
                'Cannot create allocation with an owner Project ID value %s '
                'not matching the requester Project ID %s. Policy '
                'baremetal:allocation:create_restricted is required for '
                'this capability.' % (values['owner'], project))
        values['owner'] = project

    def _candidates(self, req: falcon.Request, idents: list[str]) -> list[str]:
        uuids = []
        for ident in idents:
            try:
                row = node_access.get_node(req, ident, 'baremetal:node:get',
                                           ['uuid'])
            except (exception.NodeNotFound,
                    exception.InvalidIdentity) as exc:
                raise exception.Invalid('Candidate node %s is invalid: %s'
                                        % (ident, exc)) from None
            uuids.append(row['uuid'])
        return list(dict.fromkeys(uuids))


class Allocation(base.Resource):
    """GET, PATCH (1.57) and DELETE /v1/allocations/{allocation_ident}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               allocation_ident: str) -> None:
        _require(req)
        query = wire.query(req, {'fields': wire.as_fields})
        VIEW.check_fields(req.context.version, query['fields'])
        row = _get(req, allocation_ident, 'baremetal:allocation:get')
        wire.send(resp, VIEW.renderer(req, query['fields'])(row))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 allocation_ident: str) -> None:
        _require(req)
        if not req.context.version.allows(versions.ALLOCATION_UPDATE):
            raise falcon.HTTPMethodNotAllowed(['GET', 'DELETE'])
        wire.query(req, {})
        row = _get(req, allocation_ident, 'baremetal:allocation:update')
        patch = json_patch.validate(req.context.version, wire.read_json(req))
        json_patch.check_allowed(patch, ('name', 'extra'))
        document = {'name': row['name'], 'extra': row['extra']}
        result = json_patch.apply(document, patch)
        schemas.validate('allocation', result, PATCH_SCHEMA)
        values = json_patch.changes(document, result)
        if values.get('name') is not None and (
                not wire.is_logical_name(values['name']) or
                uuidutils.is_uuid_like(values['name'])):
            raise exception.Invalid("Cannot update allocation with invalid "
                                    "name '%s'" % values['name'])
        expected = json_patch.originals(document, values)
        if 'extra' in values and values['extra'] is None:
            values['extra'] = {}
        updated = allocations_db.update(row['id'], values, expected=expected)
        wire.send(resp, VIEW.renderer(req)(updated))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  allocation_ident: str) -> None:
        if not req.context.version.allows(versions.ALLOCATIONS):
            raise falcon.HTTPMethodNotAllowed(['GET'])
        wire.query(req, {})
        row = _get(req, allocation_ident, 'baremetal:allocation:delete')
        self.rpcapi.destroy_allocation(req.context.ctx, row['uuid'])
        wire.no_content(resp)


class NodeAllocation(base.Resource):
    """GET and DELETE /v1/nodes/{node_ident}/allocation."""

    def _allocation(self, req: falcon.Request, node_ident: str, rule: str
                    ) -> dict[str, Any]:
        _require(req)
        node = node_access.get_node(req, node_ident, 'baremetal:node:get',
                                    ['uuid', 'allocation_id'])
        if not node['allocation_id']:
            raise exception.AllocationNotFound(
                allocation='of node %s' % node['uuid'])
        return _get(req, allocations_db.get(node['allocation_id'])['uuid'],
                    rule)

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        query = wire.query(req, {'fields': wire.as_fields})
        VIEW.check_fields(req.context.version, query['fields'])
        row = self._allocation(req, node_ident, 'baremetal:allocation:get')
        wire.send(resp, VIEW.renderer(req, query['fields'])(row))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  node_ident: str) -> None:
        wire.query(req, {})
        row = self._allocation(req, node_ident,
                               'baremetal:allocation:delete')
        self.rpcapi.destroy_allocation(req.context.ctx, row['uuid'])
        wire.no_content(resp)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/allocations', Allocations(rpcapi))
    app.add_route('/v1/allocations/{allocation_ident}', Allocation(rpcapi))
    app.add_route('/v1/nodes/{node_ident}/allocation',
                  NodeAllocation(rpcapi))
