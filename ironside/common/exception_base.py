"""The kinds of error every other derives from, one per HTTP status.

:mod:`ironside.common.exception` and :mod:`ironside.common.site_exceptions`
both build on these (and the first names them too), so neither imports
the other. The module is listed in oslo.messaging's
``allowed_remote_exmods`` beside them: an error of one of these classes
raised in a conductor reaches the API as the same class.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any


class IronsideException(Exception):
    msg_fmt = "An unknown error occurred."
    # An HTTPStatus, or any int a raiser gives (``code=``).
    code: int = HTTPStatus.INTERNAL_SERVER_ERROR
    # Short, stable, CamelCase reason stored on a node that this error failed.
    failure_reason = 'InternalError'

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if 'code' in kwargs:
            self.code = kwargs.pop('code')
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                # A programming error in a caller must not hide the real one.
                message = self.msg_fmt
        super().__init__(message)

    @property
    def message(self) -> str:
        """The message as raised, and nothing more.

        An exception rebuilt from an RPC answer keeps its arguments, but
        oslo.messaging makes its ``str()`` append the conductor's
        traceback; what users and logs are shown is this property.
        """
        return str(self.args[0]) if self.args else self.msg_fmt


# 400

class Invalid(IronsideException):
    msg_fmt = "Unacceptable parameters."
    code = HTTPStatus.BAD_REQUEST
    failure_reason = 'InvalidInput'


# 403

class NotAuthorized(IronsideException):
    msg_fmt = "Not authorized."
    code = HTTPStatus.FORBIDDEN


# 404

class NotFound(IronsideException):
    msg_fmt = "Resource could not be found."
    code = HTTPStatus.NOT_FOUND


# 406

class NotAcceptable(IronsideException):
    msg_fmt = "Request not acceptable."
    code = HTTPStatus.NOT_ACCEPTABLE


# 409

class Conflict(IronsideException):
    msg_fmt = "Conflict."
    code = HTTPStatus.CONFLICT


# 503

class TemporaryFailure(IronsideException):
    msg_fmt = "Resource temporarily unavailable, please retry."
    code = HTTPStatus.SERVICE_UNAVAILABLE
