"""/v1/deploy_templates (1.55): named deploy steps, chosen by traits.

A node whose instance asks for trait T deploys with the steps of the
template named T, so a template's name must be a valid trait.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import collection
from ironside.api import links
from ironside.api import patch as json_patch
from ironside.api import policy
from ironside.api import schemas
from ironside.api import url_forms
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.api.schemas import common as common_schemas
from ironside.common import exception
from ironside.db import deploy_templates as templates_db
from ironside.db import models

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

SCHEMA = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'name': common_schemas.TRAIT,
        'steps': {'type': 'array', 'items': common_schemas.DEPLOY_STEP,
                  'minItems': 1},
        'extra': {'type': ['object', 'null']},
    },
    'required': ['name', 'steps'],
    'additionalProperties': False,
}
PATCH_ALLOWED = ('name', 'steps', 'extra')

VIEW = views.ResourceView(
    resource='deploy_templates',
    fields=(('uuid', 1), ('name', 1), ('steps', 1), ('extra', 1),
            ('created_at', 1), ('updated_at', 1)),
    default_list_fields=('uuid', 'name'))


def _require(req: falcon.Request) -> None:
    """Below 1.55 Ironic's deploy templates controller refuses a read with
    404 and any other method with 405, before any policy check."""
    if not req.context.version.allows(versions.DEPLOY_TEMPLATES):
        if req.method in ('GET', 'HEAD'):
            raise falcon.HTTPNotFound()
        raise falcon.HTTPMethodNotAllowed(['GET'])


def as_row(template: models.DeployTemplate) -> dict[str, Any]:
    row = {name: getattr(template, name)
           for name in ('id', 'uuid', 'name', 'extra', 'created_at',
                        'updated_at')}
    row['steps'] = [step.as_step() for step in template.steps]
    row['extra'] = row['extra'] or {}
    return row


def _checked(values: dict[str, Any]) -> dict[str, Any]:
    """Validate a template; priorities become integers."""
    schemas.validate('deploy template', values, SCHEMA)
    problem = common_schemas.trait_problem(values['name'])
    if problem:
        raise exception.InvalidDeployTemplate(
            err='the name must be a valid trait: %s' % problem)
    if values.get('uuid') is not None:
        wire.as_uuid('uuid', values['uuid'])
    seen = set()
    steps = []
    for step in values['steps']:
        key = (step['interface'], step['step'])
        if key in seen:
            raise exception.InvalidDeployTemplate(
                err='duplicate deploy steps for %s.%s. Deploy steps from '
                    'all deploy templates matching a node\'s instance '
                    'traits cannot have the same interface and step' % key)
        seen.add(key)
        steps.append(dict(step, priority=int(step['priority'])))
    values = dict(values, steps=steps)
    values['extra'] = values.get('extra') or {}
    return values


class DeployTemplates:
    """GET and POST /v1/deploy_templates."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        query = collection.read_list_query(
            req, VIEW, ('steps', 'extra'), authorize=lambda: policy.authorize(
                'baremetal:deploy_template:get', req.context.ctx))
        templates = templates_db.list_templates(
            query.page_size, query.marker, query.sort_key, query.sort_dir)
        render = VIEW.renderer(req, query.fields)
        wire.send(resp, collection.answer(
            req, 'deploy_templates',
            [render(as_row(t)) for t in templates], query.page_size,
            'deploy_templates', query.next_params()))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        wire.query(req, {})
        policy.authorize('baremetal:deploy_template:create', req.context.ctx)
        values = _checked(wire.read_json(req))
        if values.get('uuid') is None:
            values.pop('uuid', None)
        template = as_row(templates_db.create(values))
        resp.location = links.url(req.context.public_url,
                                  'deploy_templates', template['uuid'])
        wire.send(resp, VIEW.renderer(req)(template), status=201)


class DeployTemplate:
    """GET, PATCH and DELETE /v1/deploy_templates/{template_ident}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               template_ident: str) -> None:
        _require(req)
        query = wire.query(req, {'fields': wire.as_fields})
        policy.authorize('baremetal:deploy_template:get', req.context.ctx)
        VIEW.check_fields(req.context.version, query['fields'])
        template = as_row(url_forms.find(
            req, template_ident, templates_db.get,
            exception.DeployTemplateNotFound))
        wire.send(resp, VIEW.renderer(req, query['fields'])(template))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 template_ident: str) -> None:
        _require(req)
        wire.query(req, {})
        policy.authorize('baremetal:deploy_template:update', req.context.ctx)
        template = as_row(url_forms.find(
            req, template_ident, templates_db.get,
            exception.DeployTemplateNotFound))
        patch = json_patch.validate(req.context.version, wire.read_json(req))
        json_patch.check_allowed(patch, PATCH_ALLOWED)
        document = {name: template[name]
                    for name in ('uuid', 'name', 'steps', 'extra')}
        result = _checked(json_patch.apply(document, patch))
        values = json_patch.changes(document, result)
        updated = as_row(templates_db.update(
            template['uuid'], values,
            expected=json_patch.originals(document, values)))
        wire.send(resp, VIEW.renderer(req)(updated))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  template_ident: str) -> None:
        _require(req)
        wire.query(req, {})
        policy.authorize('baremetal:deploy_template:delete', req.context.ctx)
        url_forms.find(req, template_ident, templates_db.destroy,
                       exception.DeployTemplateNotFound)
        wire.no_content(resp)


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/deploy_templates', DeployTemplates())
    app.add_route('/v1/deploy_templates/{template_ident}', DeployTemplate())
