"""Falcon resources of site designs and revisions.

Documents are always shown with their secrets masked (``******``).
Versions are named in the query: ``version`` (show, render), and
``base-version`` / ``diff-version`` (diff), as Shipyard names them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import falcon

from ironside.api import wire
from ironside.api.schemas import site as schemas
from ironside.api.site.common import allow
from ironside.api.site.common import isotime
from ironside.api.site.common import json_body
from ironside.api.site.common import send
from ironside.common.secrets import MASK
from ironside.common.secrets import mask_secrets
from ironside.strategy.core.selectors import NodeIndex
from ironside.strategy.designs import masking
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.designs.design import Design
from ironside.strategy.reader.documents import DesignIssue
from ironside.strategy.reader.documents import Source


def _version(req: falcon.Request, name: str, default: str) -> Any:
    value = wire.as_string(name, req.get_param(name))
    return versions.parse(value if value is not None else default)


def issues_view(issues: Iterable[DesignIssue]) -> list[dict[str, Any]]:
    return [issue.as_dict() for issue in issues]


class Buffer:
    """GET: the staged collections; DELETE: discard them."""

    @allow('baremetal:site:design:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        collections = store.buffer()
        send(resp, {'empty': not any(
            c.status != 'unmodified' for c in collections),
            'collections': [{'collection': c.collection, 'status': c.status,
                             'documents': c.documents,
                             'staged_at': isotime(c.staged_at)}
                            for c in collections]})

    @allow('baremetal:site:design:update')
    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        store.discard()
        wire.no_content(resp)


class BufferCollection:
    """POST: create or replace a collection in the buffer."""

    @allow('baremetal:site:design:update')
    def on_post(self, req: falcon.Request, resp: falcon.Response,
                collection: str) -> None:
        body = json_body(req, 'collection', schemas.STAGE)
        staged = store.stage(collection, [Source(s['name'], s['text'])
                                          for s in body['sources']],
                             empty=body.get('empty', False))
        send(resp, {'collection': staged.collection,
                    'status': staged.status,
                    'documents': staged.documents}, 201)


class Commit:
    @allow('baremetal:site:design:update')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req, 'commit', schemas.COMMIT)
        result = store.commit(force=body.get('force', False),
                              dry_run=body.get('dry_run', False))
        send(resp, {'revision': result.revision,
                    'documents': result.documents,
                    'forced': result.forced,
                    'dry_run': result.revision is None,
                    'warnings': issues_view(result.issues)},
             200 if result.revision is None else 201)


class Documents:
    """GET ?version=&collection=: a version's documents."""

    @allow('baremetal:site:design:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = wire.query(req, {'version': wire.as_string,
                                 'collection': wire.as_string})
        version = _version(req, 'version', versions.COMMITTED)
        revision, found = store.documents(version, query['collection'])
        send(resp, {'version': version, 'revision': revision,
                    'documents': [store.shown(d) for d in found]})


def _masked_data(design: Design, kind: str, name: str, value: Any) -> Any:
    document = design.document_of_kind(kind, name)
    if document is not None and masking.secret_document(document):
        return MASK
    return mask_secrets(value)


def render_view(design: Design) -> dict[str, Any]:
    """The design as site actions read it, secrets masked."""
    config = design.configuration
    inventory = design.nodes
    index = NodeIndex(node.site_node(name)
                      for name, node in sorted(inventory.items()))
    strategy = design.strategies.get(config.deployment_strategy)
    return {
        'configuration': {'name': config.name, 'schema': config.schema,
                          'deployment_strategy': config.deployment_strategy},
        'strategy': None if strategy is None else {
            'name': strategy.name, 'schema': strategy.schema,
            'groups': [{'name': g.name, 'critical': g.critical,
                        'depends_on': list(g.depends_on),
                        'nodes': [n.name for n in index.select(
                            g.selectors)]}
                       for g in strategy.groups]},
        'nodes': [{'name': name, 'rack': node.rack, 'tags': list(node.tags),
                   'labels': dict(node.labels), 'roles': list(node.roles),
                   'driver': node.driver,
                   'driver_info': mask_secrets(dict(node.driver_info)),
                   'resource_class': node.resource_class,
                   'os_access': None if node.os_access is None else
                   mask_secrets(dataclasses.asdict(node.os_access))}
                  for name, node in sorted(inventory.items())],
        'configs': {name: _masked_data(design, 'Config', name, value)
                    for name, value in sorted(design.configs.items())},
        'settings': {name: _masked_data(design, 'Settings', name, value)
                     for name, value in sorted(design.settings.items())},
        'kinds': {kind: sorted(models)
                  for kind, models in sorted(design.models.items())},
        'other': [{'collection': d.collection, 'schema': d.schema,
                   'name': d.name} for d in design.other],
    }


class Rendered:
    """GET ?version=: the design as site actions read it."""

    @allow('baremetal:site:design:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {'version': wire.as_string})
        version = _version(req, 'version', versions.COMMITTED)
        design, issues = store.render(version)
        send(resp, dict(render_view(design), version=version,
                        revision=design.revision,
                        issues=issues_view(issues)))


class Diff:
    """GET ?base-version=&diff-version=: what changed."""

    @allow('baremetal:site:design:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {'base-version': wire.as_string,
                         'diff-version': wire.as_string})
        result = store.diff(
            _version(req, 'base-version', versions.COMMITTED),
            _version(req, 'diff-version', versions.BUFFER))
        send(resp, {
            'base': {'version': result.base,
                     'revision': result.base_revision},
            'diff': {'version': result.new,
                     'revision': result.new_revision},
            'collections': result.collections,
            'documents': [d.as_dict() for d in result.documents]})


def revision_view(info: store.RevisionInfo) -> dict[str, Any]:
    view: dict[str, Any] = {
        'revision': info.number, 'created_at': isotime(info.created_at),
        'documents': info.documents, 'forced': info.forced,
        'warnings': info.warnings,
        'tags': [{'tag': t.tag, 'action': t.action,
                  'created_at': isotime(t.created_at)}
                 for t in info.tags]}
    if info.collections is not None:
        view['collections'] = info.collections
    if info.actions is not None:
        view['actions'] = [{'uuid': uuid, 'action': action, 'state': state,
                            'result': result}
                           for uuid, action, state, result in info.actions]
    return view


class Revisions:
    @allow('baremetal:site:revision:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        send(resp, {'revisions': [revision_view(r)
                                  for r in store.revisions()]})


class Revision:
    @allow('baremetal:site:revision:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response,
               revision: str) -> None:
        wire.query(req, {})
        send(resp, revision_view(store.revision(revision)))
