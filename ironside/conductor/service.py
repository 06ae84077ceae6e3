"""Runs a conductor: its manager plus an RPC server (on its topic, or
its JSON-RPC endpoint)."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Protocol

from ironside.common import exception
from ironside.common import json_rpc
from ironside.common import stopping
from ironside.common.conf import CONF
from ironside.conductor import manager as conductor_manager

LOG = logging.getLogger(__name__)


class _RpcServer(Protocol):
    """oslo.messaging's RPC server or the JSON-RPC one."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class ConductorService:
    def __init__(self, host: str | None = None, rpc_server: bool = True
                 ) -> None:
        self.manager = conductor_manager.ConductorManager(host)
        self._rpc_server: _RpcServer | None = None
        self._want_rpc = rpc_server
        self._stop = threading.Event()

    def start(self) -> None:
        stopping.reset()
        self.manager.prepare_host()
        if self._want_rpc:
            # Listen before registering: a client that finds this
            # conductor in the database must find its queue too.
            self._rpc_server = self._make_rpc_server()
            self._rpc_server.start()
        try:
            self.manager.register_and_start()
        except exception.ConductorAlreadyRegistered:
            # Another live process has this host name: leave its queue.
            self._stop_rpc_server()
            raise
        LOG.info('Conductor %s is serving', self.manager.host)

    def _make_rpc_server(self) -> _RpcServer:
        if CONF.rpc_transport == 'json-rpc':
            return json_rpc.JsonRpcServer(self.manager)
        # Only the processes using oslo.messaging load it (~0.9 s of CPU
        # at start).
        from ironside.common import rpc
        server: _RpcServer = rpc.get_server(
            rpc.conductor_target(self.manager.host), [self.manager])
        return server

    def _stop_rpc_server(self) -> None:
        if self._rpc_server is not None:
            self._rpc_server.stop()
            wait = getattr(self._rpc_server, 'wait', None)
            if wait is not None:
                wait()
            self._rpc_server = None

    def stop(self) -> None:
        # Calls still waiting on BMCs end now, not when their budgets do.
        stopping.begin()
        self._stop_rpc_server()
        self.manager.del_host()
        self._stop.set()

    def run_until_signalled(self, before_stop: Callable[[], None] | None
                            = None) -> None:
        """Serve until SIGTERM or SIGINT, then stop cleanly.

        ``before_stop`` stops services that use this conductor (the site
        action service) while it still serves them.
        """
        def _handle(signum: int, _frame: FrameType | None) -> None:
            LOG.info('Signal %d received, stopping', signum)
            self._stop.set()

        signal.signal(signal.SIGTERM, _handle)
        signal.signal(signal.SIGINT, _handle)
        self._stop.wait()
        stopping.begin()
        if before_stop is not None:
            before_stop()
        self.stop()
