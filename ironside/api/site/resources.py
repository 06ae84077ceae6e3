"""Falcon resources of the site API."""

from __future__ import annotations

from typing import Any

import falcon

from ironside.api import collection
from ironside.api import policy
from ironside.api import wire
from ironside.api.schemas import site as schemas
from ironside.api.site import reports
from ironside.api.site import scope
from ironside.api.site.common import allow
from ironside.api.site.common import isotime
from ironside.api.site.common import json_body
from ironside.api.site.common import send
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import actions
from ironside.strategy.core import selectors as selectors_model
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.nodes import seam
from ironside.strategy.plan import parameters
from ironside.strategy.reader import fuel
from ironside.strategy.reader import graph_files
from ironside.strategy.reader import kinds
from ironside.strategy.reader import shipyard


def strategy_view(strategy: site_models.SiteStrategy,
                  detail: bool = False) -> dict[str, Any]:
    groups = strategy.document.get('data', {}).get('groups', [])
    view: dict[str, Any] = {
        'uuid': strategy.uuid, 'name': strategy.name,
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

    @allow('baremetal:site:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
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
    @allow('baremetal:site:strategy:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        send(resp, {'strategies': [strategy_view(s) for s in
                                    site_db.list_strategies()]})

    @allow('baremetal:site:strategy:create')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req, 'strategy', schemas.STRATEGY)
        strategy = actions.create_strategy(body['document'],
                                           body.get('name'))
        resp.location = '%s/%s' % (req.path, strategy.name)
        send(resp, strategy_view(strategy, detail=True), 201)


class Validate:
    @allow('baremetal:site:strategy:validate')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req, 'strategy', schemas.ONE_DOCUMENT)
        source = body.get('name')
        errors = [graph_files.FileIssue(source, e) for e in
                  shipyard.validate(body['document'], source or '<input>')]
        send(resp, {'valid': not errors,
                    'errors': [e.as_dict() for e in errors]})


class Strategy:
    @allow('baremetal:site:strategy:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response,
               name: str) -> None:
        wire.query(req, {})
        send(resp, strategy_view(site_db.get_strategy(name), detail=True))

    @allow('baremetal:site:strategy:delete')
    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  name: str) -> None:
        site_db.delete_strategy(name)
        wire.no_content(resp)


# GET /v1/actions: filters (a state or outcome, an action, a design
# revision, each list comma-separated), then Ironic's paging and sorting.
_LIST_QUERY: dict[str, wire.Reader] = {
    'state': wire.as_string_list, 'action': wire.as_string_list,
    'revision': wire.as_integer, 'marker': wire.as_uuid,
    'limit': wire.as_integer, 'sort_key': wire.as_string,
    'sort_dir': wire.as_string}


def _one_of(name: str, given: list[str] | None,
            allowed: tuple[str, ...]) -> list[str]:
    """``given`` (none: no filter); 400 naming what ``name`` takes."""
    for value in given or ():
        if value not in allowed:
            raise wire.invalid('Invalid %s "%s"; expected one of %s'
                               % (name, value, ', '.join(allowed)))
    return list(given or ())


def _revision(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise wire.invalid('revision must be at least 1, not %d' % value)
    return value


class Actions:
    def __init__(self, nodes: seam.NodeBackend) -> None:
        self.nodes = nodes

    @allow('baremetal:site:action:list')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = wire.query(req, _LIST_QUERY)
        limit = query['limit']
        if limit is not None and limit < 1:
            raise wire.invalid('limit must be at least 1, not %d' % limit)
        seen = None
        if not policy.check('baremetal:site:action:list_all',
                            req.context.ctx):
            seen = scope.visible_uuids(req)
        found = site_db.list_actions(
            limit, states=_one_of('state', query['state'],
                                  site_db.ACTION_STATE_FILTERS),
            actions=_one_of('action', query['action'], actions.ACTIONS),
            revision=_revision(query['revision']), marker=query['marker'],
            sort_key=_one_of('sort_key', [query['sort_key'] or
                                          'created_at'],
                             site_db.ACTION_SORT_KEYS)[0],
            sort_dir=collection.sort_dir(query['sort_dir'] or 'desc'))
        send(resp, {'actions': [
            action_view(a) for a in found
            if scope.action_visible(req, a.id, seen)]})

    @allow('baremetal:site:action:create')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req, 'site action', schemas.ACTION)
        action = actions.create_action(
            scope.ScopedNodes(self.nodes, req), body['action'],
            body.get('strategy'), body.get('parameters'),
            documents=body.get('documents') or [],
            access=body.get('access'))
        resp.location = '%s/%s' % (req.path, action.uuid)
        send(resp, reports.report(action.uuid), 201)


class Action:
    def __init__(self, nodes: seam.NodeBackend | None = None) -> None:
        self.nodes = nodes

    @allow('baremetal:site:action:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response,
               uuid: str) -> None:
        wire.query(req, {})
        scope.check_action(req, uuid, scope.SEE)
        send(resp, reports.report(uuid, self.nodes))


class ActionAbort:
    @allow('baremetal:site:action:abort')
    def on_post(self, req: falcon.Request, resp: falcon.Response,
                uuid: str) -> None:
        """202: the abort is asked for, and the action winds down (a
        queued one is aborted at once)."""
        scope.check_action(req, uuid, scope.ACT)
        action = site_db.abort_action(uuid)
        send(resp, action_view(action), 202)


class NodeFilter:
    def __init__(self, nodes: seam.NodeBackend) -> None:
        self.nodes = nodes

    @allow('baremetal:site:node:filter')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req, 'node filter', schemas.NODE_FILTER)
        selectors = shipyard.check_selectors(body.get('selectors', []))
        seen = scope.visible_uuids(req)
        if 'revision' in body:
            found = self._in_design(selectors, body['revision'])
        else:
            found = [(n, n.uuid) for n in self.nodes.resolve(selectors)]
        send(resp, {'nodes': [
            {'name': n.name, 'uuid': uuid, 'rack': n.rack,
             'tags': sorted(n.tags), 'labels': dict(sorted(n.labels))}
            for n, uuid in found
            if seen is None or uuid in seen]})

    def _in_design(self, selectors: list, version: Any
                   ) -> list[tuple[selectors_model.SiteNode, str | None]]:
        """The inventory nodes of a design version the selectors select,
        as the design describes them (what an action on it would deploy,
        before it updates the nodes), each with its UUID: None for a node
        not enrolled yet."""
        design = store.design(versions.parse(version))
        uuids = {name: n.uuid for name, n in
                 self.nodes.find_nodes(sorted(design.nodes)).items()}
        # A node not enrolled yet is selected by its name alone.
        inventory = sorted((node.site_node(uuids.get(name, name))
                            for name, node in design.nodes.items()),
                           key=lambda n: n.name)
        return [(n, uuids.get(n.name))
                for n in selectors_model.select(selectors, inventory)]
