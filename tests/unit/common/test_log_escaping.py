"""Control characters escaped in log lines: a value from a request
cannot start a line of its own (log injection)."""

from __future__ import annotations

import io
import logging

import pytest

from ironside.common import log_escaping


@pytest.mark.parametrize('text, escaped', [
    ('/v1/nodes/a\nb', '/v1/nodes/a\\x0ab'),
    ('a\r\nb', 'a\\x0d\\x0ab'),
    ('tab\there', 'tab\\x09here'),
    ('\x1b[31mred', '\\x1b[31mred'),
    ('nul\x00del\x7f', 'nul\\x00del\\x7f'),
    ('nel\x85', 'nel\\x85'),
    ('ls\u2028ps\u2029', 'ls\\u2028ps\\u2029'),
    ('plain, caf\u00e9 \u2603 \\x0a', 'plain, caf\u00e9 \u2603 \\x0a'),
])
def test_escape(text, escaped):
    assert log_escaping.escape(text) == escaped
    # Escaping twice changes nothing (the access log escapes its values,
    # and the filter the whole line again).
    assert log_escaping.escape(escaped) == escaped


@pytest.fixture
def root_handler():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter('%(name)s %(message)s'))
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    yield stream
    root.removeHandler(handler)
    root.setLevel(level)
    for other in root.handlers:
        for found in [f for f in other.filters
                      if isinstance(f, log_escaping.EscapingFilter)]:
            other.removeFilter(found)


def test_every_line_of_every_logger_is_escaped_once_installed(root_handler):
    log_escaping.install()
    log_escaping.install()
    handler = logging.getLogger().handlers[-1]
    assert sum(isinstance(f, log_escaping.EscapingFilter)
               for f in handler.filters) == 1
    logger = logging.getLogger('ironside.test.escaping')
    logger.info('Node %s not found', 'n1\nFORGED line')
    logger.info('formatted %d%%, no control character', 5)
    logger.warning('a message\r\nwith its own')
    assert root_handler.getvalue().splitlines() == [
        'ironside.test.escaping Node n1\\x0aFORGED line not found',
        'ironside.test.escaping formatted 5%, no control character',
        'ironside.test.escaping a message\\x0d\\x0awith its own',
    ]
