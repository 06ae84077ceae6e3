"""ironside: the API and a conductor in one process, for small sites.

The API calls the conductor in-process (``rpc_transport = local``); the
database defaults to SQLite under the state directory and its schema is
upgraded at start. ``--enroll-fake-nodes N`` enrolls N fake-hardware
nodes named fake-0 ... fake-<N-1> (those missing), for trying things.
"""

from __future__ import annotations

import logging
import os
import sys

from oslo_config import cfg

from ironside.cmd import api as api_cmd
from ironside.cmd import conductor as conductor_cmd
from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import service
from ironside.common.conf import CONF
from ironside.conductor import rpcapi as conductor_rpcapi
from ironside.conductor import service as conductor_service
from ironside.db import migration
from ironside.db import nodes as nodes_db
from ironside.strategy import service as site_service

LOG = logging.getLogger(__name__)

DEFAULT_STATE_DIR = os.path.join(
    os.environ.get('XDG_STATE_HOME') or
    os.path.join(os.path.expanduser('~'), '.local', 'state'), 'ironside')

cli_opts = [
    cfg.StrOpt('state-dir', default=DEFAULT_STATE_DIR,
               help='Directory of the SQLite database (unless '
                    '[database]connection names another database).'),
    cfg.IntOpt('enroll-fake-nodes', default=0, min=0,
               help='Enroll this many fake-hardware nodes, named fake-0, '
                    'fake-1, ..., unless they exist.'),
]


def enroll_fake_nodes(rpcapi, count: int) -> None:
    context = ironside_context.get_admin_context()
    for index in range(count):
        name = 'fake-%d' % index
        try:
            nodes_db.get_node(name)
            continue
        except exception.NodeNotFound:
            pass
        rpcapi.create_node(context, {
            'name': name, 'driver': 'fake-hardware',
            'resource_class': 'baremetal',
            'properties': {'cpus': 2, 'memory_mb': 4096, 'local_gb': 40,
                           'cpu_arch': 'x86_64'}})
        LOG.info('Enrolled fake node %s', name)


def main(argv: list[str] | None = None) -> None:
    CONF.register_cli_opts(cli_opts)
    CONF.set_default('rpc_transport', 'local')
    service.prepare_service(argv)
    state_dir = os.path.abspath(os.path.expanduser(CONF.state_dir))
    os.makedirs(state_dir, exist_ok=True)
    CONF.set_default('connection', 'sqlite:///%s' % os.path.join(
        state_dir, 'ironside.sqlite'), group='database')
    CONF.set_override('rpc_transport', 'local')
    migration.upgrade()
    conductor = conductor_service.ConductorService(rpc_server=False)
    conductor_cmd.start_conductor(conductor)
    site_actions = site_service.SiteActionService.for_manager(
        conductor.manager)
    site_actions.start()
    try:
        rpcapi = conductor_rpcapi.ConductorAPI(
            local_manager=conductor.manager)
        enroll_fake_nodes(rpcapi, CONF.enroll_fake_nodes)
        server = api_cmd.start_api(rpcapi)
    except exception.ConfigInvalid as exc:
        site_actions.stop()
        conductor.stop()
        sys.exit(str(exc))
    except Exception:
        site_actions.stop()
        conductor.stop()
        raise
    service.freeze_start_up_objects()
    print('Ironside is serving the Ironic API at http://%s:%d'
          % (CONF.api.host_ip, server.port), flush=True)
    api_cmd.wait_for_signal()
    server.stop()
    site_actions.stop()
    conductor.stop()
