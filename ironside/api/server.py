"""The HTTP server of the API: cheroot, a production WSGI server."""

from __future__ import annotations

import logging
import threading

from cheroot import wsgi

LOG = logging.getLogger(__name__)


class ApiServer:
    """Serves a WSGI application in background threads until stopped."""

    def __init__(self, app, host: str, port: int, threads: int,
                 backlog: int = 1024) -> None:
        # request_queue_size is cheroot's listen() backlog (default 5).
        self._server = wsgi.Server((host, port), app, numthreads=threads,
                                   server_name='ironside-api',
                                   request_queue_size=backlog)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port listened on (useful when asked for port 0)."""
        return self._server.bind_addr[1]

    def start(self) -> None:
        self._server.prepare()
        self._thread = threading.Thread(target=self._server.serve,
                                        name='api-server', daemon=True)
        self._thread.start()
        LOG.info('API listening on %s:%s', *self._server.bind_addr[:2])

    def stop(self) -> None:
        self._server.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)
        LOG.info('API stopped')
