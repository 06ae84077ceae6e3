"""/v1/inspection_rules (1.96), and a node's inventory (1.81).

Rules run on what an inspection found (see ironside.common.inspection_rules
for what they may say). A ``sensitive`` rule's conditions and actions are
never shown (``null``), and a rule cannot stop being sensitive. Rules
are identified by UUID only. ``GET /v1/nodes/{node}/inventory`` shows
what the node's last inspection stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon
from oslo_utils import strutils

from ironside.api import collection
from ironside.api import links
from ironside.api import node_access
from ironside.api import patch as json_patch
from ironside.api import policy
from ironside.api import schemas
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.common import exception
from ironside.common import inspection_rules as rules
from ironside.db import inspection_rules as rules_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

PATCH_ALLOWED = ('description', 'phase', 'priority', 'sensitive',
                 'conditions', 'actions')
DOCUMENT_FIELDS = ('uuid',) + PATCH_ALLOWED


def _hide_sensitive(item: dict, row: dict) -> None:
    if row.get('sensitive'):
        for name in ('conditions', 'actions'):
            if name in item:
                item[name] = None


VIEW = views.ResourceView(
    resource='inspection_rules',
    fields=tuple((name, versions.INSPECTION_RULES) for name in (
        'uuid', 'description', 'phase', 'priority', 'sensitive',
        'conditions', 'actions', 'created_at', 'updated_at')),
    default_list_fields=('uuid', 'priority', 'phase', 'description'),
    finish=_hide_sensitive)


def _require(req: falcon.Request) -> None:
    """404 for a GET below 1.96, 405 for the other verbs (as Ironic)."""
    if not req.context.version.allows(versions.INSPECTION_RULES):
        if req.method == 'GET':
            raise falcon.HTTPNotFound()
        raise falcon.HTTPMethodNotAllowed(['GET'])


def _pieces(pieces: list[dict], keep: tuple[str, ...]) -> list[dict]:
    """Conditions or actions as stored: op, args, and a loop if any."""
    stored = []
    for piece in pieces:
        item = {'op': piece['op'], 'args': piece['args']}
        if piece.get('loop'):
            item.update({name: piece[name] for name in keep
                         if name in piece})
            if 'multiple' in keep:
                item.setdefault('multiple', 'any')
        stored.append(item)
    return stored


def _from_strings(values: Any) -> Any:
    """``priority`` and ``sensitive`` given as strings, as the ``openstack
    baremetal inspection rule create`` command sends them, as their
    values (Ironic refuses them, so its own client cannot set them)."""
    if not isinstance(values, dict):
        return values
    values = dict(values)
    priority = values.get('priority')
    if isinstance(priority, str) and priority.strip().isdigit():
        values['priority'] = int(priority)
    sensitive = values.get('sensitive')
    if isinstance(sensitive, str):
        try:
            values['sensitive'] = strutils.bool_from_string(sensitive,
                                                            strict=True)
        except ValueError:
            pass                    # the schema names the problem
    return values


def _checked(values: dict[str, Any]) -> dict[str, Any]:
    """A valid rule with its defaults; 400 naming what is wrong."""
    values = _from_strings(values)
    schemas.validate('inspection rule', values, rules.SCHEMA)
    if values.get('uuid') is not None:
        wire.as_uuid('uuid', values['uuid'])
    rules.check_rule(values)
    return {
        'description': values.get('description'),
        'phase': values.get('phase') or 'main',
        'priority': values.get('priority', 0),
        'sensitive': bool(values.get('sensitive')),
        'conditions': _pieces(values.get('conditions') or [],
                              ('loop', 'multiple')),
        'actions': _pieces(values['actions'], ('loop',)),
    }


def _authorize(req: falcon.Request, action: str) -> None:
    policy.authorize('baremetal:inspection_rule:%s' % action,
                     req.context.ctx)


class InspectionRules:
    """GET, POST and DELETE (all) /v1/inspection_rules."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        query = collection.read_list_query(
            req, VIEW, ('conditions', 'actions'),
            filters={'phase': wire.as_string},
            authorize=lambda: _authorize(req, 'get'))
        found = rules_db.list_rules(
            query.values['phase'], query.page_size, query.marker,
            query.sort_key, query.sort_dir)
        render = VIEW.renderer(req, query.fields)
        wire.send(resp, collection.answer(
            req, 'inspection_rules', [render(r) for r in found],
            query.page_size, 'inspection_rules', query.next_params()))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        wire.query(req, {})
        _authorize(req, 'create')
        body = wire.read_json(req)
        values = _checked(body)
        if isinstance(body, dict) and body.get('uuid'):
            values['uuid'] = body['uuid']
        rule = rules_db.create(values)
        resp.location = links.url(req.context.public_url,
                                  'inspection_rules', rule['uuid'])
        wire.send(resp, VIEW.renderer(req)(rule), status=201)

    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        wire.query(req, {})
        _authorize(req, 'delete')
        rules_db.destroy_all()
        wire.no_content(resp)


class InspectionRule:
    """GET, PATCH and DELETE /v1/inspection_rules/{rule_uuid}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               rule_uuid: str) -> None:
        _require(req)
        wire.as_uuid('inspection_rule_uuid', rule_uuid)
        query = wire.query(req, {'fields': wire.as_fields})
        _authorize(req, 'get')
        VIEW.check_fields(req.context.version, query['fields'])
        wire.send(resp, VIEW.renderer(req, query['fields'])(
            rules_db.get(rule_uuid)))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 rule_uuid: str) -> None:
        _require(req)
        wire.as_uuid('inspection_rule_uuid', rule_uuid)
        wire.query(req, {})
        _authorize(req, 'update')
        patch = json_patch.validate(req.context.version, wire.read_json(req))
        json_patch.check_allowed(patch, PATCH_ALLOWED)
        stored = rules_db.get(rule_uuid)
        document = {name: stored[name] for name in DOCUMENT_FIELDS}
        document['conditions'] = document['conditions'] or []
        result = json_patch.apply(document, patch)
        result.pop('uuid', None)
        if stored['sensitive'] and not result.get('sensitive'):
            raise exception.PatchError(
                patch=patch, reason='Inspection rules cannot have the '
                                    'sensitive flag unset.')
        result = _checked({k: v for k, v in result.items()
                           if v is not None})
        values = json_patch.changes(document, result)
        values.pop('uuid', None)
        updated = rules_db.update(
            stored['uuid'], values,
            expected=json_patch.originals(document, values))
        wire.send(resp, VIEW.renderer(req)(updated))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  rule_uuid: str) -> None:
        _require(req)
        wire.as_uuid('inspection_rule_uuid', rule_uuid)
        wire.query(req, {})
        _authorize(req, 'delete')
        rules_db.destroy(rule_uuid)
        wire.no_content(resp)


class NodeInventory:
    """GET /v1/nodes/{node_ident}/inventory (1.81)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        if not req.context.version.allows(versions.NODE_INVENTORY):
            raise falcon.HTTPNotFound()
        wire.query(req, {})
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:inventory:get',
                                   ['id', 'uuid'])
        wire.send(resp, rules_db.get_inventory(row['id'], row['uuid']))


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/inspection_rules', InspectionRules())
    app.add_route('/v1/inspection_rules/{rule_uuid}', InspectionRule())
    app.add_route('/v1/nodes/{node_ident}/inventory', NodeInventory())
