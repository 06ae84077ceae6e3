"""oslo.messaging plumbing: transport, targets and the context serializer."""

from __future__ import annotations

import oslo_messaging as messaging

from ironside.common import context as ironside_context
from ironside.common.conf import CONF

TOPIC = 'ironside.conductor_manager'
RPC_API_VERSION = '1.0'

# Exceptions from these modules are re-raised in the API as the same class.
ALLOWED_EXMODS = ['ironside.common.exception',
                  'ironside.common.exception_base',
                  'ironside.common.site_exceptions']

_TRANSPORT = None


def get_transport():
    global _TRANSPORT
    if _TRANSPORT is None:
        _TRANSPORT = messaging.get_rpc_transport(
            CONF, allowed_remote_exmods=ALLOWED_EXMODS)
    return _TRANSPORT


def cleanup() -> None:
    global _TRANSPORT
    if _TRANSPORT is not None:
        _TRANSPORT.cleanup()
        _TRANSPORT = None


class ContextSerializer(messaging.NoOpSerializer):
    """Sends the request context along with every call."""

    def serialize_context(self, context):
        return context.to_dict() if context is not None else {}

    def deserialize_context(self, context):
        return ironside_context.RequestContext.from_dict(context or {})


def get_client(target: messaging.Target, timeout: float | None = None):
    return messaging.get_rpc_client(get_transport(), target,
                                    serializer=ContextSerializer(),
                                    timeout=timeout)


def get_server(target: messaging.Target, endpoints: list):
    access_policy = messaging.rpc.dispatcher.DefaultRPCAccessPolicy
    return messaging.get_rpc_server(get_transport(), target, endpoints,
                                    executor='threading',
                                    serializer=ContextSerializer(),
                                    access_policy=access_policy)
