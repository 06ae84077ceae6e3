"""The HTTP server of the API."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ironside.common.http_server import HttpServer

if TYPE_CHECKING:
    from wsgiref.types import WSGIApplication


class ApiServer(HttpServer):
    def __init__(self, app: WSGIApplication, host: str, port: int,
                 threads: int, backlog: int = 1024, timeout: int = 10) -> None:
        super().__init__(app, host, port, threads, backlog,
                         name='ironside-api', timeout=timeout)
