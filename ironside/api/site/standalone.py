"""The site API as an application of its own.

The main API application mounts the site API beside /v1 and answers
errors in Ironic's format with its own handlers. This module serves the
site API alone (tests, and until the main application is merged) with
minimal handlers in the same format.
"""

from __future__ import annotations

import json
import logging

import falcon

from ironside.api import site
from ironside.common import exception

LOG = logging.getLogger(__name__)


def _error(resp: falcon.Response, status: int, message: str) -> None:
    resp.status = status
    resp.content_type = falcon.MEDIA_JSON
    resp.data = json.dumps({'error_message': json.dumps({
        'faultcode': 'Client' if status < 500 else 'Server',
        'faultstring': message, 'debuginfo': None})}).encode()


def _ironside(req, resp, exc, _params) -> None:
    _error(resp, int(exc.code), str(exc))


def _http(req, resp, exc, _params) -> None:
    _error(resp, exc.status_code, exc.description or exc.title)


def _unexpected(req, resp, exc, _params) -> None:
    LOG.error('Unexpected error in %s %s', req.method, req.path,
              exc_info=exc)
    _error(resp, 500, 'Internal server error; the details are logged.')


def make_app(rpcapi: object = None, prefix: str = site.DEFAULT_PREFIX
             ) -> falcon.App:
    app = falcon.App()
    app.req_options.strip_url_path_trailing_slash = True
    # As the main application: answers are typed by the resources.
    app.resp_options.default_media_type = None
    app.add_error_handler(Exception, _unexpected)
    app.add_error_handler(falcon.HTTPError, _http)
    app.add_error_handler(exception.IronsideException, _ironside)
    site.register(app, prefix, rpcapi)
    return app
