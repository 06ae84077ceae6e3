"""HTTP basic authentication against an htpasswd file, through
oslo.middleware; loaded only when ``[DEFAULT]auth_strategy`` is
``http_basic``."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

import webob.exc
from oslo_middleware import basic_auth

from ironside.api import errors
from ironside.api import versions

if TYPE_CHECKING:
    from wsgiref.types import StartResponse
    from wsgiref.types import WSGIApplication
    from wsgiref.types import WSGIEnvironment

LOG = logging.getLogger(__name__)


def user_file_problem(path: str) -> str | None:
    """What is wrong with an htpasswd file, in words, or None.

    oslo.middleware's own check raises "Invalid configuration file.
    %(error_msg)s" with the placeholder never filled in, so the file is
    read and each entry checked here, naming the line.
    """
    try:
        with open(path, encoding='utf-8') as user_file:
            lines = user_file.read().splitlines()
    except OSError as exc:
        return 'cannot be read: %s' % (exc.strerror or exc)
    except UnicodeDecodeError:
        return 'is not UTF-8 text'
    for number, line in enumerate(lines, 1):
        entry = line.strip()
        if not entry or ':' not in entry:
            continue
        try:
            basic_auth.parse_entry(entry)
        except Exception as exc:
            detail = getattr(exc, 'detail', None) or str(exc)
            return 'line %d: %s' % (number, detail)
    return None


class HttpBasic:
    """HTTP basic authentication against an htpasswd file (bcrypt)."""

    def __init__(self, app: WSGIApplication, user_file: str) -> None:
        self.app = app
        self.user_file = user_file

    def __call__(self, environ: WSGIEnvironment,
                 start_response: StartResponse) -> Iterable[bytes]:
        try:
            token = basic_auth.parse_header(environ)
            username, password = basic_auth.parse_token(token)
            environ.update(basic_auth.authenticate(self.user_file, username,
                                                   password))
        except webob.exc.HTTPException as exc:
            LOG.info('HTTP basic authentication failed: %s', exc)
            status = '401 Unauthorized'
            body = errors.error_body(401, 'Authentication required')
            start_response(status, [
                ('Content-Type', 'application/json'),
                ('Content-Length', str(len(body))),
                ('WWW-Authenticate', 'Basic realm="Baremetal API"'),
                (versions.MIN_HEADER, versions.MIN_VERSION_STRING),
                (versions.MAX_HEADER, versions.MAX_VERSION_STRING),
                (versions.VERSION_HEADER, versions.MIN_VERSION_STRING)])
            return [body]
        return self.app(environ, start_response)
