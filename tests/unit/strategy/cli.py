"""The site API served over HTTP in this process, and ``openstack`` run
against it in this process."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from cheroot import wsgi
from openstackclient import shell
from osc_lib import clientmanager

from ironside.api import app as api_app
from ironside.api import site as site_api


@contextlib.contextmanager
def serve(rpcapi=None) -> Iterator[str]:
    """The API (with the site API) on a free loopback port; its URL."""
    server = wsgi.Server(('127.0.0.1', 0), api_app.build_app(
        rpcapi, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield 'http://127.0.0.1:%d' % server.bind_addr[1]
    finally:
        server.stop()
        thread.join(5)


def forget_site_client() -> None:
    """OpenStackClient keeps a plugin's client (and its endpoint) on the
    ClientManager class for the life of the process; a test with a server
    of its own starts from none."""
    cache = clientmanager.ClientManager.__dict__.get('site')
    if cache is not None:
        cache._handle = None


def runner(endpoint: str, capsys):
    """Run ``openstack ...`` in this process: (exit code, output)."""
    def run(*args):
        capsys.readouterr()
        code = shell.main(['--os-auth-type', 'none', '--os-endpoint',
                           endpoint + '/v1'] + [str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out + captured.err
    return run
