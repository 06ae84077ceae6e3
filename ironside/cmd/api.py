"""ironside-api: the REST API, sending work to conductors over RPC."""

from __future__ import annotations

import sys

from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import server as api_server
from ironside.api import site as site_api
from ironside.common import exception
from ironside.common import service
from ironside.common.conf import CONF
from ironside.conductor import rpcapi as conductor_rpcapi


def application(rpcapi: conductor_rpcapi.ConductorAPI) -> auth.WsgiApp:
    """The WSGI application the API serves: the bare metal API and the
    site API, behind the configured authentication and the access log."""
    return auth.wrap(api_app.build_app(
        rpcapi, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))


def start_api(rpcapi: conductor_rpcapi.ConductorAPI
              ) -> api_server.ApiServer:
    """Check the auth strategy, then serve the API on [api]host_ip:port."""
    auth.check_strategy(CONF.api.host_ip)
    server = api_server.ApiServer(application(rpcapi), CONF.api.host_ip,
                                  CONF.api.port, CONF.api.threads,
                                  CONF.api.backlog,
                                  CONF.api.client_socket_timeout)
    server.start()
    return server


def main() -> None:
    service.prepare_service()
    if CONF.rpc_transport == 'local':
        sys.exit('ironside-api needs conductors in other processes: set '
                 '[DEFAULT]rpc_transport = oslo or json-rpc, or run '
                 '"ironside" (all-in-one)')
    try:
        server = start_api(conductor_rpcapi.ConductorAPI())
    except exception.ConfigInvalid as exc:
        sys.exit(str(exc))
    service.freeze_start_up_objects()
    service.wait_for_signal()
    server.stop()
    if CONF.rpc_transport == 'oslo':
        # Loaded by the ConductorAPI above only with this transport.
        from ironside.common import rpc
        rpc.cleanup()
