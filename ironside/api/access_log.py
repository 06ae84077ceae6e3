"""One log line per API request, for operators: the access log.

``GET /v1/nodes 200 12.3ms req-...``: the method, the path (never the
query string, nor any header or body, so no credential reaches the log),
the status, the time taken and the request id the answer carries in
``X-OpenStack-Request-Id``. Logged by ``ironside.api.access`` at INFO,
outermost, so the answers of the authentication layer (401) are logged
too; the request id is made here and used by the application. The
method and path have their control characters escaped (``%0A`` in a
path arrives as a line feed): one request, one line.
"""

from __future__ import annotations

import logging
import time

from oslo_utils import uuidutils

from ironside.common import log_escaping

LOG = logging.getLogger('ironside.api.access')

# The WSGI environment key oslo.middleware uses for the request id.
REQUEST_ID_KEY = 'openstack.request_id'
REQUEST_ID_HEADER = 'X-OpenStack-Request-Id'


class AccessLog:
    """WSGI middleware: the access log line of each request."""

    def __init__(self, app) -> None:
        self.app = app

    def __call__(self, environ, start_response):
        started = time.monotonic()
        request_id = environ.setdefault(
            REQUEST_ID_KEY, 'req-%s' % uuidutils.generate_uuid())
        seen = {}

        def _start(status, headers, exc_info=None):
            seen['status'] = status.split(' ', 1)[0]
            if not any(name.lower() == REQUEST_ID_HEADER.lower()
                       for name, _ in headers):
                headers = list(headers) + [(REQUEST_ID_HEADER, request_id)]
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, _start)
        finally:
            path = (environ.get('SCRIPT_NAME') or '') + \
                (environ.get('PATH_INFO') or '/')
            LOG.info('%s %s %s %.1fms %s',
                     log_escaping.escape(environ.get('REQUEST_METHOD', '-')),
                     log_escaping.escape(path), seen.get('status', '-'),
                     (time.monotonic() - started) * 1000,
                     log_escaping.escape(request_id))
