"""The other spellings of a URL that Ironic's routing accepts.

Ironic routes with pecan's object dispatch, which reaches the same
controller by more than one path; clients written against it use some of
them. ``normalize`` rewrites a request's path, once and before routing,
to the one path Ironside registers:

- no ``/v1`` prefix: a path that routes nowhere as it is, and does not
  start with ``/v1``, is read under ``/v1`` when it routes there (Ironic's
  root controller hands any first segment that is not a version to v1,
  so an unknown one is a 404 either way; a path that routes nowhere,
  such as a boot file served by a static route, is left alone);
- a ``.json`` suffix: below API 1.91, when the request names its version
  in Ironic's own header, a trailing ``.json`` is dropped (what pecan's
  content-type guessing once did); ``req.context.json_suffix`` remembers
  it, so a name that really ends in ``.json`` is still found;
- the node after its sub-controller: ``/v1/nodes/states/console/{node}``
  is ``/v1/nodes/{node}/states/console``, as pecan passes the first
  segment that names no sub-controller to the handler as the node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from typing import TypeVar

import falcon

from ironside.api import versions
from ironside.common import exception

JSON_SUFFIX = '.json'

_Found = TypeVar('_Found')

# Ironic's node sub-controllers that are attributes of its nodes
# controller, and the segments below each that name further
# sub-controllers or actions (not a node).
NODE_CONTROLLERS: dict[str, frozenset[str]] = {
    'states': frozenset(('console', 'power', 'provision', 'raid',
                         'boot_mode', 'secure_boot')),
    'management': frozenset(('boot_device', 'supported', 'inject_nmi',
                             'indicators')),
    'maintenance': frozenset(),
    'vendor_passthru': frozenset(('methods',)),
}


class Router(Protocol):
    def find(self, uri: str, req: falcon.Request | None = None
             ) -> object | None: ...


def normalize(req: falcon.Request, router: Router) -> None:
    """Rewrite ``req.path`` to the form the routes are registered under."""
    req.context.json_suffix = False
    path = req.path
    if path.split('/')[1] == 'v1':
        req.path = _node_first(req, _drop_json_suffix(req, path))
    elif path != '/' and router.find(path) is None:
        under_v1 = _node_first(req, _drop_json_suffix(req, '/v1' + path))
        if router.find(under_v1) is not None:
            req.path = under_v1
        else:
            req.context.json_suffix = False


def _drop_json_suffix(req: falcon.Request, path: str) -> str:
    trimmed = path.rstrip('/')
    if not trimmed.startswith('/v1/') or not trimmed.endswith(JSON_SUFFIX) \
            or not req.get_header(versions.VERSION_HEADER) \
            or req.context.version.allows(versions.JSON_SUFFIX_IS_NAME):
        return path
    req.context.json_suffix = True
    return trimmed[:-len(JSON_SUFFIX)]


def _node_first(req: falcon.Request, path: str) -> str:
    segments = path.split('/')
    # ['', 'v1', 'nodes', controller, ...]
    if len(segments) < 5 or segments[1:3] != ['v1', 'nodes'] or \
            segments[3] not in NODE_CONTROLLERS:
        return path
    below = segments[4:]
    keywords = NODE_CONTROLLERS[segments[3]]
    for index, segment in enumerate(below):
        if segment and segment not in keywords:
            rest = below[:index] + below[index + 1:]
            return '/'.join(['/v1/nodes', segment, segments[3]] + rest)
    if req.method in ('GET', 'HEAD'):
        raise falcon.HTTPNotFound()
    raise exception.MissingParameterValue(
        err='Missing mandatory parameter: node_ident')


def find(req: falcon.Request, ident: str, lookup: Callable[[str], _Found],
         missing: type[Exception]) -> _Found:
    """``lookup(ident)``; if that raises ``missing`` and the path's
    ``.json`` was dropped, ``lookup`` of the name with it: a name that
    really ends in ``.json`` is still found (Ironic's nodes, port groups,
    allocations and deploy templates)."""
    try:
        return lookup(ident)
    except missing:
        if not getattr(req.context, 'json_suffix', False):
            raise
        return lookup(ident + JSON_SUFFIX)
