"""A burst of clients connecting to the API's HTTP server at once: how
many are served, and how many are reset or refused.

    python -m benchmarks.api_burst --clients 1000 --backlog 1024,5

Issue 17 measured 116 resets of 1,000 concurrent requests with cheroot's
default listen backlog of 5; ``[api]backlog`` (default 1024) is the
server's backlog now. The server runs a WSGI application that keeps its
few threads busy for a moment per request, as real requests do, so that
connections queue in the backlog.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import time

from ironside.api import server as api_server


def slow_app(environ, start_response):
    time.sleep(0.002)
    start_response('200 OK', [('Content-Type', 'text/plain'),
                              ('Content-Length', '2')])
    return [b'ok']


async def _get(port: int, timeout: float) -> str:
    """The status line of one request on a fresh connection, or the name
    of the error that ended it."""
    try:
        return await asyncio.wait_for(_request(port), timeout)
    except asyncio.TimeoutError:
        return 'no answer in %ds' % timeout


async def _request(port: int) -> str:
    try:
        reader, writer = await asyncio.open_connection('127.0.0.1', port)
        writer.write(b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
        await writer.drain()
        answer = await reader.read()
        writer.close()
        return answer.split(b'\r\n', 1)[0].decode() or 'empty answer'
    except OSError as exc:
        return type(exc).__name__


def burst(clients: int, backlog: int | None = None, threads: int = 4,
          timeout: float = 20) -> collections.Counter:
    """Answers (status line or error) of ``clients`` requests sent at
    once to an ApiServer with ``backlog`` (the server's default if None).
    """
    kwargs = {} if backlog is None else {'backlog': backlog}
    server = api_server.ApiServer(slow_app, '127.0.0.1', 0, threads=threads,
                                  **kwargs)
    server.start()

    async def _all():
        return await asyncio.gather(*(_get(server.port, timeout)
                                      for _ in range(clients)))
    try:
        return collections.Counter(asyncio.run(_all()))
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--clients', type=int, default=1000)
    parser.add_argument('--backlog', default='1024,5',
                        help='backlogs to compare, comma-separated')
    parser.add_argument('--threads', type=int, default=4)
    args = parser.parse_args()
    for backlog in (int(b) for b in args.backlog.split(',')):
        began = time.monotonic()
        answers = burst(args.clients, backlog, args.threads)
        served = answers.pop('HTTP/1.1 200 OK', 0)
        print('backlog %5d: %d of %d served in %.1fs; %s' % (
            backlog, served, args.clients, time.monotonic() - began,
            ', '.join('%d %s' % (n, what) for what, n in answers.items())
            or 'none failed'))


if __name__ == '__main__':
    main()
