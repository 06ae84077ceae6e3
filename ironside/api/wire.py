"""What goes over the wire: query parameters, JSON bodies, JSON answers.

Query parameters arrive as strings; each handler names the ones it takes
and how to read them, and anything else is refused with 400, as Ironic
does ("Unexpected arguments"). Bodies are JSON, at most
``[api]max_body_size`` bytes.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

import falcon
import orjson
from falcon.typing import ReadableIO
from oslo_utils import uuidutils

from ironside.common import exception
from ironside.common.conf import CONF

# What a boolean parameter may be given as, besides true and false (any
# case, blanks around; as Ironic's strutils.bool_from_string, strict).
TRUE_STRINGS = frozenset(('1', 't', 'true', 'on', 'y', 'yes'))
FALSE_STRINGS = frozenset(('0', 'f', 'false', 'off', 'n', 'no'))
_ALL_BOOLS = ', '.join("'%s'" % v
                       for v in sorted(TRUE_STRINGS | FALSE_STRINGS))

# RFC 3986 unreserved characters: what Ironic accepts as a logical name.
LOGICAL_NAME = re.compile(r'^[A-Za-z0-9\-._~]{1,255}$')
_HOSTNAME_LABEL = re.compile(r'^(?!-)[a-z0-9-]{1,63}(?<!-)$')
MAC_ADDRESS = re.compile(r'^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$')
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def invalid(message: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(err=message)


# Value readers: (name, raw value) -> value, raising 400 naming the problem.

def as_string(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid('Expected string for %s: %s' % (name, value))
    return value


def as_boolean(name: str, value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE_STRINGS:
        return True
    if text in FALSE_STRINGS:
        return False
    raise invalid("Invalid %s: Unrecognized value '%s', acceptable values "
                  "are: %s" % (name, value, _ALL_BOOLS))


def as_integer(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise invalid('Expected an integer for %s: %s' % (name, value))
    try:
        return int(value)
    except (TypeError, ValueError):
        raise invalid('Expected an integer for %s: %s'
                      % (name, value)) from None


def uuid(name: str, value: object) -> str:
    """A UUID that must be there (400 if it is not, or is None)."""
    if not isinstance(value, str) or not uuidutils.is_uuid_like(value):
        raise invalid('Expected UUID for %s: %s' % (name, value))
    return value


def as_uuid(name: str, value: Any) -> str | None:
    return None if value is None else uuid(name, value)


def is_logical_name(value: Any) -> bool:
    return isinstance(value, str) and bool(LOGICAL_NAME.match(value))


def is_hostname_safe(value: Any) -> bool:
    """The name rule before 1.10: a lower-case DNS name."""
    if not isinstance(value, str) or not value or len(value) > 255:
        return False
    labels = value.rstrip('.').split('.')
    return all(_HOSTNAME_LABEL.match(label) for label in labels) and \
        not value.replace('.', '').isdigit()


def uuid_or_name(name: str, value: object) -> str:
    """A UUID or logical name that must be there (400 if it is not)."""
    if not isinstance(value, str) or not (
            is_logical_name(value) or uuidutils.is_uuid_like(value)):
        raise invalid('Expected UUID or name for %s: %s' % (name, value))
    return value


def as_uuid_or_name(name: str, value: Any) -> str | None:
    return None if value is None else uuid_or_name(name, value)


def _comma_list(name: str, value: Any, lower: bool) -> list[str] | None:
    if value is None:
        return None
    values = value if isinstance(value, list) else [value]
    items: list[str] = []
    for item in values:
        text = as_string(name, item)
        assert text is not None  # a query parameter's values are strings
        for part in text.split(','):
            part = part.strip()
            if lower:
                part = part.lower()
            if part and part not in items:
                items.append(part)
    return items


def as_string_list(name: str, value: Any) -> list[str] | None:
    """A comma-separated list, lower-cased and de-duplicated (as Ironic)."""
    return _comma_list(name, value, lower=True)


def as_fields(name: str, value: Any) -> list[str] | None:
    """The ``fields`` parameter: a comma list, case kept, in order.

    ``fields=`` (nothing listed) is read as no ``fields`` at all: the
    resource's default fields, as Ironic answers it.
    """
    return _comma_list(name, value, lower=False) or None


def mac(name: str, value: object) -> str:
    """A MAC address, lower-case with colons (400 if it is none)."""
    if not isinstance(value, str) or not MAC_ADDRESS.match(value.lower()):
        raise invalid('Expected valid MAC address for %s: %s'
                      % (name, value))
    return value.lower().replace('-', ':')


def normalize_mac(value: str) -> str:
    return mac('address', value)


def as_mac(name: str, value: Any) -> str | None:
    return None if value is None else mac(name, value)


Reader = Callable[[str, Any], Any]


def query(req: falcon.Request, readers: Mapping[str, Reader]
          ) -> dict[str, Any]:
    """Read the query parameters a handler takes; refuse any other.

    Returns every name in ``readers`` (None when absent).
    """
    raw = req.params
    unexpected = sorted(set(raw) - set(readers))
    if unexpected:
        raise invalid('Unexpected arguments: %s' % ', '.join(unexpected))
    result = {}
    for name, reader in readers.items():
        value = raw.get(name)
        if isinstance(value, list) and reader not in (as_string_list,
                                                      as_fields):
            value = value[-1]
        result[name] = reader(name, value)
    return result


# Bodies

def read_body(req: falcon.Request) -> bytes:
    """The raw body; 413 past ``[api]max_body_size``, read no further."""
    limit = CONF.api.max_body_size
    length = req.content_length
    if length is not None and length > limit:
        raise exception.RequestTooLarge(
            err='%d bytes, more than the %d bytes [api]max_body_size '
                'allows' % (length, limit))
    chunked = length is None and 'chunked' in (
        req.get_header('Transfer-Encoding') or '').lower()
    try:
        if chunked:
            # No length: falcon's bounded stream would read nothing; the
            # server's input (cheroot's) takes the chunks apart itself.
            data = _read_up_to(req.stream, limit + 1)
        else:
            data = req.bounded_stream.read(limit + 1)
    except TimeoutError:
        raise exception.RequestBodyTimeout(
            err='it stopped arriving for longer than '
                '[api]client_socket_timeout') from None
    except ValueError as exc:
        # cheroot's chunked input: a chunk size that is not hexadecimal,
        # or a chunk not followed by CRLF.
        raise exception.UnreadableRequestBody(err=str(exc)) from None
    if len(data) > limit:
        raise exception.RequestTooLarge(
            err='more than the %d bytes [api]max_body_size allows' % limit)
    if length is not None and len(data) < length:
        raise exception.UnreadableRequestBody(
            err='it ended after %d of the %d bytes its Content-Length '
                'announced' % (len(data), length))
    return data


def _read_up_to(stream: ReadableIO, size: int) -> bytes:
    """Read until the end of ``stream`` or ``size`` bytes, whichever first
    (a chunked input may answer a read with less than was asked)."""
    parts = []
    left = size
    while left > 0:
        part = stream.read(min(left, 65536))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b''.join(parts)


def _json_int(text: str) -> int:
    """An integer of the body: 64 bits at most, as answers can carry."""
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise invalid('Request body is not valid JSON: integer %s is out '
                      'of the 64-bit range' % text)
    return value


def _json_float(text: str) -> float:
    """A number of the body with a fraction or exponent: a finite float
    (``1e400`` would be infinity, which no answer can carry)."""
    value = float(text)
    if not math.isfinite(value):
        raise invalid('Request body is not valid JSON: number %s is out '
                      'of range' % text)
    return value


def _json_constant(name: str) -> None:
    raise invalid('Request body is not valid JSON: %s is not a JSON value'
                  % name)


def refuse_nul(value: Any, where: str) -> None:
    """400 for a NUL character anywhere in ``value`` (strings, keys, and
    inside lists and objects): PostgreSQL cannot store one, and no field
    of Ironic's means one. ``where`` names the place in the message."""
    if isinstance(value, str):
        if '\x00' in value:
            raise invalid('A NUL character is not allowed in %s' % where)
    elif isinstance(value, dict):
        for key, item in value.items():
            refuse_nul(key, where)
            refuse_nul(item, '%s/%s' % (where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            refuse_nul(item, '%s/%d' % (where, index))


def read_json(req: falcon.Request, default: Any = None) -> Any:
    """The request body decoded as JSON; ``default`` if there is none.

    Strict JSON: no NaN or Infinity (nor a number so large it would be
    one), and no integer past 64 bits, which would be stored and then
    fail every answer that carries it.
    """
    data = read_body(req)
    if not data.strip():
        return default
    try:
        value = json.loads(data.decode('utf-8'), parse_int=_json_int,
                           parse_float=_json_float,
                           parse_constant=_json_constant)
    except UnicodeDecodeError:
        raise invalid('Request body is not valid UTF-8') from None
    except ValueError as exc:
        raise invalid('Request body is not valid JSON: %s' % exc) from None
    except RecursionError:
        # json's decoder recurses once per nested array or object.
        raise invalid('Request body is not valid JSON: nested too '
                      'deeply') from None
    refuse_nul(value, 'the request body')
    return value


def read_object(req: falcon.Request, allowed: Iterable[str],
                required: Iterable[str] = ()) -> dict[str, Any]:
    """A JSON object body with only ``allowed`` keys (Ironic's checks)."""
    body = read_json(req, default={})
    if not isinstance(body, dict):
        raise invalid('Request body must be a JSON object, not %s'
                      % type(body).__name__)
    unexpected = sorted(set(body) - set(allowed))
    if unexpected:
        raise invalid('Unexpected arguments: %s' % ', '.join(unexpected))
    for name in required:
        if name not in body:
            raise exception.MissingParameterValue(
                err='Missing mandatory parameter: %s' % name)
    return body


# Answers

def send(resp: falcon.Response, body: Any, status: int = 200) -> None:
    resp.status = status
    resp.content_type = falcon.MEDIA_JSON
    set_body(resp, orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS))


# Large answers go to the WSGI server in pieces of this size.
BODY_PIECE = 64 * 1024


def set_body(resp: falcon.Response, data: bytes) -> None:
    """The answer's body; a large one handed over in pieces.

    cheroot copies whatever it has not sent yet into a new bytes object
    before each send on the socket, so one body of megabytes (a detailed
    list of a thousand nodes is 2.6 MB) is copied again and again while
    the client reads it: pieces keep each copy small.
    """
    if len(data) <= BODY_PIECE:
        resp.data = data
        return
    resp.content_length = len(data)
    resp.stream = (data[at:at + BODY_PIECE]
                   for at in range(0, len(data), BODY_PIECE))


def no_content(resp: falcon.Response, status: int = 204) -> None:
    """204 (or 202) with an empty body, as Ironic answers actions.

    An empty 202 is typed text/plain: never JSON, which ironicclient
    would try to decode.
    """
    resp.status = status
    resp.content_type = None if status == 204 else falcon.MEDIA_TEXT
    resp.data = b''
