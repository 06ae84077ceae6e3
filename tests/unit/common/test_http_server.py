"""The WSGI server's own errors (an application that fails outside any
handler of its own) are logged through logging, not written to stderr,
so they have the service's format and escaping."""

from __future__ import annotations

import http.client
import logging

from ironside.common import http_server


def _failing(environ, start_response):
    raise ValueError('bad\nthing')


def test_server_errors_are_logged(caplog, capsys):
    caplog.set_level(logging.INFO, logger=http_server.LOG.name)
    server = http_server.HttpServer(_failing, '127.0.0.1', 0, threads=1,
                                    name='test-server')
    server.start()
    try:
        connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                timeout=30)
        connection.request('GET', '/')
        response = connection.getresponse()
        response.read()
        connection.close()
    finally:
        server.stop()
    assert response.status == 500
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert errors[0].getMessage() == \
        "test-server: ValueError('bad\\nthing')"
    assert errors[0].exc_info[0] is ValueError
    assert 'ValueError' not in capsys.readouterr().err
