"""The API's HTTP server: a burst of a thousand clients connecting at once
is served whole, none reset (cheroot's default listen backlog of 5 reset
about one in ten), and a chunked request body is read."""

from __future__ import annotations

import http.client
import json

import pytest

from benchmarks import api_burst
from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import server as api_server
from tests import dbs

CLIENTS = 1000


@pytest.mark.skipif(dbs.backend() != 'sqlite',
                    reason='uses no database: run once, with the SQLite run')
def test_a_thousand_concurrent_clients_are_all_served():
    # The client and the server share this process and, in CI, two cores
    # with other test processes: answers may be slow, never refused.
    answers = api_burst.burst(CLIENTS, timeout=120)
    assert answers == {'HTTP/1.1 200 OK': CLIENTS}, answers


def _chunks(body: bytes):
    for start in range(0, len(body), 7):
        yield body[start:start + 7]


def test_a_chunked_request_body_is_read(rpc):
    """``Transfer-Encoding: chunked`` (no Content-Length) carries the whole
    body, over the real server; it used to be read as empty."""
    app = auth.wrap(api_app.build_app(rpc))
    server = api_server.ApiServer(app, '127.0.0.1', 0, threads=2)
    server.start()
    try:
        body = json.dumps({'driver': 'fake-hardware', 'name': 'chunked',
                           'extra': {'from': 'chunks'}}).encode()
        connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                timeout=30)
        connection.request('POST', '/v1/nodes', body=_chunks(body),
                           encode_chunked=True, headers={
                               'Content-Type': 'application/json',
                               'X-OpenStack-Ironic-API-Version': 'latest'})
        response = connection.getresponse()
        answer = json.loads(response.read())
        connection.close()
    finally:
        server.stop()
    assert response.status == 201, answer
    assert answer['name'] == 'chunked'
    assert answer['extra'] == {'from': 'chunks'}
