"""/v1/runbooks (1.92): named, ordered steps a project may run.

A runbook is run by manual cleaning (``{"target": "clean", "runbook":
NAME_OR_UUID}``) on a node that an administrator approved it for: before
1.112 by giving the node a trait named like the runbook (so its name
must be a valid trait); from 1.112 by giving the node one of the
runbook's own ``traits`` (``/v1/runbooks/{runbook}/traits``), and the
name may be any logical name. Runbooks belong to a project (``owner``)
or to the system; ``public`` ones are usable by every project. Step
arguments that look like secrets are masked in answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import collection
from ironside.api import links
from ironside.api import nodes
from ironside.api import patch as json_patch
from ironside.api import policy
from ironside.api import schemas
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.api.schemas import common as common_schemas
from ironside.common import exception
from ironside.common import secrets
from ironside.db import models
from ironside.db import runbooks as runbooks_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

STEP = {
    'type': 'object',
    'properties': {
        'interface': common_schemas.STEP_PROPERTIES['interface'],
        'step': {'type': 'string', 'minLength': 1},
        'args': {'type': 'object'},
        'order': schemas.stored_integer_or_digits(models.RunbookStep.order),
    },
    'required': ['interface', 'step', 'order'],
    'additionalProperties': False,
}
SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'name': common_schemas.TRAIT,
        'steps': {'type': 'array', 'items': STEP, 'minItems': 1},
        'disable_ramdisk': {'type': ['boolean', 'null']},
        'extra': {'type': ['object', 'null']},
        'public': {'type': ['boolean', 'null']},
        'owner': {'type': ['string', 'null'], 'maxLength': 255},
    },
    'required': ['steps', 'name'],
    'additionalProperties': False,
}
# From 1.112: any name a URL can hold, and a description.
NAME_V112 = {'type': 'string', 'minLength': 1, 'maxLength': 255,
             'pattern': r'^[A-Za-z0-9\-._~]+$'}
SCHEMA_V112 = dict(SCHEMA, properties=dict(
    SCHEMA['properties'], name=NAME_V112,
    description={'type': ['string', 'null'], 'maxLength': 255}))
PATCH_ALLOWED: tuple[str, ...] = ('disable_ramdisk', 'extra', 'name',
                                  'owner', 'public', 'steps')
DOCUMENT_FIELDS = ('uuid', 'name', 'steps', 'disable_ramdisk', 'extra',
                   'public', 'owner', 'description')
# Patching these needs a rule of its own, besides baremetal:runbook:update.
PATCH_RULES = {'owner': 'baremetal:runbook:update:owner',
               'public': 'baremetal:runbook:update:public'}


def _mask(item: dict, row: dict) -> None:
    for step in item.get('steps') or ():
        if step.get('args'):
            step['args'] = secrets.mask_secrets(step['args'])


VIEW = views.ResourceView(
    resource='runbooks',
    fields=(('uuid', 1), ('name', 1), ('steps', 1), ('disable_ramdisk', 1),
            ('extra', 1), ('public', 1), ('owner', 1),
            ('description', versions.RUNBOOK_TRAITS),
            ('traits', versions.RUNBOOK_TRAITS), ('created_at', 1),
            ('updated_at', 1)),
    default_list_fields=('uuid', 'name'),
    finish=_mask)


def _require(req: falcon.Request) -> None:
    """404 for a GET below 1.92, 405 for the other verbs (as Ironic)."""
    if not req.context.version.allows(versions.RUNBOOKS):
        if req.method == 'GET':
            raise falcon.HTTPNotFound()
        raise falcon.HTTPMethodNotAllowed(['GET'])


def as_row(runbook: models.Runbook) -> dict[str, Any]:
    row = {name: getattr(runbook, name)
           for name in ('id', 'uuid', 'name', 'extra', 'public', 'owner',
                        'disable_ramdisk', 'description', 'created_at',
                        'updated_at')}
    row['steps'] = steps_of(runbook)
    row['traits'] = sorted(runbook.traits or ())
    row['extra'] = row['extra'] or {}
    return row


def steps_of(runbook: models.Runbook) -> list[dict[str, Any]]:
    """The runbook's steps as stored, in their order."""
    return sorted((s.as_step() for s in runbook.steps),
                  key=lambda step: step['order'])


def _schema(version: versions.Version) -> dict:
    return SCHEMA_V112 if version.allows(versions.RUNBOOK_TRAITS) \
        else SCHEMA


def _checked(values: dict[str, Any], schema: dict = SCHEMA_V112
             ) -> dict[str, Any]:
    """Validate a runbook; orders become integers."""
    schemas.validate('runbook', values, schema)
    if values.get('uuid') is not None:
        wire.as_uuid('uuid', values['uuid'])
    seen = set()
    for step in values['steps']:
        key = (step['interface'], step['step'])
        if key in seen:
            raise exception.InvalidDeployTemplate(
                err='Duplicate deploy steps. A template cannot have '
                    'multiple deploy steps with the same interface and '
                    'step. Duplicates: interface: %s, step: %s' % key)
        seen.add(key)
    values = dict(values, steps=[dict(s, order=int(s['order']),
                                      args=s.get('args') or {})
                                 for s in values['steps']])
    values['extra'] = values.get('extra') or {}
    for flag in ('public', 'disable_ramdisk'):
        values[flag] = bool(values.get(flag))
    return values


def authorize(req: falcon.Request, rule: str, runbook: models.Runbook) -> None:
    policy.authorize(rule, req.context.ctx,
                     policy.runbook_target(runbook.owner))


def usable(req: falcon.Request, ident: str,
           rule: str = 'baremetal:runbook:get') -> models.Runbook:
    """The runbook ``ident``, if the caller may use it (or it is public)."""
    runbook = runbooks_db.get(ident)
    if not runbook.public:
        authorize(req, rule, runbook)
    return runbook


def _system_scoped(req: falcon.Request) -> bool:
    return getattr(req.context.ctx, 'system_scope', None) == 'all'


class Runbooks:
    """GET and POST /v1/runbooks."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        query = collection.read_list_query(
            req, VIEW, ('steps', 'extra', 'traits'),
            filters={'project': wire.as_string})
        project = nodes.list_project(req, 'runbook',
                                     query.values['project'])
        found = runbooks_db.list_runbooks(
            project, query.page_size, query.marker, query.sort_key,
            query.sort_dir)
        render = VIEW.renderer(req, query.fields)
        wire.send(resp, collection.answer(
            req, 'runbooks', [render(as_row(r)) for r in found],
            query.page_size, 'runbooks', query.next_params()))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        wire.query(req, {})
        policy.authorize('baremetal:runbook:create', req.context.ctx)
        values = _checked(wire.read_json(req),
                          _schema(req.context.version))
        if not _system_scoped(req):
            project = getattr(req.context.ctx, 'project_id', None)
            if values.get('owner') and values['owner'] != project:
                raise exception.Invalid(
                    'Cannot create a runbook as a project scoped admin '
                    'with an owner other than your own project.')
            if project and values['public']:
                raise exception.Invalid(
                    'Cannot create a public runbook as a project scoped '
                    'admin.')
            values['owner'] = project
        if values.get('uuid') is None:
            values.pop('uuid', None)
        runbook = as_row(runbooks_db.create(values))
        resp.location = links.url(req.context.public_url, 'runbooks',
                                  runbook['uuid'])
        wire.send(resp, VIEW.renderer(req)(runbook), status=201)


class Runbook:
    """GET, PATCH and DELETE /v1/runbooks/{runbook_ident}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               runbook_ident: str) -> None:
        _require(req)
        query = wire.query(req, {'fields': wire.as_fields})
        VIEW.check_fields(req.context.version, query['fields'])
        runbook = as_row(usable(req, runbook_ident))
        wire.send(resp, VIEW.renderer(req, query['fields'])(runbook))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 runbook_ident: str) -> None:
        _require(req)
        wire.query(req, {})
        patch = json_patch.validate(req.context.version, wire.read_json(req))
        allowed = PATCH_ALLOWED
        if req.context.version.allows(versions.RUNBOOK_TRAITS):
            allowed += ('description',)
        roots = json_patch.check_allowed(patch, allowed)
        stored = runbooks_db.get(runbook_ident)
        rules = {PATCH_RULES[r] for r in roots if r in PATCH_RULES}
        if not rules or roots - set(PATCH_RULES):
            rules.add('baremetal:runbook:update')
        for rule in sorted(rules):
            authorize(req, rule, stored)
        runbook = as_row(stored)
        document = {name: runbook[name] for name in DOCUMENT_FIELDS}
        owner = json_patch.values_at(patch, '/owner')
        public = json_patch.values_at(patch, '/public')
        if any(owner) and (public[0] if public else runbook['public']):
            raise exception.PatchError(
                patch=patch, reason='There cannot be an owner for a public '
                                    'runbook')
        result = json_patch.apply(document, patch)
        if public and public[-1]:
            result['owner'] = None
        result = _checked({k: v for k, v in result.items()
                           if v is not None})
        result.setdefault('owner', None)
        result.setdefault('description', None)
        values = json_patch.changes(document, result)
        updated = as_row(runbooks_db.update(
            runbook['uuid'], values,
            expected=json_patch.originals(document, values)))
        wire.send(resp, VIEW.renderer(req)(updated))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  runbook_ident: str) -> None:
        _require(req)
        wire.query(req, {})
        authorize(req, 'baremetal:runbook:delete',
                  runbooks_db.get(runbook_ident))
        runbooks_db.destroy(runbook_ident)
        wire.no_content(resp)


def _traits_of(req: falcon.Request, runbook_ident: str, rule: str
               ) -> models.Runbook:
    """The runbook, for its traits sub-resource (404 below 1.112)."""
    if not req.context.version.allows(versions.RUNBOOK_TRAITS):
        raise falcon.HTTPNotFound()
    wire.query(req, {})
    runbook = runbooks_db.get(runbook_ident)
    if not (rule == 'baremetal:runbook:get' and runbook.public):
        authorize(req, rule, runbook)
    return runbook


def _valid_traits(traits: Any) -> list[str]:
    schemas.validate('traits', traits, {'type': 'array',
                                        'items': common_schemas.TRAIT})
    return sorted(set(traits))


class RunbookTraits:
    """GET, PUT (all) and DELETE (all) /v1/runbooks/{runbook}/traits."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               runbook_ident: str) -> None:
        runbook = _traits_of(req, runbook_ident, 'baremetal:runbook:get')
        wire.send(resp, {'traits': sorted(runbook.traits or ())})

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               runbook_ident: str) -> None:
        runbook = _traits_of(req, runbook_ident, 'baremetal:runbook:update')
        body = wire.read_json(req)
        if not isinstance(body, dict) or set(body) != {'traits'}:
            raise exception.Invalid(
                'A single runbook trait may be added via PUT '
                '/v1/runbooks/<runbook identifier>/traits/<trait> with no '
                'body, or all runbook traits may be replaced via PUT '
                '/v1/runbooks/<runbook identifier>/traits with the list of '
                'traits specified in the request body.')
        runbooks_db.update(runbook.uuid,
                           {'traits': _valid_traits(body['traits'])})
        wire.no_content(resp)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  runbook_ident: str) -> None:
        runbook = _traits_of(req, runbook_ident, 'baremetal:runbook:update')
        runbooks_db.update(runbook.uuid, {'traits': []})
        wire.no_content(resp)


class RunbookTrait:
    """PUT and DELETE /v1/runbooks/{runbook}/traits/{trait}."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               runbook_ident: str, trait: str) -> None:
        runbook = _traits_of(req, runbook_ident, 'baremetal:runbook:update')
        if wire.read_json(req):
            raise exception.Invalid('No body should be provided when '
                                    'adding a trait')
        traits = _valid_traits([trait] + list(runbook.traits or ()))
        runbooks_db.update(runbook.uuid, {'traits': traits})
        resp.location = links.url(req.context.public_url, 'runbooks',
                                  '%s/traits/%s' % (runbook_ident, trait))
        wire.no_content(resp)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  runbook_ident: str, trait: str) -> None:
        runbook = _traits_of(req, runbook_ident, 'baremetal:runbook:update')
        # Removing a trait the runbook does not have is no error (Ironic).
        runbooks_db.update(runbook.uuid, {'traits': [
            t for t in runbook.traits or () if t != trait]})
        wire.no_content(resp)


def check_approved(req: falcon.Request, runbook: models.Runbook,
                   node_uuid: str, node_traits: list[str]) -> None:
    """400 unless the node's traits approve the runbook for it."""
    if not req.context.version.allows(versions.RUNBOOK_TRAITS):
        if runbook.name not in node_traits:
            raise exception.Invalid(
                'This runbook has not been approved for use on this node '
                '%s. Please ask an administrator to add it to your node '
                'traits.' % node_uuid)
        return
    if not runbook.traits:
        raise exception.Invalid(
            'Runbook %s has no traits configured. Please ask an '
            'administrator to add traits to the runbook.' % runbook.uuid)
    if not set(runbook.traits) & set(node_traits):
        raise exception.Invalid(
            "This runbook has not been approved for use on this node %s. "
            "The node does not have any of the runbook's traits %s. Please "
            "ask an administrator to add a matching trait to your node."
            % (node_uuid, sorted(runbook.traits)))


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/runbooks', Runbooks())
    app.add_route('/v1/runbooks/{runbook_ident}', Runbook())
    app.add_route('/v1/runbooks/{runbook_ident}/traits', RunbookTraits())
    app.add_route('/v1/runbooks/{runbook_ident}/traits/{trait}',
                  RunbookTrait())
