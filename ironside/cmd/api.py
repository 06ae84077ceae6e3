"""ironside-api: the REST API, sending work to conductors over RPC."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import server as api_server
from ironside.api import site as site_api
from ironside.common import exception
from ironside.common import rpc
from ironside.common import service
from ironside.common.conf import CONF
from ironside.conductor import rpcapi as conductor_rpcapi

LOG = logging.getLogger(__name__)


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


def wait_for_signal(alive: Callable[[], bool] = lambda: True,
                    gone: str = 'the process this one serves for ended'
                    ) -> None:
    """Block until SIGTERM or SIGINT, or until ``alive()`` is false
    (asked every half second; ``gone`` says why that stops this one)."""
    stop = threading.Event()

    def _handle(signum: int, _frame: FrameType | None) -> None:
        LOG.info('Signal %d received, stopping', signum)
        stop.set()

    signal.signal(signal.SIGTERM, _handle)
    signal.signal(signal.SIGINT, _handle)
    while not stop.wait(0.5):
        if not alive():
            LOG.warning('Stopping: %s', gone)
            return


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
    wait_for_signal()
    server.stop()
    rpc.cleanup()
