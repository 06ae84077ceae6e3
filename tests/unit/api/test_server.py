"""The API's HTTP server under a burst: a thousand clients connecting at
once are all served, none reset (cheroot's default listen backlog of 5
reset about one in ten)."""

from __future__ import annotations

import asyncio
import http.client
import json
import time

from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import server as api_server

CLIENTS = 1000


def _slow_app(environ, start_response):
    # Keeps the few server threads busy, as real requests do, so that
    # connections wait in the listen backlog.
    time.sleep(0.002)
    start_response('200 OK', [('Content-Type', 'text/plain'),
                              ('Content-Length', '2')])
    return [b'ok']


async def _get(port: int) -> str:
    try:
        reader, writer = await asyncio.open_connection('127.0.0.1', port)
        writer.write(b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
        await writer.drain()
        answer = await reader.read()
        writer.close()
        return answer.split(b'\r\n', 1)[0].decode()
    except OSError as exc:
        return type(exc).__name__


async def _burst(port: int) -> list[str]:
    return await asyncio.gather(*(_get(port) for _ in range(CLIENTS)))


def test_a_thousand_concurrent_clients_are_all_served():
    server = api_server.ApiServer(_slow_app, '127.0.0.1', 0, threads=4)
    server.start()
    try:
        answers = asyncio.run(asyncio.wait_for(_burst(server.port), 60))
    finally:
        server.stop()
    failed = [a for a in answers if a != 'HTTP/1.1 200 OK']
    assert not failed, '%d of %d failed: %s' % (
        len(failed), CLIENTS, sorted(set(failed)))


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
