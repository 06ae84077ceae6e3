"""The HTTP client both servers are measured with: plain Ironic API v1.

One keep-alive ``requests`` session per thread. Timings cover sending a
request and receiving its whole body; decoding JSON happens after the clock
stops, so the client's own parsing is not counted against a server.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

import requests

# Nova's Ironic driver sends node calls at min(1.109, server maximum).
PREFERRED_VERSION = (1, 109)

# What Nova's Ironic driver asks for when it lists and shows nodes.
NOVA_FIELDS = ('uuid', 'power_state', 'target_power_state',
               'provision_state', 'target_provision_state', 'last_error',
               'maintenance', 'properties', 'instance_uuid', 'traits',
               'resource_class')

STATE_FIELDS = 'provision_state,target_provision_state,last_error'


class ApiError(Exception):
    def __init__(self, method: str, url: str, status: int, body: str):
        super().__init__('%s %s -> %d: %s' % (method, url, status,
                                               body[:500]))
        self.status = status


@dataclass
class Response:
    status: int
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def _parse_version(text: str) -> tuple[int, int]:
    major, minor = text.split('.')
    return int(major), int(minor)


class Api:
    """Ironic API v1 at base_url, safe to share between threads."""

    def __init__(self, base_url: str, timeout: float = 120.0) -> None:
        self.base_url = base_url.rstrip('/')
        self.timeout = timeout
        self._local = threading.local()
        self.version = self._negotiate()

    def _negotiate(self) -> str:
        """The version to send: Nova's preferred one, or the server's
        maximum if that is lower."""
        root = requests.get(self.base_url + '/', timeout=self.timeout).json()
        server_max = _parse_version(root['default_version']['version'])
        chosen = min(server_max, PREFERRED_VERSION)
        return '%d.%d' % chosen

    @property
    def session(self) -> requests.Session:
        session = getattr(self._local, 'session', None)
        if session is None:
            session = requests.Session()
            session.headers.update({
                'X-OpenStack-Ironic-API-Version': self.version,
                'OpenStack-API-Version': 'baremetal %s' % self.version,
                'Accept': 'application/json',
            })
            self._local.session = session
        return session

    def request(self, method: str, path_or_url: str,
                params: dict[str, str] | None = None,
                body: Any = None) -> Response:
        url = (path_or_url if path_or_url.startswith('http')
               else self.base_url + path_or_url)
        started = time.perf_counter()
        reply = self.session.request(method, url, params=params, json=body,
                                     timeout=self.timeout)
        content = reply.content
        return Response(reply.status_code, content,
                        time.perf_counter() - started)

    def call(self, method: str, path: str,
             params: dict[str, str] | None = None, body: Any = None,
             expect: tuple[int, ...] = (200,)) -> Any:
        """A request that must succeed; its decoded JSON body."""
        response = self.request(method, path, params, body)
        if response.status not in expect:
            raise ApiError(method, path, response.status,
                           response.body.decode(errors='replace'))
        return response.json()

    def list_all(self, path: str,
                 params: dict[str, str] | None = None
                 ) -> tuple[list[dict], float, int]:
        """Every node of a listing, following ``next`` links.

        Returns the nodes, the seconds spent in HTTP (all pages), and the
        number of pages.
        """
        nodes: list[dict] = []
        seconds = 0.0
        pages = 0
        url: str | None = path
        while url:
            response = self.request('GET', url, params if pages == 0
                                    else None)
            seconds += response.seconds
            pages += 1
            if response.status != 200:
                raise ApiError('GET', url, response.status,
                               response.body.decode(errors='replace'))
            data = response.json()
            nodes.extend(data['nodes'])
            url = data.get('next')
        return nodes, seconds, pages
