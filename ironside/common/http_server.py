"""A WSGI application served by cheroot, a production WSGI server, in
background threads: the API's server, and a conductor's JSON-RPC one."""

from __future__ import annotations

import logging
import threading

from cheroot import wsgi

LOG = logging.getLogger(__name__)


class HttpServer:
    """Serves a WSGI application in background threads until stopped."""

    def __init__(self, app, host: str, port: int, threads: int,
                 backlog: int = 1024, name: str = 'ironside') -> None:
        # request_queue_size is cheroot's listen() backlog (default 5).
        self.name = name
        self._server = wsgi.Server((host, port), app, numthreads=threads,
                                   server_name=name,
                                   request_queue_size=backlog)
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
