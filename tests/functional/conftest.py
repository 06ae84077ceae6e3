"""Fixtures for functional tests: Ironside as real processes."""

from __future__ import annotations

import dataclasses
import pathlib

import pytest

from ironside.common import rpc as ironside_rpc
from ironside.common.conf import CONF
from ironside.conductor import rpcapi
from ironside.db import conductors as conductors_db
from ironside.db import session as db_session
from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import processes
from tests.functional.fixtures import services
from tests.functional.fixtures import sshd
from tests.utils import wait_for

FAST_CONDUCTOR = {
    'heartbeat_interval': 1,
    'heartbeat_timeout': 4,
    'takeover_interval': 1,
    'hash_ring_reset_interval': 1,
    'node_locked_retry_interval': 0.2,
    'async_step_poll_interval': 0.2,
    'check_provision_state_interval': 5,
    'sync_power_state_interval': 0,
}


@dataclasses.dataclass
class SplitDeployment:
    """Conductors as separate processes, sharing RabbitMQ and a database."""

    backend: str
    workdir: pathlib.Path
    sections: dict
    conductors: dict[str, processes.IronsideProcess]
    rpc: rpcapi.ConductorAPI

    def config_for(self, host: str) -> pathlib.Path:
        path = self.workdir / ('%s.conf' % host)
        sections = {k: dict(v) for k, v in self.sections.items()}
        sections['DEFAULT']['host'] = host
        processes.write_config(path, sections)
        return path

    def start_conductor(self, host: str, timeout: float = 30
                        ) -> processes.IronsideProcess:
        proc = processes.IronsideProcess(
            'ironside-conductor', self.config_for(host), self.workdir,
            host).start()
        self.conductors[host] = proc

        def _alive():
            assert proc.running, 'conductor %s died:\n%s' % (host,
                                                             proc.log())
            return any(c.hostname == host for c in
                       conductors_db.live_conductors(60))

        wait_for(_alive, timeout=timeout, interval=0.2,
                 what='conductor %s to register' % host)
        return proc

    def start_api(self) -> SplitApi:
        """``ironside-api`` in its own process, over RPC to the conductors."""
        api = SplitApi(self)
        self.conductors['api'] = api.process
        wait_for(lambda: api.answers(api.process), timeout=30, interval=0.2,
                 what='ironside-api to answer')
        return api

    def owner_of(self, node) -> str:
        self.rpc.ring.reset()
        return self.rpc.ring.owner(node.uuid, node.driver,
                                   node.conductor_group or '')


class SplitApi(ironside_process.ApiClients):
    def __init__(self, deployment: SplitDeployment) -> None:
        port = services.free_port()
        self.endpoint = 'http://127.0.0.1:%d' % port
        sections = {k: dict(v) for k, v in deployment.sections.items()}
        sections['DEFAULT']['host'] = 'api-host'
        sections['api'] = {'host_ip': '127.0.0.1', 'port': port}
        config = deployment.workdir / 'api.conf'
        processes.write_config(config, sections)
        self.process = processes.IronsideProcess(
            'ironside-api', config, deployment.workdir, 'api').start()


@pytest.fixture(params=['postgresql', 'mysql'])
def split(request, tmp_path, conf):
    """Two ironside-conductor processes over RabbitMQ and a server DB."""
    database = services.server_database(request.param)
    exchange = services.unique_exchange()
    with services.rabbit_vhost() as transport_url:
        yield from _split(request.param, tmp_path, conf, database,
                          exchange, transport_url)


def _split(backend, tmp_path, conf, database, exchange, transport_url):
    sections = {
        'DEFAULT': {'transport_url': transport_url,
                    'control_exchange': exchange,
                    'enabled_hardware_types': 'fake-hardware',
                    'rpc_transport': 'oslo',
                    'debug': True},
        'database': {'connection': database.url},
        'conductor': dict(FAST_CONDUCTOR),
    }
    processes.write_config(tmp_path / 'dbsync.conf', sections)
    sync = processes.IronsideProcess('ironside-dbsync',
                                     tmp_path / 'dbsync.conf', tmp_path,
                                     'dbsync', ('upgrade',)).start()
    assert sync.process.wait(timeout=120) == 0, sync.log()

    CONF([], project='ironside', default_config_files=[])
    conf.set(transport_url=transport_url, control_exchange=exchange,
             rpc_transport='oslo')
    conf.set('database', connection=database.url)
    conf.set('conductor', **FAST_CONDUCTOR)
    db_session.dispose()
    deployment = SplitDeployment(backend, tmp_path, sections, {},
                                 rpcapi.ConductorAPI())
    try:
        yield deployment
    finally:
        processes.stop_all(deployment.conductors.values())
        ironside_rpc.cleanup()
        db_session.dispose()
        database.drop()


@pytest.fixture
def ironside(tmp_path):
    """An all-in-one Ironside on a free port, with SQLite in tmp_path."""
    yield from ironside_process.serve(tmp_path)


@pytest.fixture
def ssh_nodes(tmp_path):
    """Start OpenSSH servers standing in for deployed nodes:
    ``ssh_nodes(8)`` gives node-1..node-8 (an ``sshd.SSHNodes``), each
    call a run of its own; all are stopped when the test ends."""
    runs = []

    def start(count: int = 1, prefix: str = 'node') -> sshd.SSHNodes:
        nodes = sshd.SSHNodes(tmp_path / ('ssh-%d' % len(runs)), count,
                              prefix)
        runs.append(nodes)
        return nodes.start()

    yield start
    for nodes in runs:
        nodes.stop()


def pytest_terminal_summary(terminalreporter):
    """Print the fault tests' recovery times (kept in each report's
    ``user_properties``, so they cross from xdist workers) whatever the
    output capture, so CI's log shows them."""
    lines = []
    for outcome in ('passed', 'failed', 'error'):
        for report in terminalreporter.stats.get(outcome, []):
            for key, value in getattr(report, 'user_properties', ()):
                if key == 'recovery':
                    lines.append('%s [%s]' % (value, outcome))
    if lines:
        terminalreporter.write_sep('-', 'fault recovery times')
        for line in sorted(set(lines)):
            terminalreporter.write_line(line)
