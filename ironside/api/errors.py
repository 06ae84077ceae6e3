"""Error responses in Ironic's format, for every failure of every request.

Ironic's clients parse ``{"error_message": "<JSON string>"}`` where the
string decodes to ``{"faultcode", "faultstring", "debuginfo"}``.
Expected errors (``IronsideException``) answer with their own status and
message; anything else is logged with its traceback and answered with a
generic 500 that names the request id, never the traceback.
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus
from typing import TYPE_CHECKING
from typing import Any

import falcon
from oslo_db import exception as db_exc

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.db import session as db_session

if TYPE_CHECKING:
    import oslo_messaging as messaging

LOG = logging.getLogger(__name__)

_FALCON_MESSAGES = {
    404: 'The resource could not be found.',
    405: 'The method specified is not allowed for this resource.',
}


def error_body(status: int, message: str) -> bytes:
    fault = {'faultcode': 'Client' if status < 500 else 'Server',
             'faultstring': message, 'debuginfo': None}
    return json.dumps({'error_message': json.dumps(fault)}).encode()


def set_error(resp: falcon.Response, status: int, message: str) -> None:
    resp.status = status
    resp.content_type = falcon.MEDIA_JSON
    resp.data = error_body(status, message)


def _status_of(exc: exception.IronsideException) -> int:
    try:
        status = int(exc.code)
    except (TypeError, ValueError):
        return 500
    return status if status in HTTPStatus._value2member_map_ else 500


def handle_ironside(req: falcon.Request, resp: falcon.Response,
                    exc: exception.IronsideException,
                    _params: dict[str, Any]) -> None:
    status = _status_of(exc)
    if status == 503:
        resp.set_header('Retry-After', str(RETRY_AFTER))
    if status >= 500:
        LOG.warning('%s %s failed with %d: %s', req.method, req.path,
                    status, exc.message)
    else:
        LOG.debug('%s %s refused with %d: %s', req.method, req.path,
                  status, exc.message)
    set_error(resp, status, exc.message)
    if isinstance(exc, exception.UnreadableRequestBody):
        # What is left of the body on the socket is no next request.
        resp.set_header('Connection', 'close')


def handle_falcon(req: falcon.Request, resp: falcon.Response,
                  exc: falcon.HTTPError, _params: dict[str, Any]) -> None:
    status = exc.status_code
    message = exc.description or _FALCON_MESSAGES.get(status) or \
        exc.title or 'Error'
    set_error(resp, status, message)
    if exc.headers:
        # A mapping or (name, value) pairs: falcon takes either.
        resp.set_headers(exc.headers)


# Seconds a client is asked to wait before it retries a 503.
RETRY_AFTER = 5


def _unavailable(resp: falcon.Response, message: str) -> None:
    set_error(resp, 503, message)
    resp.set_header('Retry-After', str(RETRY_AFTER))


def handle_timeout(req: falcon.Request, resp: falcon.Response,
                   exc: messaging.MessagingTimeout,
                   _params: dict[str, Any]) -> None:
    """What a caller of oslo.messaging's own client gets; the conductor
    RPC API answers ConductorUnreachable, naming the conductor."""
    LOG.warning('%s %s: no conductor answered in time: %s', req.method,
                req.path, exc)
    _unavailable(resp, 'The conductors cannot be reached (no answer in '
                       'time); please retry.')


def handle_broker_away(req: falcon.Request, resp: falcon.Response,
                       exc: messaging.MessageDeliveryFailure,
                       _params: dict[str, Any]) -> None:
    LOG.warning('%s %s: the message broker cannot be reached: %s',
                req.method, req.path, exc)
    _unavailable(resp, 'The message broker cannot be reached; please '
                       'retry.')


def handle_database_away(req: falcon.Request, resp: falcon.Response,
                         exc: Exception, _params: dict[str, Any]) -> None:
    """A database outage is temporary: 503 and Retry-After, so clients
    (openstacksdk retries 503) come back instead of giving up on a 500."""
    LOG.warning('%s %s: the database cannot be reached: %s', req.method,
                req.path, getattr(exc, 'inner_exception', None) or exc)
    _unavailable(resp, 'The database cannot be reached; please retry.')


def handle_unexpected(req: falcon.Request, resp: falcon.Response,
                      exc: Exception, _params: dict[str, Any]) -> None:
    request_id = getattr(req.context, 'request_id', None) or 'unknown'
    LOG.error('Unexpected error in %s %s (request %s)', req.method,
              req.path, request_id, exc_info=exc)
    set_error(resp, 500, 'Internal server error; the details are logged '
                         'with request id %s.' % request_id)


def handle_database_error(req: falcon.Request, resp: falcon.Response,
                          exc: db_exc.DBError, params: dict[str, Any]
                          ) -> None:
    if db_session.is_outage(exc):
        handle_database_away(req, resp, exc, params)
    else:
        handle_unexpected(req, resp, exc, params)


def register(app: falcon.App) -> None:
    """Install the handlers; the most specific class wins in Falcon."""
    app.add_error_handler(Exception, handle_unexpected)
    app.add_error_handler(falcon.HTTPError, handle_falcon)
    app.add_error_handler(exception.IronsideException, handle_ironside)
    if CONF.rpc_transport == 'oslo':
        # Only the processes using oslo.messaging load it (~0.9 s of CPU
        # at start; ironside.common.rpc says how); only they can meet
        # its errors.
        from ironside.common import rpc
        app.add_error_handler(rpc.messaging.MessageDeliveryFailure,
                              handle_broker_away)
        app.add_error_handler(rpc.messaging.MessagingTimeout,
                              handle_timeout)
    app.add_error_handler(db_exc.DBError, handle_database_error)
    for outage in db_session.OUTAGE_ERRORS:
        app.add_error_handler(outage, handle_database_away)
