"""ironside: the API and a conductor as one service, for small sites.

One process: the API calls the conductor in-process (``rpc_transport =
local``). ``--api-process`` runs the API in a process of its own
instead, forked from the conductor's before any thread starts and
calling it over JSON-RPC on an ephemeral loopback port (``rpc_transport
= json-rpc``; the API process's ``/metrics`` sums in the conductor's).
On two cores that bought about 1.07 times the throughput for about 1.6
times the memory (each process holds its own copy of most of what the
other imported), and the all-in-one runs beside the workloads it
provisions, so one process is the default. The API process ends when
the conductor's does.

The database defaults to SQLite under the state directory (WAL: the API's
reads do not wait for the conductor's writes) and its schema is upgraded at
start. ``--enroll-fake-nodes N`` enrolls N fake-hardware nodes named
fake-0 ... fake-<N-1> (those missing), for trying things, and
``--fake-nodes-available`` makes them ``available`` before the API
serves. ``--host`` and ``--port`` say where the API listens
(``[api]host_ip`` and ``[api]port`` otherwise).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

from oslo_config import cfg

from ironside.cmd import conductor as conductor_cmd
from ironside.cmd import fake_nodes
from ironside.common import exception
from ironside.common import json_rpc
from ironside.common import metrics
from ironside.common import service
from ironside.common.conf import CONF
from ironside.conductor import rpcapi as conductor_rpcapi
from ironside.conductor import service as conductor_service
from ironside.db import migration
from ironside.db import session as db_session
from ironside.strategy import service as site_service

if TYPE_CHECKING:
    from ironside.api import server as api_server

LOG = logging.getLogger(__name__)

DEFAULT_STATE_DIR = os.path.join(
    os.environ.get('XDG_STATE_HOME') or
    os.path.join(os.path.expanduser('~'), '.local', 'state'), 'ironside')
LOOPBACK = '127.0.0.1'

cli_opts = [
    cfg.StrOpt('state-dir', default=DEFAULT_STATE_DIR,
               help='Directory of the SQLite database (unless '
                    '[database]connection names another database).'),
    cfg.IntOpt('enroll-fake-nodes', default=0, min=0,
               help='Enroll this many fake-hardware nodes, named fake-0, '
                    'fake-1, ..., unless they exist.'),
    cfg.BoolOpt('fake-nodes-available', default=False,
                help='Take the fake nodes of --enroll-fake-nodes to '
                     'available (manage, then provide) before serving.'),
    # Not "host": [DEFAULT]host names the conductor.
    cfg.HostAddressOpt('host', dest='listen_host',
                       help='Address the API listens on (overrides '
                            '[api]host_ip).'),
    cfg.PortOpt('port', dest='listen_port',
                help='Port the API listens on (overrides [api]port).'),
    cfg.BoolOpt('api-process', default=False,
                help='Run the API in a process of its own, forked from the '
                     'conductor\'s and calling it over JSON-RPC on '
                     'loopback, instead of in the conductor\'s process: '
                     'a little more throughput on two cores or more, for '
                     'about 60 % more memory.'),
    cfg.BoolOpt('single-process', default=False,
                deprecated_for_removal=True,
                deprecated_reason='The all-in-one runs in one process '
                                  'unless --api-process is given.',
                help='Run the API in the conductor\'s process (the '
                     'default).'),
]


def main(argv: list[str] | None = None) -> None:
    CONF.register_cli_opts(cli_opts)
    service.prepare_service(argv)
    if CONF.listen_host:
        CONF.set_override('host_ip', CONF.listen_host, group='api')
    if CONF.listen_port is not None:
        CONF.set_override('port', CONF.listen_port, group='api')
    state_dir = os.path.abspath(os.path.expanduser(CONF.state_dir))
    os.makedirs(state_dir, exist_ok=True)
    CONF.set_default('connection', 'sqlite:///%s' % os.path.join(
        state_dir, 'ironside.sqlite'), group='database')
    CONF.set_override('rpc_transport', 'local')
    _agent_defaults(state_dir)
    migration.upgrade()
    if CONF.api_process and not CONF.single_process:
        _serve_in_two_processes()
    else:
        _serve_in_one_process()


def _agent_defaults(state_dir: str) -> None:
    """The all-in-one serves its own boot files, under its state
    directory, and tells agents its own address, unless told otherwise."""
    api_url = 'http://%s:%d' % (CONF.api.host_ip, CONF.api.port)
    CONF.set_default('api_url', api_url, group='agent')
    if not CONF.deploy.http_url:
        CONF.set_default('serve_boot_files', True, group='deploy')
        CONF.set_default('http_url', api_url + '/boot', group='deploy')
    CONF.set_default('http_root', os.path.join(state_dir, 'httpboot'),
                     group='deploy')
    CONF.set_default('image_cache', os.path.join(state_dir, 'images'),
                     group='deploy')


class _Conductor:
    """The conductor side: the conductor, its site action service, and
    the in-process client they and the fake-node enrolment use."""

    def __init__(self) -> None:
        self.conductor = conductor_service.ConductorService(rpc_server=False)
        self.site_actions: site_service.SiteActionService | None = None
        self.rpcapi: conductor_rpcapi.ConductorAPI | None = None

    def start(self) -> conductor_rpcapi.ConductorAPI:
        """Start the conductor side; its in-process client."""
        conductor_cmd.start_conductor(self.conductor)
        self.site_actions = site_service.SiteActionService.for_manager(
            self.conductor.manager)
        self.site_actions.start()
        self.rpcapi = conductor_rpcapi.ConductorAPI(
            local_manager=self.conductor.manager)
        fake_nodes.enroll(self.rpcapi, CONF.enroll_fake_nodes)
        if CONF.fake_nodes_available:
            fake_nodes.make_available(self.rpcapi, CONF.enroll_fake_nodes)
        return self.rpcapi

    def stop(self) -> None:
        if self.site_actions is not None:
            self.site_actions.stop()
        self.conductor.stop()


def _start_api(rpcapi: conductor_rpcapi.ConductorAPI
               ) -> api_server.ApiServer:
    """Serve the API, calling the conductor through ``rpcapi``.

    The API's modules (Falcon, the node views, the policies, the site
    API) are imported here, when the API starts, not when this module
    is: the conductor process forks the API process before it, and
    would otherwise hold all of them (tens of MiB) without using any.
    """
    from ironside.cmd import api as api_cmd
    return api_cmd.start_api(rpcapi)


def _serving(server: api_server.ApiServer) -> None:
    service.freeze_start_up_objects()
    print('Ironside is serving the Ironic API at http://%s:%d'
          % (CONF.api.host_ip, server.port), flush=True)


def _serve_in_one_process() -> None:
    side = _Conductor()
    try:
        server = _start_api(side.start())
    except exception.ConfigInvalid as exc:
        side.stop()
        sys.exit(str(exc))
    except Exception:
        side.stop()
        raise
    _serving(server)
    service.wait_for_signal()
    server.stop()
    side.stop()


def _serve_in_two_processes() -> None:
    # Fork first, while this process has no thread and no open database
    # connection the child could inherit.
    db_session.dispose()
    # Frozen now, what both processes inherit stays shared.
    service.freeze_start_up_objects()
    ready_read, ready_write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(ready_write)
        _api_process(ready_read)
    os.close(ready_read)
    side = _Conductor()
    endpoint = json_rpc.JsonRpcServer(
        side.conductor.manager, LOOPBACK, 0,
        metrics.exposition if CONF.metrics.enabled else None)
    try:
        side.start()
        endpoint.start()
    except BaseException as exc:
        _end_child(child)
        side.stop()
        if isinstance(exc, exception.ConfigInvalid):
            sys.exit(str(exc))
        raise
    service.freeze_start_up_objects()
    # The API process starts serving once it has the endpoint's port.
    os.write(ready_write, b'%d\n' % endpoint.port)
    os.close(ready_write)
    status = _wait_for_signal_or_child(child)
    if status is None:
        _end_child(child)
    endpoint.stop()
    side.stop()
    if status:
        sys.exit('ironside: the API process ended (%s); stopping'
                 % _describe_status(status))


def _api_process(ready_read: int) -> None:
    """The API process: wait for the conductor's endpoint, serve the API
    calling it there, until signalled or the conductor process ends."""
    code = 0
    try:
        with os.fdopen(ready_read, 'rb') as ready:
            line = ready.readline()
        if not line:
            os._exit(1)  # the conductor process did not start
        port = int(line)
        parent = os.getppid()
        CONF.set_override('rpc_transport', 'json-rpc')
        if CONF.metrics.enabled:
            metrics.add_peer('http://%s:%d/metrics' % (LOOPBACK, port))
        rpcapi = conductor_rpcapi.ConductorAPI(
            json_rpc_address=lambda _host: (LOOPBACK, port))
        try:
            server = _start_api(rpcapi)
        except exception.ConfigInvalid as exc:
            print(str(exc), file=sys.stderr, flush=True)
            os._exit(2)
        _serving(server)
        service.wait_for_signal(alive=lambda: os.getppid() == parent)
        server.stop()
    except BaseException:
        LOG.exception('The API process failed')
        code = 1
    finally:
        logging.shutdown()
        os._exit(code)


def _wait_for_signal_or_child(child: int) -> int | None:
    """Block until SIGTERM or SIGINT (None), or until the API process
    ends (its wait status, None for a clean exit)."""
    ended: list[int] = []

    def api_alive() -> bool:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid == child:
            ended.append(status)
        return not ended

    service.wait_for_signal(api_alive, gone='the API process ended')
    return ended[0] or None if ended else None


def _end_child(child: int) -> None:
    try:
        os.kill(child, signal.SIGTERM)
        os.waitpid(child, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return 'signal %d' % os.WTERMSIG(status)
    return 'exit status %d' % os.waitstatus_to_exitcode(status)
