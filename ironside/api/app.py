"""The WSGI application: Ironic's API v1, served by Falcon.

``build_app`` wires the resources of every module to their routes. Each
request gets, in ``req.context``: ``version`` (the microversion served),
``ctx`` (the request context passed to policy and conductors),
``request_id`` and ``public_url`` (the base of links). Every response,
errors and 404s included, carries the three version headers.

Other APIs (the site layer) mount beside /v1 under prefixes of their
own: pass ``(prefix, register)`` pairs; ``register(app, prefix,
rpcapi)`` adds their routes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from collections.abc import Iterable
from typing import TYPE_CHECKING

import falcon
from oslo_utils import uuidutils

from ironside.api import allocations
from ironside.api import boot_files
from ironside.api import chassis
from ironside.api import conductors
from ironside.api import deploy_templates
from ironside.api import drivers
from ironside.api import errors
from ironside.api import inspection_rules
from ironside.api import metrics
from ironside.api import node_actions
from ironside.api import node_indicators
from ironside.api import node_parts
from ironside.api import node_states
from ironside.api import nodes
from ironside.api import openapi
from ironside.api import portgroups
from ironside.api import ports
from ironside.api import ramdisk
from ironside.api import root
from ironside.api import runbooks
from ironside.api import url_forms
from ironside.api import vendor_passthru
from ironside.api import versions
from ironside.api import volume
from ironside.api import wire
from ironside.common import context as ironside_context
from ironside.common.conf import CONF

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

LOG = logging.getLogger(__name__)

RegisterFn = Callable[[falcon.App, str, object], None]

# Every module that contributes routes under / and /v1.
RESOURCE_MODULES = (root, openapi, nodes, node_states, node_actions,
                    node_parts, ports, portgroups, drivers, conductors,
                    allocations, deploy_templates, runbooks, chassis, volume,
                    inspection_rules, metrics, node_indicators, ramdisk,
                    boot_files, vendor_passthru)

REQUEST_ID_HEADER = 'X-OpenStack-Request-Id'
# Set by the access log (ironside.api.access_log) when it runs first.
REQUEST_ID_KEY = 'openstack.request_id'


def _request_context(req: falcon.Request, request_id: str
                     ) -> ironside_context.RequestContext:
    """Who asks. Only keystone's middleware vouches for identity headers."""
    if CONF.auth_strategy == 'keystone':
        return ironside_context.RequestContext.from_environ(
            req.env, request_id=request_id, overwrite=False)
    user = req.env.get('HTTP_X_USER_ID') \
        if CONF.auth_strategy == 'http_basic' else None
    return ironside_context.RequestContext(
        user_id=user, is_admin=True, roles=['admin'], system_scope='all',
        request_id=request_id, overwrite=False)


class ApiMiddleware:
    """Version negotiation, request context, the version headers, and the
    other URL forms Ironic accepts (read with ``router``)."""

    def __init__(self, router: url_forms.Router) -> None:
        self.router = router

    def process_request(self, req: falcon.Request,
                        resp: falcon.Response) -> None:
        req.context.request_id = req.env.get(REQUEST_ID_KEY) or \
            'req-%s' % uuidutils.generate_uuid()
        req.context.version = None
        endpoint = CONF.api.public_endpoint
        req.context.public_url = (endpoint or req.prefix).rstrip('/')
        req.context.ctx = None
        req.context.version = versions.parse(req.headers)
        req.context.ctx = _request_context(req, req.context.request_id)
        wire.refuse_nul(req.path, 'the request path')
        url_forms.normalize(req, self.router)
        for name, value in req.params.items():
            wire.refuse_nul(name, 'the query')
            wire.refuse_nul(value, 'query parameter %s' % name)

    def process_response(self, req: falcon.Request, resp: falcon.Response,
                         resource: object, req_succeeded: bool) -> None:
        version = getattr(req.context, 'version', None) or \
            versions.MIN_VERSION
        resp.set_header(versions.MIN_HEADER, versions.MIN_VERSION_STRING)
        resp.set_header(versions.MAX_HEADER, versions.MAX_VERSION_STRING)
        resp.set_header(versions.VERSION_HEADER, str(version))
        request_id = getattr(req.context, 'request_id', None)
        if request_id:
            resp.set_header(REQUEST_ID_HEADER, request_id)


def build_app(rpcapi: ConductorAPI,
              extra_apis: Iterable[tuple[str, RegisterFn]] = ()
              ) -> falcon.App:
    """The API application, sending conductor work through ``rpcapi``."""
    router = falcon.routing.CompiledRouter()
    app = falcon.App(router=router, middleware=[ApiMiddleware(router)])
    app.req_options.strip_url_path_trailing_slash = True
    app.req_options.default_media_type = falcon.MEDIA_JSON
    # Answers without a body (202, 204) have no Content-Type, as Ironic's:
    # ironicclient tries to decode a body typed as JSON, even if empty.
    # (falcon's hint says str; its response code reads it as str | None.)
    app.resp_options.default_media_type = None  # type: ignore[assignment]
    errors.register(app)
    for module in RESOURCE_MODULES:
        module.register(app, rpcapi)
    for prefix, register in extra_apis:
        register(app, '/' + prefix.strip('/'), rpcapi)
    return app
