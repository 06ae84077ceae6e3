"""JSON-RPC between the API and conductors, without a message broker.

``[DEFAULT]rpc_transport = json-rpc``, as Ironic's: each conductor serves
JSON-RPC 2.0 over HTTP (``POST /``) on ``[json_rpc]host_ip:port``, and
the API calls the conductor that owns a node directly, at that
conductor's host name. The all-in-one ``ironside`` runs its API in a
process of its own and reaches its conductor this way, over loopback.

A call::

    {"jsonrpc": "2.0", "id": "...", "method": "do_provisioning_action",
     "params": {"context": {...}, "node_id": "...", "action": "manage"}}

answers ``{"jsonrpc": "2.0", "id": "...", "result": ...}``, or an
``error`` whose ``data`` names the exception's class, so that an
Ironside exception raised in the conductor is raised in the API as the
same class, with its message and code, as oslo.messaging does. Only the
public methods of the manager can be called (oslo.messaging's default
access policy). Values travel as oslo.serialization's JSON (a datetime
as its ISO text), as they do over oslo.messaging.

The endpoint has no authentication of its own: it listens on loopback
unless told otherwise, and is for networks only the API hosts reach.
"""

from __future__ import annotations

import http.client
import importlib
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from oslo_serialization import jsonutils

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import rpc_base
from ironside.common.conf import CONF
from ironside.common.http_server import HttpServer

LOG = logging.getLogger(__name__)

# JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
SERVER_ERROR = -32000

_JSON = [('Content-Type', 'application/json')]


class JsonRpcApp:
    """The WSGI application of a conductor's JSON-RPC endpoint.

    ``metrics``: also answer ``GET /metrics`` with this process's
    Prometheus registry (the all-in-one's API process reads it there).
    """

    def __init__(self, manager: Any,
                 metrics: Callable[[], tuple[bytes, str]] | None = None
                 ) -> None:
        self.manager = manager
        self.metrics = metrics

    def __call__(self, environ: dict, start_response: Callable) -> list:
        method = environ['REQUEST_METHOD']
        if method == 'GET' and environ.get('PATH_INFO') == '/metrics' and \
                self.metrics is not None:
            body, content_type = self.metrics()
            start_response('200 OK', [('Content-Type', content_type)])
            return [body]
        if method != 'POST':
            start_response('405 Method Not Allowed',
                           [('Allow', 'POST')] + _JSON)
            return [b'{}']
        length = int(environ.get('CONTENT_LENGTH') or 0)
        answer = self.answer(environ['wsgi.input'].read(length))
        start_response('200 OK', _JSON)
        return [jsonutils.dump_as_bytes(answer)]

    def answer(self, body: bytes) -> dict[str, Any]:
        """The JSON-RPC answer to one request body."""
        try:
            request = jsonutils.loads(body)
        except ValueError:
            return _error(None, PARSE_ERROR, 'the body is not JSON')
        if not isinstance(request, dict) or \
                not isinstance(request.get('method'), str) or \
                not isinstance(request.get('params', {}), dict):
            return _error(None, INVALID_REQUEST,
                          'not a JSON-RPC 2.0 request')
        call_id = request.get('id')
        name = request['method']
        function = None if name.startswith('_') else \
            getattr(self.manager, name, None)
        if not callable(function):
            return _error(call_id, METHOD_NOT_FOUND,
                          'no method "%s"' % name)
        params = dict(request.get('params') or {})
        context = ironside_context.RequestContext.from_dict(
            params.pop('context', None) or {})
        try:
            result = function(context, **params)
        except rpc_base.ExpectedException as exc:
            return _exception_error(call_id, exc.exc_info[1])
        except exception.IronsideException as exc:
            return _exception_error(call_id, exc)
        except Exception as exc:
            LOG.exception('JSON-RPC method %s failed', name)
            return _error(call_id, SERVER_ERROR, str(exc),
                          {'class': type(exc).__name__,
                           'module': type(exc).__module__})
        return {'jsonrpc': '2.0', 'id': call_id, 'result': result}


def _error(call_id: Any, code: int, message: str,
           data: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {'code': code, 'message': message}
    if data is not None:
        error['data'] = data
    return {'jsonrpc': '2.0', 'id': call_id, 'error': error}


def _exception_error(call_id: Any, exc: BaseException) -> dict[str, Any]:
    message = exc.message if isinstance(
        exc, exception.IronsideException) else str(exc)
    data = {'class': type(exc).__name__, 'module': type(exc).__module__,
            'args': [message],
            'kwargs': jsonutils.to_primitive(getattr(exc, 'kwargs', {}),
                                             convert_instances=True)}
    code = getattr(exc, 'code', None)
    if code is not None:
        data['code'] = int(code)
    return _error(call_id, SERVER_ERROR, message, data)


def remote_exception(error: dict[str, Any]) -> Exception:
    """The exception a conductor's error answer stands for: an Ironside
    exception as its own class, anything else a RemoteError."""
    data = error.get('data') or {}
    message = error.get('message') or ''
    if data.get('module') in rpc_base.ALLOWED_EXMODS:
        module = importlib.import_module(data['module'])
        cls = getattr(module, data.get('class') or '', None)
        if isinstance(cls, type) and \
                issubclass(cls, exception.IronsideException):
            args = data.get('args') or [message]
            kwargs = data.get('kwargs') or {}
            try:
                exc = cls(*args, **kwargs)
            except Exception:
                # A class whose constructor takes other arguments: the
                # same class, with the conductor's message.
                exc = cls.__new__(cls)
                Exception.__init__(exc, message)
                exc.kwargs = kwargs
            if 'code' in data:
                exc.code = data['code']
            return exc
    return rpc_base.RemoteError(data.get('class') or 'Error', message)


class JsonRpcServer:
    """A conductor's JSON-RPC endpoint."""

    def __init__(self, manager: Any, host: str | None = None,
                 port: int | None = None,
                 metrics: Callable[[], tuple[bytes, str]] | None = None
                 ) -> None:
        self.app = JsonRpcApp(manager, metrics)
        self.host = CONF.json_rpc.host_ip if host is None else host
        self._server = HttpServer(
            self.app, self.host,
            CONF.json_rpc.port if port is None else port,
            CONF.json_rpc.threads, name='ironside-json-rpc')

    @property
    def port(self) -> int:
        return self._server.port

    def start(self) -> None:
        try:
            self._server.start()
        except OSError as exc:
            raise exception.ConfigInvalid(
                error_msg='cannot serve JSON-RPC on %s:%s: %s' % (
                    self.host, CONF.json_rpc.port,
                    exc.strerror or exc)) from None

    def stop(self) -> None:
        self._server.stop()


# The client

Address = tuple[str, int]


def conductor_address(host: str) -> Address:
    """Where a conductor serves JSON-RPC: its host name, [json_rpc]port."""
    return host, CONF.json_rpc.port


class _Connections(threading.local):
    """Each thread's open connection to each conductor (keep-alive)."""

    def __init__(self) -> None:
        self.open: dict[Address, http.client.HTTPConnection] = {}


class JsonRpcClient:
    """Calls conductors over JSON-RPC; the contract of oslo.messaging's
    RPC client (``prepare(server=...)``, ``call``, ``cast``)."""

    _ids = itertools.count(1)

    def __init__(self, address_of: Callable[[str], Address] | None = None,
                 server: str | None = None, timeout: float | None = None,
                 connections: _Connections | None = None) -> None:
        self._address_of = address_of or conductor_address
        self._server = server
        self._timeout = timeout
        self._connections = connections or _Connections()

    def prepare(self, server: str | None = None,
                timeout: float | None = None, **_kwargs: Any
                ) -> JsonRpcClient:
        return JsonRpcClient(self._address_of, server or self._server,
                             timeout or self._timeout, self._connections)

    def call(self, context: Any, method: str, **kwargs: Any) -> Any:
        server = self._server
        if server is None:
            raise rpc_base.InvalidTarget('no conductor named', server)
        params = dict(kwargs, context=context.to_dict()
                      if context is not None else {})
        body = jsonutils.dump_as_bytes({
            'jsonrpc': '2.0', 'id': next(self._ids), 'method': method,
            'params': params})
        answer = jsonutils.loads(self._post(server, body))
        if 'error' in answer:
            raise remote_exception(answer['error'])
        return answer.get('result')

    def cast(self, context: Any, method: str, **kwargs: Any) -> None:
        """Run it, answered or not: a failure is logged, not raised."""
        try:
            self.call(context, method, **kwargs)
        except Exception as exc:
            LOG.warning('JSON-RPC cast %s to %s failed: %s', method,
                        self._server, exc)

    def _post(self, server: str, body: bytes) -> bytes:
        """The answer's body. Connecting takes at most
        [api]rpc_response_timeout; the answer, the client's timeout
        (by default the same)."""
        address = self._address_of(server)
        timeout = self._timeout or CONF.api.rpc_response_timeout
        started = time.monotonic()
        for attempt in (1, 2):
            connection = self._connections.open.get(address)
            reused = connection is not None and connection.sock is not None
            if connection is None:
                connection = http.client.HTTPConnection(*address)
                self._connections.open[address] = connection
            if connection.sock is None:
                self._connect(connection, address, min(
                    timeout, CONF.api.rpc_response_timeout))
            connection.sock.settimeout(timeout)
            try:
                connection.request('POST', '/', body, {
                    'Content-Type': 'application/json'})
                response = connection.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError,
                    BrokenPipeError) as exc:
                self._drop(address)
                # The server closed an idle kept-alive connection before
                # it read the request: send it once more, on a new one.
                if reused and attempt == 1:
                    continue
                raise self._unreachable(
                    address, str(exc) or type(exc).__name__) from None
            except (TimeoutError, socket.timeout):
                self._drop(address)
                raise self._unreachable(address, 'no answer within %.1fs' % (
                    time.monotonic() - started)) from None
            except OSError as exc:
                self._drop(address)
                raise self._unreachable(
                    address, exc.strerror or str(exc)) from None
            if response.status != 200:
                raise self._unreachable(address, 'HTTP %d' % response.status)
            return data
        raise AssertionError('unreachable')

    def _connect(self, connection: http.client.HTTPConnection,
                 address: Address, timeout: float) -> None:
        connection.timeout = timeout
        try:
            connection.connect()
        except (TimeoutError, socket.timeout):
            self._drop(address)
            raise self._unreachable(
                address, 'no connection within %.1fs' % timeout) from None
        except OSError as exc:
            self._drop(address)
            raise self._unreachable(
                address, exc.strerror or str(exc)) from None

    def _unreachable(self, address: Address, reason: str
                     ) -> exception.ConductorUnreachable:
        return exception.ConductorUnreachable(
            host=self._server, address='%s:%d' % address, reason=reason)

    def _drop(self, address: Address) -> None:
        connection = self._connections.open.pop(address, None)
        if connection is not None:
            connection.close()
