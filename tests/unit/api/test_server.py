"""The API's HTTP server under a burst: a thousand clients connecting at
once are all served, none reset (cheroot's default listen backlog of 5
reset about one in ten)."""

from __future__ import annotations

import asyncio
import time

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
