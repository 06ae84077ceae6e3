"""The site web view: one page and its assets, served by the API process.

``GET /site/`` is a page that lists the site actions and shows one as its
group graph, its waves in flight and its nodes. It draws everything from
the site API's JSON (``/site/v1/actions`` and the action's report), which
it polls; the page itself holds no data.

Why polling with ETags rather than server-sent events: the report is one
document that changes as a whole, the WSGI server has a fixed pool of
threads that long-lived event streams would hold, a browser's EventSource
cannot send a keystone token, and polls work through any proxy and any
API process. Every GET of the site API carries an ETag of its body
(:class:`ETags`); a poll that finds nothing new is answered 304 with no
body, so the page re-renders only what changed.

Authentication is the API's: under ``http_basic`` the page and its assets
need the same credentials as the API (the browser asks once, and its
data calls reuse them); under ``keystone`` the page and assets, which
hold no data, answer without a token, and the page asks for one (``openstack
token issue``) to send with its data calls; ``noauth`` checks nothing.
An authenticated request for them must pass ``baremetal:site:web:get``.

The assets are plain JavaScript and CSS in ``static/``, shipped in the
package: no build step, no CDN, nothing fetched from elsewhere.
"""

from __future__ import annotations

import hashlib
import html
import pathlib
from typing import Any

import falcon

from ironside.api import policy
from ironside.common.conf import CONF

WEB_RULE = 'baremetal:site:web:get'
# Set in the WSGI environment of a request let past authentication.
PUBLIC_ROUTE = 'ironside.public_route'

STATIC_DIR = pathlib.Path(__file__).resolve().parent / 'static'

ASSET_TYPES = {'.css': 'text/css; charset=utf-8',
               '.js': 'text/javascript; charset=utf-8',
               '.svg': 'image/svg+xml'}

# Everything the page loads comes from this origin; nothing inline.
SECURITY_HEADERS = {
    'Content-Security-Policy': "default-src 'none'; script-src 'self'; "
                               "style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; frame-ancestors 'none'; "
                               "base-uri 'none'; form-action 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
}


def register(app: falcon.App, prefix: str) -> None:
    """The page at ``prefix`` (``/site/``), its assets under
    ``prefix/static/``, and ETags on the site API's GETs."""
    base = prefix.rstrip('/')
    app.add_route(base, Page(base))
    app.add_route(base + '/static/{name}', Asset())
    app.add_middleware(ETags(base + '/v1'))


def public_paths(prefix: str) -> tuple[str, ...]:
    """Paths that answer without authentication: the page and its
    assets under keystone (they hold no data), none otherwise."""
    if CONF.auth_strategy != 'keystone':
        return ()
    base = prefix.rstrip('/')
    return (base, base + '/') + tuple(
        '%s/static/%s' % (base, name) for name in sorted(_asset_names()))


def _allowed(req: falcon.Request, resp: falcon.Response, resource: object,
             params: dict[str, Any]) -> None:
    """403 unless the caller passes the web view's rule; a request
    served as a public path (keystone: no token) has no caller to check."""
    if not req.env.get(PUBLIC_ROUTE):
        policy.authorize(WEB_RULE, req.context.ctx)


def _asset_names() -> list[str]:
    return [path.name for path in STATIC_DIR.iterdir()
            if path.is_file() and path.suffix in ASSET_TYPES]


def _etag(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _not_modified(req: falcon.Request, etag: str) -> bool:
    return any(tag == '*' or tag == etag for tag in req.if_none_match or ())


def _answer(req: falcon.Request, resp: falcon.Response, data: bytes,
            content_type: str) -> None:
    """``data``, or 304 when the client has it already."""
    tag = _etag(data)
    resp.etag = tag
    resp.cache_control = ['no-cache']
    if _not_modified(req, tag):
        resp.status = falcon.HTTP_304
        resp.content_type = None
        resp.data = None
        resp.media = None
        return
    resp.content_type = content_type
    resp.data = data


class Page:
    """The page, with where the site API is and how to authenticate."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.template = (STATIC_DIR / 'index.html').read_text('utf-8')

    @falcon.before(_allowed)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        root = (req.env.get('SCRIPT_NAME') or '').rstrip('/') + self.base
        page = self.template
        for name, value in (('base', root), ('api', root + '/v1'),
                            ('auth', CONF.auth_strategy)):
            page = page.replace('{{%s}}' % name, html.escape(value))
        resp.set_headers(SECURITY_HEADERS)
        _answer(req, resp, page.encode('utf-8'), falcon.MEDIA_HTML)


class Asset:
    """A file of ``static/`` (only those of a known type; never a path)."""

    def __init__(self) -> None:
        self.files = {
            name: ((STATIC_DIR / name).read_bytes(),
                   ASSET_TYPES[pathlib.PurePath(name).suffix])
            for name in _asset_names()}

    @falcon.before(_allowed)
    def on_get(self, req: falcon.Request, resp: falcon.Response,
               name: str) -> None:
        if name not in self.files:
            raise falcon.HTTPNotFound()
        data, content_type = self.files[name]
        resp.set_headers(SECURITY_HEADERS)
        _answer(req, resp, data, content_type)


class ETags:
    """Middleware: an ETag on every successful GET of the site API, and
    304 without a body when the client's copy is current."""

    def __init__(self, api_base: str) -> None:
        self.api_base = api_base

    def process_response(self, req: falcon.Request, resp: falcon.Response,
                         resource: object, req_succeeded: bool) -> None:
        if req.method != 'GET' or not req_succeeded or \
                resp.status_code != 200 or not resp.data or \
                resp.content_type != falcon.MEDIA_JSON or \
                not req.path.startswith(self.api_base):
            return
        _answer(req, resp, resp.data, falcon.MEDIA_JSON)
