"""Who is calling: the authentication layer around the API application.

``[DEFAULT]auth_strategy``:

``noauth``
    Nobody is checked; allowed only on a loopback address unless
    ``[api]allow_insecure_noauth`` says otherwise.
``http_basic``
    An Apache htpasswd file of bcrypt entries
    (``[DEFAULT]http_basic_auth_user_file``), as Ironic standalone.
``keystone``
    keystonemiddleware's auth_token; the roles and scope it vouches for
    are checked against the policy rules.

The discovery documents (GET / and /v1) answer without authentication,
as keystoneauth expects. Every answer, including those of the auth
layer, carries the microversion headers and Ironic's error format.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any

from ironside.api import access_log
from ironside.api import boot_files
from ironside.api import errors
from ironside.api import metrics
from ironside.api import ramdisk
from ironside.api import site as site_api
from ironside.api import versions
from ironside.api.site import web as site_web
from ironside.common import exception
from ironside.common.conf import CONF

# A WSGI application or middleware, and the start_response it is given.
StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

LOG = logging.getLogger(__name__)

PUBLIC_PATHS = frozenset(('/', '/v1', '/v1/', '/openapi.json'))


def check_strategy(host: str) -> None:
    """Refuse configurations that would expose the API unprotected."""
    strategy = CONF.auth_strategy
    if strategy == 'noauth':
        if not _is_loopback(host) and not CONF.api.allow_insecure_noauth:
            raise exception.ConfigInvalid(
                error_msg='auth_strategy "noauth" lets anyone who reaches '
                          '%s control every node; listen on a loopback '
                          'address, choose http_basic or keystone, or set '
                          '[api]allow_insecure_noauth' % host)
        if not _is_loopback(host):
            LOG.warning('The API listens on %s without authentication',
                        host)
    elif strategy == 'http_basic':
        # Loaded only for this strategy: oslo.middleware brings Jinja2
        # and WebOb (about 4 MiB per API process).
        from ironside.api import http_basic
        problem = http_basic.user_file_problem(
            CONF.http_basic_auth_user_file)
        if problem:
            raise exception.ConfigInvalid(
                error_msg='http_basic_auth_user_file %s is not usable: %s'
                          % (CONF.http_basic_auth_user_file, problem))


def _is_loopback(host: str) -> bool:
    if host in ('localhost', 'ip6-localhost'):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class IronicHeaders:
    """Outermost layer: version headers and error format on every answer.

    Answers built by the application have them already; answers of the
    authentication layers (401, 400) are given them here.
    """

    def __init__(self, app: WsgiApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any],
                 start_response: StartResponse) -> Iterable[bytes]:
        state: dict[str, Any] = {}

        def _start(status: str, headers: list[tuple[str, str]],
                   exc_info: Any = None) -> Any:
            names = {name.lower() for name, _ in headers}
            if versions.MAX_HEADER.lower() not in names:
                state['status'] = int(status.split(' ', 1)[0])
                headers = [(n, v) for n, v in headers
                           if n.lower() not in ('content-type',
                                                'content-length')]
                headers += [(versions.MIN_HEADER,
                             versions.MIN_VERSION_STRING),
                            (versions.MAX_HEADER,
                             versions.MAX_VERSION_STRING),
                            (versions.VERSION_HEADER,
                             versions.MIN_VERSION_STRING)]
                state['headers'] = headers
                state['status_line'] = status
                return None
            return start_response(status, headers, exc_info)

        body = self.app(environ, _start)
        if 'status' not in state:
            return body
        data = b''.join(body)
        if hasattr(body, 'close'):
            body.close()
        status = state['status']
        headers = state['headers']
        if status >= 400:
            data = errors.error_body(status, _message(status, data))
            headers.append(('Content-Type', 'application/json'))
        headers.append(('Content-Length', str(len(data))))
        start_response(state['status_line'], headers)
        return [data]


def _message(status: int, data: bytes) -> str:
    """The message of an error answer from a middleware, in plain text."""
    try:
        parsed = json.loads(data)
        error = parsed.get('error', parsed)
        return str(error.get('message') or error.get('title') or
                   'Authentication required')
    except (ValueError, AttributeError):
        text = data.decode('utf-8', 'replace').strip()
        if status == 401 or not text:
            return 'Authentication required'
        return text


class PublicRoutes:
    """Send discovery requests (and GETs of ``paths``) around the
    authentication layer."""

    def __init__(self, authenticated: WsgiApp, app: WsgiApp,
                 paths: tuple[str, ...] = ()) -> None:
        self.authenticated = authenticated
        self.app = app
        self.paths = PUBLIC_PATHS | frozenset(paths)

    def __call__(self, environ: dict[str, Any],
                 start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get('PATH_INFO', '/')
        if environ.get('REQUEST_METHOD') in ('GET', 'HEAD') and \
                path in self.paths:
            environ[site_web.PUBLIC_ROUTE] = True
            return self.app(environ, start_response)
        if path.startswith(ramdisk.PUBLIC_PREFIXES +
                           boot_files.public_prefixes()):
            # Machines have no credentials: the agent's token proves it,
            # and boot files are what any machine may boot.
            return self.app(environ, start_response)
        return self.authenticated(environ, start_response)


def wrap(app: WsgiApp) -> access_log.AccessLog:
    """``app`` behind the configured authentication strategy, with the
    access log outermost."""
    return access_log.AccessLog(_authenticated(app))


def _authenticated(app: WsgiApp) -> IronicHeaders:
    strategy = CONF.auth_strategy
    if strategy == 'noauth':
        return IronicHeaders(app)
    if strategy == 'http_basic':
        from ironside.api import http_basic
        authenticated = http_basic.HttpBasic(app,
                                             CONF.http_basic_auth_user_file)
    else:
        from keystonemiddleware import auth_token
        authenticated = auth_token.AuthProtocol(
            app, {'oslo_config_config': CONF})
    # The web view's page and assets (keystone), /metrics (if so set).
    public = site_web.public_paths(site_api.DEFAULT_PREFIX) + \
        metrics.public_paths()
    return IronicHeaders(PublicRoutes(authenticated, app, public))
