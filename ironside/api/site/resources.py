"""Falcon resources of the site API."""

from __future__ import annotations

from typing import Any

import falcon

from ironside.api.site.common import document_source
from ironside.api.site.common import isotime
from ironside.api.site.common import json_body
from ironside.api.site.common import send
from ironside.common import exception
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import actions
from ironside.strategy import parameters
from ironside.strategy import seam
from ironside.strategy.reader import fuel
from ironside.strategy.reader import kinds
from ironside.strategy.reader import shipyard


def _required(body: dict[str, Any], name: str) -> Any:
    if body.get(name) in (None, ''):
        raise exception.MissingParameterValue(
            err='The request body needs "%s"' % name)
    return body[name]


def _string(body: dict[str, Any], name: str) -> str:
    value = _required(body, name)
    if not isinstance(value, str):
        raise exception.InvalidParameterValue(
            err='"%s" must be a string' % name)
    return value


def _mapping(body: dict[str, Any], name: str) -> dict[str, Any] | None:
    value = body.get(name)
    if value is not None and not isinstance(value, dict):
        raise exception.InvalidParameterValue(
            err='"%s" must be a JSON object' % name)
    return value


def strategy_view(strategy: site_models.SiteStrategy,
                  detail: bool = False) -> dict[str, Any]:
    groups = strategy.document.get('data', {}).get('groups', [])
    view = {'uuid': strategy.uuid, 'name': strategy.name,
            'schema': strategy.schema,
            'groups': [g['name'] for g in groups],
            'created_at': isotime(strategy.created_at),
            'updated_at': isotime(strategy.updated_at)}
    if detail:
        view['document'] = strategy.document
    return view


def action_view(action: site_models.SiteAction) -> dict[str, Any]:
    return {'uuid': action.uuid, 'action': action.action,
            'strategy': action.strategy_name,
            'revision': action.revision_id, 'state': action.state,
            'result': action.result, 'owner': action.owner,
            'created_at': isotime(action.created_at),
            'started_at': isotime(action.started_at),
            'finished_at': isotime(action.finished_at)}


class Root:
    def __init__(self, base: str) -> None:
        self.base = base

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        send(resp, {
            'name': 'Ironside site API',
            'version': '1',
            'resources': {name: self.base + '/' + name
                          for name in ('strategies', 'actions',
                                       'nodes/filter', 'nodes/status', 'tasks',
                                       'designs/buffer', 'designs/commit',
                                       'designs/documents',
                                       'designs/rendered', 'designs/diff',
                                       'revisions')},
            'actions': list(actions.ACTIONS),
            'schemas': list(shipyard.SCHEMAS) + [fuel.SCHEMA],
            'design_schemas': kinds.REGISTRY.schemas(),
            'action_parameters': sorted(parameters.PARAMETERS),
        })


class Strategies:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        send(resp, {'strategies': [strategy_view(s) for s in
                                    site_db.list_strategies()]})

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req)
        name = body.get('name')
        if name is not None and (not isinstance(name, str) or not name):
            raise exception.InvalidParameterValue(
                err='"name" must be a non-empty string')
        strategy = actions.create_strategy(document_source(body), name)
        resp.location = '%s/%s' % (req.path, strategy.name)
        send(resp, strategy_view(strategy, detail=True), falcon.HTTP_201)


class Validate:
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        errors = shipyard.validate(document_source(json_body(req)))
        send(resp, {'valid': not errors,
                     'errors': [dict(e.as_dict(), text=str(e))
                                for e in errors]})


class Strategy:
    def on_get(self, req: falcon.Request, resp: falcon.Response,
               name: str) -> None:
        send(resp, strategy_view(site_db.get_strategy(name), detail=True))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  name: str) -> None:
        site_db.delete_strategy(name)
        resp.status = falcon.HTTP_204


class Actions:
    def __init__(self, nodes: seam.NodeBackend) -> None:
        self.nodes = nodes

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        limit = req.get_param_as_int('limit', min_value=1)
        send(resp, {'actions': [action_view(a) for a in
                                 site_db.list_actions(limit)]})

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req)
        unknown = sorted(set(body) - {'action', 'strategy', 'parameters',
                                      'documents', 'access'})
        if unknown:
            raise exception.InvalidParameterValue(
                err='Unknown fields: %s' % ', '.join(unknown))
        documents = body.get('documents') or []
        if not isinstance(documents, list):
            raise exception.InvalidParameterValue(
                err='"documents" must be a list of documents')
        strategy = _string(body, 'strategy') \
            if body.get('strategy') is not None else None
        action = actions.create_action(
            self.nodes, _string(body, 'action'), strategy,
            _mapping(body, 'parameters'), documents=documents,
            access=_mapping(body, 'access'))
        resp.location = '%s/%s' % (req.path, action.uuid)
        send(resp, actions.action_report(action.uuid), falcon.HTTP_201)


class Action:
    def __init__(self, nodes: seam.NodeBackend | None = None) -> None:
        self.nodes = nodes

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               uuid: str) -> None:
        send(resp, actions.action_report(uuid, self.nodes))


class ActionAbort:
    def on_post(self, req: falcon.Request, resp: falcon.Response,
                uuid: str) -> None:
        """202: the abort is asked for, and the action winds down (a
        queued one is aborted at once)."""
        action = site_db.abort_action(uuid)
        send(resp, action_view(action), falcon.HTTP_202)


class NodeFilter:
    def __init__(self, nodes: seam.NodeBackend) -> None:
        self.nodes = nodes

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        selectors = shipyard.check_selectors(
            json_body(req).get('selectors', []))
        send(resp, {'nodes': [
            {'name': n.name, 'uuid': n.uuid, 'rack': n.rack,
             'tags': sorted(n.tags), 'labels': dict(sorted(n.labels))}
            for n in self.nodes.resolve(selectors)]})
