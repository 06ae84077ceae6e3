"""The HTTP server of the API."""

from __future__ import annotations

from ironside.common.http_server import HttpServer


class ApiServer(HttpServer):
    def __init__(self, app, host: str, port: int, threads: int,
                 backlog: int = 1024, timeout: int = 10) -> None:
        super().__init__(app, host, port, threads, backlog,
                         name='ironside-api', timeout=timeout)
