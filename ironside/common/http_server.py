"""A WSGI application served by cheroot, a production WSGI server, in
background threads: the API's server, and a conductor's JSON-RPC one."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from cheroot import wsgi

LOG = logging.getLogger(__name__)


class _Gateway(wsgi.Gateway_10):
    """cheroot's WSGI 1.0 gateway, closing the connection when the
    application answers ``Connection: close``.

    The application says so when it gave up reading a request body
    (malformed chunks, fewer bytes than announced): what is left on the
    socket is not the next request. cheroot only closes when it decides
    to itself; otherwise it reads the rest of the body first (waiting
    out its timeout a second time for bytes that never come) or parses
    the garbage as a next request.
    """

    def start_response(self, status: str, headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], None]:
        if any(name.lower() == 'connection' and value.lower() == 'close'
               for name, value in headers):
            self.req.close_connection = True
        return super().start_response(status, headers, exc_info)


class _Server(wsgi.Server):
    """cheroot's WSGI server, its own errors logged through logging
    (cheroot writes them to stderr), so that they have the service's
    format and their control characters escaped as every line's."""

    def error_log(self, msg: str = '', level: int = logging.INFO,
                  traceback: bool = False) -> None:
        LOG.log(level, '%s: %s', self.server_name, msg, exc_info=traceback)


class HttpServer:
    """Serves a WSGI application in background threads until stopped."""

    def __init__(self, app, host: str, port: int, threads: int,
                 backlog: int = 1024, name: str = 'ironside',
                 timeout: int = 10) -> None:
        # request_queue_size is cheroot's listen() backlog (default 5);
        # timeout, how long a read of a request waits for bytes.
        self.name = name
        self._server = _Server((host, port), app, numthreads=threads,
                               server_name=name, request_queue_size=backlog,
                               timeout=timeout)
        self._server.gateway = _Gateway
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port listened on (useful when asked for port 0)."""
        return self._server.bind_addr[1]

    def start(self) -> None:
        self._server.prepare()
        self._thread = threading.Thread(target=self._server.serve,
                                        name=self.name, daemon=True)
        self._thread.start()
        LOG.info('%s listening on %s:%s', self.name,
                 *self._server.bind_addr[:2])

    def stop(self) -> None:
        self._server.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)
        LOG.info('%s stopped', self.name)
