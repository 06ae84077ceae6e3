"""Status responses of the decommission steps, in Airship's shape.

Every step of a decommission (drain, clear labels, etcd member removal,
etcd health, kubelet shutdown, removal from the cluster) and the
decommission as a whole answer with a :class:`Status`, the UCP/Airship
status response the teardown spec names::

    {"kind": "status", "apiVersion": "v1.0", "metadata": {},
     "status": "Success" | "Failure", "message": "...", "reason": "...",
     "code": 200, "retry": false,
     "details": {"errorCount": 1,
                 "messageList": [{"message": "...", "error": true,
                                  "kind": "StepMessage", "name": "drain"}]}}

A status is a frozen record; ``as_dict``/``from_dict`` turn it into that
JSON and back, so an action's report can store it and show it again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any
from urllib import parse

from ironside.common import exception

API_VERSION = 'v1.0'

SUCCESS = 'Success'
FAILURE = 'Failure'

# Reasons, as the spec spells them, and the HTTP code each answers with.
NOT_FOUND = 'NotFound'
BAD_REQUEST = 'BadRequest'
MISSING_DESIGN_REF = 'MissingDesignRef'
CONFLICT = 'Conflict'
DRAIN_NODE_ERROR = 'DrainNodeError'
CLEAR_LABELS_ERROR = 'ClearLabelsError'
REMOVE_ETCD_ERROR = 'RemoveEtcdError'
ETCD_NOT_ACCESSIBLE = 'EtcdNotAccessible'
SHUTDOWN_KUBELET_ERROR = 'ShutdownKubeletError'
DELETE_NODE_ERROR = 'DeleteNodeError'
DISASSOCIATE_STEP_FAILURE = 'DisassociateStepFailure'
# Ironside's own, for the redeploy_server steps the spec leaves to
# Drydock's status responses: destroying the server, deploying it again.
DESTROY_NODE_ERROR = 'DestroyNodeError'
DEPLOY_NODE_ERROR = 'DeployNodeError'

CODES = {
    SUCCESS: 200,
    BAD_REQUEST: 400,
    MISSING_DESIGN_REF: 400,
    NOT_FOUND: 404,
    CONFLICT: 409,
    DRAIN_NODE_ERROR: 500,
    CLEAR_LABELS_ERROR: 500,
    REMOVE_ETCD_ERROR: 500,
    ETCD_NOT_ACCESSIBLE: 500,
    SHUTDOWN_KUBELET_ERROR: 500,
    DELETE_NODE_ERROR: 500,
    DISASSOCIATE_STEP_FAILURE: 500,
    DESTROY_NODE_ERROR: 500,
    DEPLOY_NODE_ERROR: 500,
}

# Kinds of the entries of details.messageList.
SIMPLE_MESSAGE = 'SimpleMessage'
STEP_MESSAGE = 'StepMessage'
HEALTH_MESSAGE = 'HealthMessage'

# The etcd health messages of the spec.
HEALTHY = 'Healthy'
UNHEALTHY = 'Unhealthy'
UNABLE_TO_ACCESS_ETCD = 'Unable to access Etcd'


@dataclasses.dataclass(frozen=True)
class Message:
    """One entry of ``details.messageList``."""

    message: str
    name: str
    error: bool = False
    kind: str = SIMPLE_MESSAGE

    def as_dict(self) -> dict[str, Any]:
        return {'message': self.message, 'error': self.error,
                'kind': self.kind, 'name': self.name}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Message:
        return cls(message=str(value.get('message', '')),
                   name=str(value.get('name', '')),
                   error=bool(value.get('error', False)),
                   kind=str(value.get('kind', SIMPLE_MESSAGE)))


@dataclasses.dataclass(frozen=True)
class Status:
    """An Airship status response."""

    reason: str
    message: str
    code: int
    messages: tuple[Message, ...] = ()
    retry: bool = False

    @property
    def status(self) -> str:
        return SUCCESS if self.reason == SUCCESS else FAILURE

    @property
    def succeeded(self) -> bool:
        return self.reason == SUCCESS

    @property
    def error_count(self) -> int:
        return sum(1 for m in self.messages if m.error)

    def as_dict(self) -> dict[str, Any]:
        return {
            'kind': 'status',
            'apiVersion': API_VERSION,
            'metadata': {},
            'status': self.status,
            'message': self.message,
            'reason': self.reason,
            'code': self.code,
            'details': {'errorCount': self.error_count,
                        'messageList': [m.as_dict() for m in self.messages]},
            'retry': self.retry,
        }

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Status:
        details = value.get('details') or {}
        return cls(reason=str(value['reason']),
                   message=str(value.get('message', '')),
                   code=int(value['code']),
                   messages=tuple(Message.from_dict(m) for m in
                                  details.get('messageList') or ()),
                   retry=bool(value.get('retry', False)))

    def __str__(self) -> str:
        return '%s (%d): %s' % (self.reason, self.code, self.message)


def carried(exc: exception.DecommissionFailed) -> Status:
    """The Status a DecommissionFailed carries (the exception's module,
    a layer below, types it Any)."""
    status: Status = exc.status
    return status


def success(message: str, messages: Iterable[Message] = ()) -> Status:
    return Status(SUCCESS, message, CODES[SUCCESS], tuple(messages))


def failure(reason: str, message: str, messages: Iterable[Message] = (),
            retry: bool = False) -> Status:
    """A failure status; its code is the one the spec gives ``reason``."""
    if reason == SUCCESS or reason not in CODES:
        raise ValueError('not a failure reason: %r' % reason)
    return Status(reason, message, CODES[reason], tuple(messages), retry)


def not_found(node: str) -> Status:
    return failure(NOT_FOUND, 'Node %s could not be found in Kubernetes'
                   % node)


def endpoint(url: str) -> str:
    """An endpoint as an error names it: scheme, host and port, without
    the credentials a URL may carry (``user:password@``), its path or its
    query."""
    parsed = parse.urlsplit(url if '//' in url else '//' + url)
    host = parsed.hostname or '?'
    if ':' in host:
        host = '[%s]' % host
    try:
        port = parsed.port
    except ValueError:
        port = None
    if not parsed.scheme:
        return host if port is None else '%s:%d' % (host, port)
    return '%s://%s%s' % (parsed.scheme, host,
                          '' if port is None else ':%d' % port)


def unreachable(exc: BaseException) -> str:
    """Why a request got no answer, briefly: the class of the error, and
    the system's reason (``Connection refused``) when one caused it."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        if isinstance(current, OSError) and current.strerror:
            return '%s: %s' % (type(exc).__name__, current.strerror)
        reason = getattr(current, 'reason', None)
        current = reason if isinstance(reason, BaseException) else \
            current.__cause__ or current.__context__
    return type(exc).__name__
