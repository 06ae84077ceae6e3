"""What the three ways of reaching a conductor share (oslo.messaging,
JSON-RPC, in-process calls), without oslo.messaging itself.

oslo.messaging is ~0.9 s of CPU at start and stays resident; only the
processes that use ``[DEFAULT]rpc_transport = oslo`` load it, through
:mod:`ironside.common.rpc`. The others (the all-in-one, an API or
conductor on JSON-RPC) use the names here: the
conductor's topic and API version, the modules whose exceptions a caller
gets back as themselves, the marker of an exception a conductor method
raises on purpose, and the errors of the JSON-RPC client.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any
from typing import ParamSpec
from typing import TypeVar

TOPIC = 'ironside.conductor_manager'
RPC_API_VERSION = '1.0'

# Exceptions from these modules are re-raised in the API as the same class.
ALLOWED_EXMODS = ['ironside.common.exception',
                  'ironside.common.exception_base',
                  'ironside.common.site_exceptions']

_Params = ParamSpec('_Params')
_Result = TypeVar('_Result')


class ExpectedException(Exception):
    """An exception a conductor method raised on purpose, in
    ``exc_info``: the RPC servers hand it back to the caller as itself
    and log it without a traceback (oslo.messaging's own marker of the
    same name, which :mod:`ironside.common.rpc` turns this one into)."""

    def __init__(self) -> None:
        super().__init__()
        raised = sys.exception()
        if raised is None:
            raise TypeError('ExpectedException is made while handling '
                            'the exception it holds')
        self.exc_info: tuple[type[BaseException], BaseException,
                             TracebackType | None] = (
            type(raised), raised, raised.__traceback__)


def expected_exceptions(*exceptions: type[BaseException]
                        ) -> Callable[[Callable[_Params, _Result]],
                                      Callable[_Params, _Result]]:
    """Raise the given exceptions as :class:`ExpectedException`
    (oslo.messaging's decorator of the same name)."""
    def outer(func: Callable[_Params, _Result]
              ) -> Callable[_Params, _Result]:
        @functools.wraps(func)
        def inner(*args: _Params.args, **kwargs: _Params.kwargs
                  ) -> _Result:
            try:
                return func(*args, **kwargs)
            except exceptions:
                raise ExpectedException() from None
        return inner
    return outer


class RpcError(Exception):
    """An error of the JSON-RPC client, not of the conductor's work."""


class RemoteError(RpcError):
    """The conductor raised an exception that is not Ironside's (as
    oslo.messaging's RemoteError: its class name and message)."""

    def __init__(self, exc_type: str | None = None, value: str | None = None,
                 traceback: str | None = None) -> None:
        self.exc_type = exc_type
        self.value = value
        self.traceback = traceback
        super().__init__('Remote error: %s %s\n%s.' % (exc_type, value,
                                                        traceback))


class InvalidTarget(RpcError, ValueError):
    """A call that names no conductor."""

    def __init__(self, msg: str, target: Any) -> None:
        super().__init__(msg + ':' + str(target))
        self.target = target


def is_rpc_error(exc: BaseException) -> bool:
    """Whether ``exc`` is the RPC layer's error rather than the
    conductor's answer: ours, or oslo.messaging's (whose module is
    loaded if, and only if, that transport is in use)."""
    if isinstance(exc, RpcError):
        return True
    messaging = sys.modules.get('oslo_messaging')
    return messaging is not None and \
        isinstance(exc, messaging.MessagingException)
