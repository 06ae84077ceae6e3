"""The API's HTTP server: a burst of a thousand clients connecting at once
is served whole, none reset (cheroot's default listen backlog of 5 reset
about one in ten), and a chunked request body is read."""

from __future__ import annotations

import http.client
import json

from benchmarks import api_burst
from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import server as api_server

CLIENTS = 1000


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


def test_a_large_answer_arrives_whole_with_its_length(rpc, make_node):
    """A detailed list of megabytes, sent in pieces (see wire.set_body),
    arrives whole over the real server, with Content-Length and not
    chunked; as do the small answers sent in one piece."""
    for index in range(60):
        make_node(name='big-%d' % index, extra={'blob': 'x' * 40000})
    app = auth.wrap(api_app.build_app(rpc))
    server = api_server.ApiServer(app, '127.0.0.1', 0, threads=2)
    server.start()
    try:
        connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                timeout=30)
        answers = []
        for path in ('/v1/nodes/detail', '/v1/nodes?limit=1'):
            connection.request('GET', path, headers={
                'X-OpenStack-Ironic-API-Version': 'latest'})
            response = connection.getresponse()
            answers.append((response, response.read()))
        connection.close()
    finally:
        server.stop()
    (large, large_body), (small, small_body) = answers
    assert len(large_body) > 2_000_000
    assert int(large.getheader('Content-Length')) == len(large_body)
    assert large.getheader('Transfer-Encoding') is None
    nodes = json.loads(large_body)['nodes']
    assert len(nodes) == 60
    assert all(node['extra']['blob'] == 'x' * 40000 for node in nodes)
    assert int(small.getheader('Content-Length')) == len(small_body)
    assert len(json.loads(small_body)['nodes']) == 1
