"""The API of a resource that belongs to a node: ports and port groups.

Both are read from the database and changed through the conductor of
their node; their access follows the node's (see :mod:`.node_owned`).
They differ in fields, filters and checks, which a :class:`Kind` holds;
the flow of each verb is the same and lives here once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

import falcon

from ironside.api import base
from ironside.api import collection
from ironside.api import links
from ironside.api import node_owned
from ironside.api import nodes
from ironside.api import schemas
from ironside.api import url_forms
from ironside.api import versions
from ironside.api import views
from ironside.api import wire
from ironside.common import exception


def _no_links(node_id: int, values: dict[str, Any]) -> None:
    """A resource that refers to no other resource of its node."""


def _any_patch(version: versions.Version, patch: Sequence[dict],
               row: dict[str, Any], values: dict[str, Any]) -> None:
    """A resource any valid patch may change."""


@dataclasses.dataclass(frozen=True)
class Kind:
    """What tells ports and port groups apart."""

    name: str                           # 'port': rules, schema, messages
    plural: str                         # 'ports': answers and URLs
    minor: int                          # the version that added it
    view: views.ResourceView
    unsortable: tuple[str, ...]
    schema: dict                        # of a created one
    patch_schema: dict                  # of a patched one
    patch_allowed: tuple[str, ...]
    # Removing one of ``documents`` empties it; removing one of
    # ``flags`` changes nothing.
    documents: tuple[str, ...]
    flags: tuple[str, ...]
    # The route's name of the resource's id ('port_ident').
    path_field: str
    get: Callable[[str], dict[str, Any]]
    list: Callable[..., list[dict[str, Any]]]
    not_found: Callable[[str], exception.NotFound]
    # Checks and normalises the values of a create or a patch, in place.
    check_values: Callable[[dict[str, Any]], None]
    # Values of a create before they are checked (defaults).
    prepare_create: Callable[[versions.Version, dict[str, Any]], None]
    # Turns references to other resources of the node (by UUID) into
    # their ids, given the id of the node the resource is to be on.
    resolve_links: Callable[[int, dict[str, Any]], None] = _no_links
    # Refuses a patch (as sent) of the stored ``row`` that makes the
    # ``values`` changes (links resolved), where the changes alone do not
    # tell why.
    check_patch: Callable[[versions.Version, Sequence[dict],
                           dict[str, Any], dict[str, Any]], None] = _any_patch

    def rule(self, verb: str) -> str:
        return 'baremetal:%s:%s' % (self.name, verb)

    def rpc(self, rpcapi: Any, verb: str) -> Callable[..., Any]:
        """The conductor's ``verb`` (create, update, destroy) of this
        kind: ``rpcapi.create_port``, ``rpcapi.update_portgroup``..."""
        return getattr(rpcapi, '%s_%s' % (verb, self.name))


def require(req: falcon.Request, minor: int) -> None:
    """404 below the version that added the resource (or route)."""
    if not req.context.version.allows(minor):
        raise falcon.HTTPNotFound()


def list_readers(detail: bool, **filters: wire.Reader
                 ) -> dict[str, wire.Reader]:
    """The query parameters a list takes: paging, sorting, ``filters``
    and, except on a ``/detail`` endpoint, ``fields`` and ``detail``."""
    readers = dict(collection.PAGING_READERS, **filters)
    if not detail:
        readers.update(collection.FIELDS_READERS)
    return readers


def send_page(req: falcon.Request, resp: falcon.Response, kind: Kind,
              query: dict[str, Any], filters: dict[str, Any],
              path: str, detail: bool) -> None:
    """Answer a list with one page of rows matching ``filters``.

    ``query`` is what :func:`list_readers` read; ``path`` the list's
    URL below /v1, for the ``next`` link; ``detail`` whether it is a
    ``/detail`` endpoint (every field). The caller's project limits the
    rows as policy says.
    """
    version = req.context.version
    sort_key = collection.sort_key(query['sort_key'], kind.unsortable)
    kind.view.check_newer(version, [sort_key])
    kind.view.check_fields(version, query.get('fields'))
    fields = None if detail else collection.fields_or_default(
        version, query['fields'], query['detail'],
        kind.view.default_list_fields)
    filters = dict(filters, project=nodes.list_project(req, kind.name))
    page_size = collection.limit(query['limit'])
    rows = kind.list(filters, page_size, query['marker'], sort_key,
                     collection.sort_dir(query['sort_dir']))
    render = kind.view.renderer(req, fields)
    if detail:
        path += '/detail'
    params = {k: v for k, v in query.items()
              if k not in ('limit', 'marker')}
    wire.send(resp, collection.answer(
        req, kind.plural, [render(row) for row in rows], page_size, path,
        params))


class Collection(base.Resource):
    """POST /v1/ports or /v1/portgroups; GET is ``lister``'s (the list
    of every one)."""

    def __init__(self, kind: Kind, rpcapi: Any, lister: Any) -> None:
        super().__init__(rpcapi)
        self.kind = kind
        self.lister = lister

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self.lister.on_get(req, resp)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        kind = self.kind
        require(req, kind.minor)
        wire.query(req, {})
        version = req.context.version
        body = wire.read_json(req)
        schemas.validate(kind.name, body, kind.schema)
        values = dict(body)
        kind.view.check_newer(version, [name for name, value
                                        in values.items()
                                        if value is not None])
        kind.prepare_create(version, values)
        kind.check_values(values)
        node = node_owned.node_for_body(
            req, values.pop('node_ident', None) or
            wire.uuid('node_uuid', values.pop('node_uuid', None)),
            kind.rule('create'))
        values['node_id'] = node['id']
        kind.resolve_links(node['id'], values)
        values = {k: v for k, v in values.items() if v is not None}
        uuid = kind.rpc(self.rpcapi, 'create')(req.context.ctx, node['uuid'],
                                                values)
        resp.location = links.url(req.context.public_url, kind.plural,
                                  uuid)
        wire.send(resp, kind.view.renderer(req)(kind.get(uuid)),
                  status=201)


class Item(base.Resource):
    """GET, PATCH and DELETE of one port or port group."""

    def __init__(self, kind: Kind, rpcapi: Any) -> None:
        super().__init__(rpcapi)
        self.kind = kind

    def _get(self, req: falcon.Request, ident: str, verb: str
             ) -> dict[str, Any]:
        kind = self.kind
        require(req, kind.minor)
        wire.as_uuid_or_name(kind.name, ident)
        # Ironic retries a name with its dropped .json for port groups.
        row = url_forms.find(req, ident, kind.get,
                             exception.PortgroupNotFound)
        node_owned.authorize(req, kind.rule(verb), row, kind.not_found(ident))
        return row

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               **path: str) -> None:
        query = wire.query(req, {'fields': wire.as_fields})
        self.kind.view.check_fields(req.context.version, query['fields'])
        row = self._get(req, path[self.kind.path_field], 'get')
        wire.send(resp, self.kind.view.renderer(req, query['fields'])(row))

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 **path: str) -> None:
        kind = self.kind
        wire.query(req, {})
        row = self._get(req, path[kind.path_field], 'update')
        patch, values, expected = node_owned.patched(
            req, row, kind.schema['properties'], kind.patch_allowed,
            kind.patch_schema, kind.name)
        kind.view.check_newer(req.context.version, values)
        kind.check_values(values)
        node_owned.node_uuid_to_id(values, req, kind.rule('update'))
        kind.resolve_links(values.get('node_id', row['node_id']), values)
        kind.check_patch(req.context.version, patch, row, values)
        node_owned.settle_removals(values, kind.documents, kind.flags)
        uuid = kind.rpc(self.rpcapi, 'update')(
            req.context.ctx, row['uuid'], values, expected=expected)
        wire.send(resp, kind.view.renderer(req)(kind.get(uuid)))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  **path: str) -> None:
        wire.query(req, {})
        row = self._get(req, path[self.kind.path_field], 'delete')
        self.kind.rpc(self.rpcapi, 'destroy')(req.context.ctx, row['uuid'])
        wire.no_content(resp)
