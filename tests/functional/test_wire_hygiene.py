"""What a request can do to the API process's log and its answers, over
the real ``ironside`` process (debug logging on, so the refusals are
logged too): control characters from a request never start a log line
of their own, and bodies it cannot read answer 4xx.

A ``%0A`` in a path arrived decoded, as a line feed, and wrote a forged
line into the access log (and into the debug line of the refusal)."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from tests.functional.fixtures import ironside_process
from tests.utils import wait_for

pytestmark = pytest.mark.functional

# What an attacker would like the log to show: a line of its own (no
# slash, so that the path still names a node, refused with 400 and a
# debug line naming it twice).
FORGED = 'FORGED INFO ironside.api.access GET nodes 200 0.1ms'
# The access logger's own lines (oslo.log's format: level, logger, then
# the context in brackets).
ACCESS = ' INFO ironside.api.access ['


@pytest.fixture
def ironside(tmp_path):
    yield from ironside_process.serve(tmp_path, options={
        'DEFAULT': {'debug': True},
        'api': {'client_socket_timeout': 1}})


def _raw(ironside, request: bytes) -> tuple[int, bytes]:
    sock = socket.create_connection(('127.0.0.1', ironside.port),
                                    timeout=30)
    try:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read()
    finally:
        sock.close()


def _access_lines(ironside, marker: str) -> list[str]:
    return [line for line in ironside.log().splitlines()
            if ACCESS in line and marker in line]


def _no_forged_line(ironside) -> None:
    for line in ironside.log().splitlines():
        # splitlines() splits at a CR, an NEL or U+2028 too.
        assert not line.startswith(FORGED), line


def test_a_line_feed_in_a_path_stays_in_its_one_access_line(ironside):
    path = '/v1/nodes/marker-1%0A' + FORGED.replace(' ', '%20')
    status, _body = _raw(ironside, (
        'GET %s HTTP/1.1\r\nHost: x\r\n'
        'X-OpenStack-Ironic-API-Version: latest\r\n'
        'Connection: close\r\n\r\n' % path).encode())
    assert status == 400
    wait_for(lambda: _access_lines(ironside, 'marker-1'),
             what='the access log line')
    lines = _access_lines(ironside, 'marker-1')
    assert len(lines) == 1, lines
    assert 'GET /v1/nodes/marker-1\\x0a' + FORGED + ' 400 ' in lines[0]
    # The refusal's debug line names the path and the name, escaped by
    # the logging filter.
    refused = [line for line in ironside.log().splitlines()
               if 'refused with 400' in line and 'marker-1' in line]
    assert len(refused) == 1, refused
    assert refused[0].count('marker-1\\x0a' + FORGED) == 2, refused
    _no_forged_line(ironside)


def test_a_carriage_return_in_a_header_forges_nothing(ironside):
    """cheroot takes a bare CR inside a header value (a bare LF ends the
    header line, and then the request is refused): the request is
    answered and logged on one line."""
    status, _body = _raw(ironside, (
        'GET /v1/nodes/marker-2 HTTP/1.1\r\nHost: x\r\n'
        'X-OpenStack-Ironic-API-Version: 1.1\r' + FORGED + '\r\n'
        'Connection: close\r\n\r\n').encode())
    assert status == 406
    wait_for(lambda: _access_lines(ironside, 'marker-2'),
             what='the access log line')
    lines = _access_lines(ironside, 'marker-2')
    assert len(lines) == 1 and ' 406 ' in lines[0], lines
    _no_forged_line(ironside)


def test_bodies_it_cannot_read_answer_4xx(ironside):
    head = ('POST /v1/nodes HTTP/1.1\r\nHost: x\r\n'
            'Content-Type: application/json\r\n')
    status, body = _raw(ironside, (
        head + 'Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'
    ).encode())
    assert status == 400, body
    assert 'Bad chunked transfer size' in json.loads(
        json.loads(body)['error_message'])['faultstring']
    # Shorter than announced, the client waiting: 408 after the
    # configured second.
    status, body = _raw(ironside, (
        head + 'Content-Length: 50\r\n\r\n{"driver": ').encode())
    assert status == 408, body
    assert 'Internal server error' not in ironside.log()
