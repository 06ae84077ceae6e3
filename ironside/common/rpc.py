"""oslo.messaging plumbing: transport, targets, the context serializer,
and a client that gives up on the conductors in bounded time.

oslo.messaging, left to itself, waits for a broker that cannot be
reached for as long as the outage lasts (during a 19 s RabbitMQ outage
requests hung 25-81 s) and then sends the call anyway. Calls made
through :class:`BoundedClient` are handed to the broker without
oslo.messaging's own retries, tried again every
:data:`SEND_RETRY_INTERVAL` seconds within [api]rpc_response_timeout
(while the broker refuses them, or returns them because the conductor's
queue is not there, as just after the broker restarted), and then
refused with ConductorUnreachable (503): a call refused that way was not
sent, and is not sent later.

Only the processes that use ``[DEFAULT]rpc_transport = oslo`` import this
module (and so oslo.messaging); what every transport shares is in
:mod:`ironside.common.rpc_base`. Importing it registers
[DEFAULT]transport_url and control_exchange.

oslo.messaging's server is an oslo.service service, and oslo.service
loads its eventlet backend unless told otherwise: eventlet would then
stay resident (about 19 MiB per process) for green threads Ironside
never runs (its server's executor is ``threading``). This module picks
oslo.service's threading backend before it loads oslo.messaging, and
hides eventlet from oslo.utils' optional import of it.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from typing import Any

from kombu import exceptions as kombu_exc
from oslo_service import backend as service_backend

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import rpc_base
from ironside.common.conf import CONF
from ironside.common.eventlet_free import without_eventlet

with without_eventlet():
    # Unless something chose one first (a test's own import of
    # oslo.messaging, say).
    if service_backend.get_backend_type() is None:
        service_backend.init_backend(service_backend.BackendType.THREADING)
    import oslo_messaging as messaging
    from oslo_messaging import opts as messaging_opts

LOG = logging.getLogger(__name__)

# oslo.messaging registers transport_url and control_exchange only when a
# transport is first made; register them now (from its public list of
# options, equal to the ones it registers later) so config files and tests
# can set them before that.
messaging.set_transport_defaults('ironside')
_TRANSPORT_OPTS = ('transport_url', 'control_exchange')
for _group, _opts in messaging_opts.list_opts():
    if _group is None:
        CONF.register_opts([opt for opt in _opts
                            if opt.name in _TRANSPORT_OPTS])

# Seconds between attempts to hand a call to a broker that refused it.
SEND_RETRY_INTERVAL = 0.5

# What a broker that cannot take a call raises, without oslo.messaging's
# retries: its own error, or (when a new connection is opened for the
# call) kombu's, the library oslo.messaging's RabbitMQ driver uses; and
# what a call no queue takes raises (the conductor has not declared its
# queue again since the broker restarted): MessageUndeliverable.
NOT_SENT = (messaging.MessageDeliveryFailure, kombu_exc.OperationalError,
            messaging.MessageUndeliverable)

_TRANSPORT = None
_REPLY_QUEUE: _ReplyQueue | None = None


def get_transport() -> messaging.Transport:
    global _TRANSPORT, _REPLY_QUEUE
    if _TRANSPORT is None:
        _TRANSPORT = messaging.get_rpc_transport(
            CONF, allowed_remote_exmods=rpc_base.ALLOWED_EXMODS)
        _REPLY_QUEUE = _ReplyQueue(_TRANSPORT)
    return _TRANSPORT


def cleanup() -> None:
    global _TRANSPORT, _REPLY_QUEUE
    if _TRANSPORT is not None:
        _TRANSPORT.cleanup()
        _TRANSPORT = None
        _REPLY_QUEUE = None


class ContextSerializer(messaging.NoOpSerializer):
    """Sends the request context along with every call."""

    def serialize_context(self, context: ironside_context.RequestContext | None
                          ) -> dict[str, Any]:
        return context.to_dict() if context is not None else {}

    def deserialize_context(self, context: dict[str, Any] | None
                            ) -> ironside_context.RequestContext:
        return ironside_context.RequestContext.from_dict(context or {})


class _ReplyQueue:
    """The queue answers to this process's calls come back on.

    oslo.messaging declares it at the first call, waiting for the broker
    however long that takes; a first call made during an outage would
    hang until the broker came back, and then be sent. It is declared
    here by a thread of its own, and a call waits for it only as long as
    its budget allows, sending nothing when that runs out.
    """

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._declaring = False

    def wait(self, timeout: float) -> bool:
        with self._lock:
            if not self._ready.is_set() and not self._declaring:
                self._declaring = True
                threading.Thread(target=self._declare, daemon=True,
                                 name='ironside-rpc-reply-queue').start()
        return self._ready.wait(timeout)

    def _declare(self) -> None:
        # oslo.messaging's AMQP drivers (RabbitMQ) have one; others,
        # such as its in-memory fake driver, need none declared first.
        declare = getattr(self._transport._driver, '_get_reply_q', None)
        try:
            if declare is not None:
                declare()
            self._ready.set()
        except Exception:
            LOG.exception('Could not declare the RPC reply queue')
        finally:
            with self._lock:
                self._declaring = False


def broker_address() -> str:
    """Where the broker is, for messages: its hosts and ports from
    [DEFAULT]transport_url, never the credentials in it."""
    try:
        url = messaging.TransportURL.parse(CONF, CONF.transport_url)
    except Exception:
        return 'the message broker'
    hosts = ['%s:%s' % (host.hostname, host.port) for host in url.hosts]
    return 'message broker %s' % ', '.join(hosts) if hosts else \
        'the message broker'


def _cause(exc: Exception) -> str:
    """"Connection refused" from oslo.messaging's "Unable to connect to
    AMQP server on ...: [Errno 111] Connection refused"."""
    if isinstance(exc, messaging.MessageUndeliverable):
        return 'no queue of the conductor on the broker'
    text = str(exc)
    errno = re.search(r'\[Errno -?\d+\] (.+)$', text)
    if errno:
        return errno.group(1).strip()
    return text if len(text) <= 200 else text[:200] + '...'


class BoundedClient:
    """oslo.messaging's RPC client, giving up in bounded time; the same
    contract (``prepare(server=..., timeout=...)``, ``call``, ``cast``).

    ``timeout``: seconds to wait for the answer (by default, and at
    most for handing the call to the broker, [api]rpc_response_timeout).
    """

    def __init__(self, client: Any, server: str | None = None,
                 timeout: float | None = None) -> None:
        self._client = client
        self._server = server
        self._timeout = timeout

    def prepare(self, server: str | None = None,
                timeout: float | None = None, **_kwargs: Any
                ) -> BoundedClient:
        return BoundedClient(self._client, server or self._server,
                             timeout or self._timeout)

    def call(self, context: Any, method: str, **kwargs: Any) -> Any:
        return self._send(context, method, kwargs, wait=True)

    def cast(self, context: Any, method: str, **kwargs: Any) -> None:
        self._send(context, method, kwargs, wait=False)

    def _send(self, context: Any, method: str, kwargs: dict[str, Any],
              wait: bool) -> Any:
        timeout = self._timeout or CONF.api.rpc_response_timeout
        started = time.monotonic()
        answer_by = started + timeout
        send_by = started + min(timeout, CONF.api.rpc_response_timeout)
        if _REPLY_QUEUE is not None and wait and \
                not _REPLY_QUEUE.wait(send_by - started):
            raise self._unreachable('no connection to it within %.1fs'
                                    % (time.monotonic() - started))
        while True:
            client = self._client.prepare(
                server=self._server, retry=0,
                timeout=max(answer_by - time.monotonic(), 0.1))
            try:
                if wait:
                    return client.call(context, method, **kwargs)
                client.cast(context, method, **kwargs)
                return None
            except NOT_SENT as exc:
                if time.monotonic() + SEND_RETRY_INTERVAL >= send_by:
                    raise self._unreachable('%s, for %.1fs' % (
                        _cause(exc), time.monotonic() - started)) from None
                LOG.info('%s refused %s for conductor %s: %s; trying '
                         'again', broker_address(), method, self._server,
                         _cause(exc))
                time.sleep(SEND_RETRY_INTERVAL)
            except messaging.MessagingTimeout:
                raise self._unreachable('no answer within %.1fs' % (
                    time.monotonic() - started)) from None

    def _unreachable(self, reason: str) -> exception.ConductorUnreachable:
        return exception.ConductorUnreachable(
            host=self._server or rpc_base.TOPIC,
            address=broker_address(), reason=reason)


def get_client(target: messaging.Target) -> BoundedClient:
    # at_least_once: a call no queue takes is returned by the broker
    # (MessageUndeliverable) rather than dropped and waited for.
    return BoundedClient(messaging.get_rpc_client(
        get_transport(), target, serializer=ContextSerializer(),
        transport_options=messaging.TransportOptions(at_least_once=True)))


def conductor_target(server: str | None = None) -> messaging.Target:
    """The conductors' topic (and one conductor's queue on it)."""
    return messaging.Target(topic=rpc_base.TOPIC, server=server,
                            version=rpc_base.RPC_API_VERSION)


class _Endpoint:
    """A conductor manager as oslo.messaging's server calls it: with the
    API version it serves, and rpc_base's ExpectedException raised as
    oslo.messaging's (handed back to the caller as the exception it
    holds, logged without a traceback)."""

    target = messaging.Target(version=rpc_base.RPC_API_VERSION)

    def __init__(self, manager: Any) -> None:
        self._manager = manager

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._manager, name)
        if not callable(method):
            return method

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except rpc_base.ExpectedException as exc:
                expected = messaging.ExpectedException()
                expected.exc_info = exc.exc_info
                raise expected from None
        return call


def get_server(target: messaging.Target, endpoints: list[Any]
               ) -> messaging.MessageHandlingServer:
    access_policy = messaging.rpc.dispatcher.DefaultRPCAccessPolicy
    return messaging.get_rpc_server(get_transport(), target,
                                    [_Endpoint(e) for e in endpoints],
                                    executor='threading',
                                    serializer=ContextSerializer(),
                                    access_policy=access_policy)
