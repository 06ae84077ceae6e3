"""Request bodies the API cannot read whole, over the real server (a raw
socket sends them): a malformed chunked coding is refused with 400, a
body shorter than its Content-Length with 408 once
``[api]client_socket_timeout`` passes (400 at once if the client closed
its side), in Ironic's error format, and the connection is closed: what
is left on it is not a next request. These answered 500, the short body
after 10 s."""

from __future__ import annotations

import http.client
import json
import socket
import time

import pytest

from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import server as api_server

SOCKET_TIMEOUT = 1
HEAD = ('POST /v1/nodes HTTP/1.1\r\nHost: localhost\r\n'
        'Content-Type: application/json\r\n'
        'X-OpenStack-Ironic-API-Version: latest\r\n')


# The socket timeout of a server whose answers must come well before it.
LONG_SOCKET_TIMEOUT = 10


def _serve(rpc, timeout: float):
    served = api_server.ApiServer(auth.wrap(api_app.build_app(rpc)),
                                  '127.0.0.1', 0, threads=2,
                                  timeout=timeout)
    served.start()
    return served


@pytest.fixture
def server(rpc):
    served = _serve(rpc, SOCKET_TIMEOUT)
    yield served
    served.stop()


@pytest.fixture
def patient_server(rpc):
    served = _serve(rpc, LONG_SOCKET_TIMEOUT)
    yield served
    served.stop()


def _send(server, raw: bytes, half_close: bool = False):
    """Send ``raw``; the answer, its faultstring, the seconds it took,
    and whether the server closed the connection after it."""
    sock = socket.create_connection(('127.0.0.1', server.port), timeout=30)
    started = time.monotonic()
    try:
        sock.sendall(raw)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(sock)
        response.begin()
        body = response.read()
        took = time.monotonic() - started
        closed = sock.recv(1) == b''
    finally:
        sock.close()
    fault = json.loads(json.loads(body)['error_message'])
    assert fault['debuginfo'] is None
    return response, fault['faultstring'], took, closed


def _chunked(body: bytes) -> bytes:
    return (HEAD + 'Transfer-Encoding: chunked\r\n\r\n').encode() + body


@pytest.mark.parametrize('chunks, problem', [
    (b'zz\r\n{}\r\n0\r\n\r\n', "Bad chunked transfer size: b'zz'"),
    (b'2\r\n{}XX0\r\n\r\n', 'Bad chunked transfer coding'),
])
def test_a_malformed_chunked_body_is_refused_with_400(server, chunks,
                                                      problem):
    response, fault, _took, closed = _send(server, _chunked(chunks))
    assert response.status == 400, fault
    assert fault.startswith('The request body cannot be read: ')
    assert problem in fault
    assert response.getheader('Connection') == 'close'
    assert closed


def test_a_body_shorter_than_announced_times_out_with_408(server):
    raw = (HEAD + 'Content-Length: 100\r\n\r\n').encode() + b'{"driver": '
    response, fault, took, closed = _send(server, raw)
    assert response.status == 408, fault
    assert fault == ('The request body did not arrive in time: it stopped '
                     'arriving for longer than [api]client_socket_timeout')
    # Answered once the timeout passed, not after a second wait for the
    # rest of the body.
    assert SOCKET_TIMEOUT <= took < 2 * SOCKET_TIMEOUT + 1
    assert response.getheader('Connection') == 'close'
    assert closed


def test_a_body_cut_short_by_the_client_is_refused_with_400(
        patient_server):
    # At once, not after the socket timeout: a timeout far above what a
    # loaded machine takes to answer (1 s was not, with three unit suites
    # sharing two cores).
    raw = (HEAD + 'Content-Length: 100\r\n\r\n').encode() + b'{}'
    response, fault, took, closed = _send(patient_server, raw,
                                          half_close=True)
    assert response.status == 400, fault
    assert fault == ('The request body cannot be read: it ended after 2 '
                     'of the 100 bytes its Content-Length announced')
    assert took < LONG_SOCKET_TIMEOUT / 2
    assert closed


def test_a_whole_body_still_keeps_the_connection(server):
    """The other answers leave keep-alive as it was."""
    body = json.dumps({'driver': 'fake-hardware'}).encode()
    connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                            timeout=30)
    statuses = []
    for _ in range(2):
        connection.request('POST', '/v1/nodes', body=body, headers={
            'Content-Type': 'application/json',
            'X-OpenStack-Ironic-API-Version': 'latest'})
        response = connection.getresponse()
        response.read()
        statuses.append((response.status, response.getheader('Connection')))
    connection.close()
    assert statuses == [(201, None), (201, None)]
