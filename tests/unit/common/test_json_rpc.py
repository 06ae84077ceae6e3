"""JSON-RPC between the API and a conductor, over real HTTP on loopback:
results, contexts and errors cross as they do over oslo.messaging."""

from __future__ import annotations

import datetime
import http.client
import json
import re
import socket
import threading

import pytest

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import json_rpc
from ironside.common import rpc_base
from ironside.conductor import utils as conductor_utils


class Manager:
    """A stand-in for a conductor manager: its methods are wrapped as the
    manager's are (Ironside's errors go back as expected exceptions)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def echo(self, context, value, when=None):
        return {'value': value, 'when': when or datetime.datetime(
            2026, 11, 26, 12, 0, 0), 'request_id': context.request_id,
            'project': context.project_id}

    @conductor_utils.rpc_endpoint
    def locked(self, context, node_id):
        raise exception.NodeLocked(node=node_id, host='conductor-7')

    @conductor_utils.rpc_endpoint
    def bad_design(self, context):
        raise exception.InvalidDesign('Design revision 3',
                                      ['document "nodes": no name'])

    def broken(self, context):
        raise ValueError('a bug, not an answer')

    def _private(self, context):
        return 'never'

    def wait(self, context):
        self.release.wait(10)
        return 'released'


@pytest.fixture
def manager():
    return Manager()


@pytest.fixture
def server(manager, conf):
    endpoint = json_rpc.JsonRpcServer(
        manager, '127.0.0.1', 0, lambda: (b'ironside_up 1.0\n', 'text/plain'))
    endpoint.start()
    yield endpoint
    manager.release.set()
    endpoint.stop()


def client(server, **kwargs):
    return json_rpc.JsonRpcClient(
        lambda host: ('127.0.0.1', server.port), **kwargs).prepare(
        server='conductor-7')


def context():
    return ironside_context.RequestContext(request_id='req-42',
                                           project_id='tenant-a')


def test_a_call_answers_its_result_with_the_context(server):
    answer = client(server).call(context(), 'echo', value=[1, 'two'])
    assert answer == {'value': [1, 'two'],
                      'when': '2026-11-26T12:00:00.000000',
                      'request_id': 'req-42', 'project': 'tenant-a'}


def test_an_ironside_error_is_raised_as_itself(server):
    with pytest.raises(exception.NodeLocked) as err:
        client(server).call(context(), 'locked', node_id='node-1')
    assert err.value.code == 409
    assert err.value.message == (
        'Node node-1 is locked by host conductor-7, please retry after the '
        'current operation is completed.')
    assert err.value.kwargs == {'node': 'node-1', 'host': 'conductor-7'}


def test_an_error_with_its_own_constructor_keeps_class_and_message(server):
    with pytest.raises(exception.InvalidDesign) as err:
        client(server).call(context(), 'bad_design')
    assert err.value.code == 400
    assert err.value.message == \
        'Design revision 3:\n  document "nodes": no name'


def test_any_other_error_is_a_remote_error(server):
    with pytest.raises(rpc_base.RemoteError) as err:
        client(server).call(context(), 'broken')
    assert err.value.exc_type == 'ValueError'
    assert 'a bug, not an answer' in str(err.value)


@pytest.mark.parametrize('method', ['_private', 'nosuch', '__init__'])
def test_only_public_methods_can_be_called(server, method):
    with pytest.raises(rpc_base.RemoteError) as err:
        client(server).call(context(), method)
    assert 'no method "%s"' % method in str(err.value)


def test_a_conductor_that_does_not_answer_in_time(server, manager):
    with pytest.raises(exception.ConductorUnreachable) as err:
        client(server, timeout=0.3).call(context(), 'wait')
    assert err.value.code == 503
    assert re.match(r'Conductor conductor-7 can not be reached at '
                    r'127\.0\.0\.1:\d+ \(no answer within 0\.\ds\); '
                    r'please retry\.$', err.value.message), err.value.message
    manager.release.set()
    # The connection that timed out is dropped; the next call is fine.
    assert client(server).call(context(), 'echo', value=1)['value'] == 1


def test_calls_wait_rpc_response_timeout_by_default(server, manager,
                                                   conf):
    conf.set('api', rpc_response_timeout=0.3)
    with pytest.raises(exception.ConductorUnreachable) as err:
        client(server).call(context(), 'wait')
    assert 'no answer within 0.' in err.value.message


def test_a_conductor_not_listening_is_unreachable(conf):
    endpoint = json_rpc.JsonRpcServer(Manager(), '127.0.0.1', 0)
    endpoint.start()
    port = endpoint.port
    endpoint.stop()
    unreachable = json_rpc.JsonRpcClient(
        lambda host: ('127.0.0.1', port)).prepare(server='conductor-7')
    with pytest.raises(exception.ConductorUnreachable) as err:
        unreachable.call(context(), 'echo', value=1)
    assert err.value.code == 503
    assert 'Conductor conductor-7 can not be reached at 127.0.0.1:%d' \
        % port in err.value.message


class ClosingAfterEachAnswer:
    """A conductor that closes each connection after answering, without
    saying so, as a server closing an idle kept-alive one does."""

    def __init__(self) -> None:
        self.listener = socket.create_server(('127.0.0.1', 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                connection, _address = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            with connection:
                request = b''
                while b'\r\n\r\n' not in request:
                    request += connection.recv(65536)
                head, body = request.split(b'\r\n\r\n', 1)
                length = int(re.search(rb'Content-Length: (\d+)',
                                       head).group(1))
                while len(body) < length:
                    body += connection.recv(65536)
                answer = json.dumps({'jsonrpc': '2.0', 'result':
                                     json.loads(body)['params']['value']})
                connection.sendall(
                    b'HTTP/1.1 200 OK\r\nContent-Type: application/json'
                    b'\r\nContent-Length: %d\r\n\r\n%s'
                    % (len(answer), answer.encode()))


def test_a_kept_connection_the_server_closed_is_opened_again(conf):
    """The client keeps its connection open; the conductor closed it:
    the call goes out once more, on a new connection."""
    conductor = ClosingAfterEachAnswer()
    calls = json_rpc.JsonRpcClient(
        lambda host: ('127.0.0.1', conductor.port)).prepare(server='c7')
    try:
        assert calls.call(context(), 'echo', value=1) == 1
        assert calls.call(context(), 'echo', value=2) == 2
        assert calls.call(context(), 'echo', value=3) == 3
    finally:
        conductor.listener.close()
    assert conductor.connections == 3


def test_a_cast_logs_a_failure_and_returns(server, caplog):
    assert client(server).cast(context(), 'broken') is None
    assert 'JSON-RPC cast broken to conductor-7 failed' in caplog.text


def raw(server, method, body=b''):
    connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                            timeout=5)
    connection.request(method, '/metrics' if method == 'GET' else '/',
                       body)
    response = connection.getresponse()
    return response.status, response.read()


def test_bad_requests_get_json_rpc_errors(server):
    status, body = raw(server, 'POST', b'{not json')
    assert status == 200
    assert json.loads(body)['error']['code'] == json_rpc.PARSE_ERROR
    status, body = raw(server, 'POST', b'[1, 2]')
    assert json.loads(body)['error']['code'] == json_rpc.INVALID_REQUEST
    status, _body = raw(server, 'PUT')
    assert status == 405


def test_the_endpoint_serves_its_metrics(server):
    assert raw(server, 'GET') == (200, b'ironside_up 1.0\n')
