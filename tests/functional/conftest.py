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
from tests.functional.fixtures.sim_machine import machines
from tests.utils import wait_for

FAST_CONDUCTOR = ironside_process.FAST_CONDUCTOR


@dataclasses.dataclass
class SplitDeployment:
    """Conductors as separate processes, sharing RabbitMQ and a database."""

    backend: str
    workdir: pathlib.Path
    sections: dict
    conductors: dict[str, processes.IronsideProcess]
    rpc: rpcapi.ConductorAPI

    def config_for(self, host: str) -> pathlib.Path:
        return ironside_process.host_config(self.workdir, self.sections,
                                            host)

    def start_conductor(self, host: str, timeout: float = 90
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

    def start_api(self) -> ironside_process.SplitApi:
        """``ironside-api`` in its own process, over RPC to the
        conductors (stopped with them)."""
        api = ironside_process.SplitApi(self.workdir, self.sections)
        self.conductors['api'] = api.process
        return api.start()

    def owner_of(self, node) -> str:
        self.rpc.ring.reset()
        return self.rpc.ring.owner(node.uuid, node.driver,
                                   node.conductor_group or '')


@pytest.fixture(params=['postgresql', 'mysql'])
def split(request, tmp_path, conf):
    """Two ironside-conductor processes over RabbitMQ and a server DB."""
    with ironside_process.rabbitmq_and_database(request.param) as (
            transport_url, database):
        yield from _split(request.param, tmp_path, conf, database,
                          services.unique_exchange(), transport_url)


def _split(backend, tmp_path, conf, database, exchange, transport_url):
    """The deployment (no process started yet but dbsync), with this
    process's configuration pointing at its broker and database."""
    sections = ironside_process.split_sections(transport_url, exchange,
                                               database.url)
    ironside_process.upgrade_database(tmp_path, sections)
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


@pytest.fixture
def sim_machines(tmp_path):
    """Start simulated machines (BMC, NICs, loop-device disk, firmware
    that boots the real ironic-python-agent): ``sim_machines(2,
    bmc='ipmi', boot_script_url=...)`` gives a started
    ``SimulatedMachines`` (keywords: ``MachineSpec``'s fields, or
    ``specs=[...]``), each call a supervisor of its own; all are stopped
    when the test ends. Skips without root or loop devices (fails with
    CI=true)."""
    runs = []

    def start(count: int = 1, **options) -> machines.SimulatedMachines:
        sims = machines.SimulatedMachines(
            tmp_path / ('machines-%d' % len(runs)), count=count, **options)
        runs.append(sims)
        return sims.start()

    yield start
    for sims in runs:
        sims.stop()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items) -> None:
    """Tests that share a parametrised module-scoped deployment (the
    acceptance tests' all-in-one and split deployment) run on one xdist
    worker per module and parameter (``--dist loadgroup``), so that each
    deployment starts once: spread over the workers, each worker would
    start its own (30-40 s each for the split one). Cheap module fixtures
    (emulators) are left to spread, where the tests gain more from
    running side by side."""
    for item in items:
        info = getattr(item, '_fixtureinfo', None)
        params = getattr(getattr(item, 'callspec', None), 'params', {})
        if info is None or not params:
            continue
        shared = sorted(name for name, defs in info.name2fixturedefs.items()
                        if defs and defs[-1].scope == 'module'
                        and name in params)
        if shared:
            item.add_marker(pytest.mark.xdist_group('-'.join(
                [item.module.__name__] +
                [str(params[name]) for name in shared])))


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
