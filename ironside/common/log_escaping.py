"""Control characters escaped in what is logged, so that a value from a
request cannot forge a log line.

A path, a query, a header or a name sent to the API may hold a line
feed (``%0A`` in a path arrives decoded), a carriage return or an
escape sequence; logged as it is, it starts a line of its own that
looks like the service's (OWASP: log injection). :func:`escape` writes
each such character as ``\\xNN`` (``\\uNNNN`` for the Unicode line and
paragraph separators). The access log escapes what it takes from the
request; :class:`EscapingFilter`, on every handler of the service's
logging, escapes every other line whole, whatever put the value there
(the HTTP server's own errors go through logging too).
Tracebacks stay multi-line (oslo.log prefixes each of their lines).
"""

from __future__ import annotations

import logging
import re

# C0, DEL, C1 (NEL among them), and U+2028/U+2029, which some log
# readers also take as the end of a line.
_CONTROL = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029]')


def _escaped(match: re.Match) -> str:
    code = ord(match.group())
    return '\\x%02x' % code if code < 0x100 else '\\u%04x' % code


def escape(text: str) -> str:
    """``text`` with its control characters escaped. Escaping twice
    changes nothing: the result holds none."""
    return _CONTROL.sub(_escaped, text)


class EscapingFilter(logging.Filter):
    """Escapes the control characters of each record's message.

    The message is formatted here once and kept (without its arguments)
    only when it held any, so most records pass unchanged.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        escaped = escape(message)
        if escaped != message:
            record.msg = escaped
            record.args = None
        return True


def install() -> None:
    """Put the filter on every handler of the root logger (where
    oslo.log puts the service's), once each."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, EscapingFilter) for f in handler.filters):
            handler.addFilter(EscapingFilter())
