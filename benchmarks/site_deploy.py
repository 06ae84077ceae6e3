"""What the strategy layer costs: a site deployed by a site action, against
the same nodes driven directly through the conductor.

    python benchmarks/site_deploy.py --nodes 1000 --groups 20 --in-flight 50

One process holds a conductor (in-process RPC, as the all-in-one runs it)
and a database: ``--database sqlite`` (default, a file), ``postgresql`` or
``mysql`` (the local servers). The site: ``--nodes`` fake-hardware nodes
in ``--groups`` equal groups, chained five by five by ``depends_on``. Each
run gets a fresh database and conductor, enrolls the nodes (not timed),
then takes them from ``enroll`` to ``active``:

``direct``
    A plain script on the conductor RPC API: group after group, prepare
    (manage, then provide) and then deploy, at most ``--in-flight`` nodes
    in flight, node states read in bulk from the database every 20 ms.
``strategy``
    A ``deploy_site`` action with the same groups, run by the site action
    service with ``[site] max_nodes_in_flight = --in-flight``: the same
    work plus the plan, the waves, persisted progress and success
    criteria.

The runs alternate (``--repeat`` pairs); the result is each run's wall
time and the strategy layer's overhead on the direct runs (medians).
Everything is printed and written to
``benchmarks/results/site-deploy-<UTC time>.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ironside.common import context as ironside_context  # noqa: E402
from ironside.common import exception  # noqa: E402
from ironside.common import states  # noqa: E402
from ironside.common.conf import CONF  # noqa: E402
from ironside.conductor import manager as conductor_manager  # noqa: E402
from ironside.conductor import rpcapi  # noqa: E402
from ironside.db import migration  # noqa: E402
from ironside.db import nodes as nodes_db  # noqa: E402
from ironside.db import session as db_session  # noqa: E402
from ironside.db import site as site_db  # noqa: E402
from ironside.db import site_models  # noqa: E402
from ironside.strategy import actions  # noqa: E402
from ironside.strategy import service as site_service  # noqa: E402
from ironside.strategy.nodes import conductor as conductor_nodes  # noqa: E402

RESULTS_DIR = Path(__file__).resolve().parent / 'results'
SERVERS = {
    'postgresql': 'postgresql+psycopg2://postgres@127.0.0.1:5432/postgres',
    'mysql': 'mysql+pymysql://root@127.0.0.1:3306/mysql',
}
POLL = 0.02
CHAIN = 5
CTX = ironside_context.get_admin_context()
RETRY = (exception.NoFreeConductorWorker, exception.NodeLocked)


def group_names(groups: int) -> list[str]:
    return ['group-%02d' % i for i in range(groups)]


def strategy_document(groups: int) -> dict:
    names = group_names(groups)
    return {
        'schema': 'ironside/DeploymentStrategy/v1',
        'metadata': {'name': 'benchmark'},
        'data': {'groups': [
            {'name': name, 'critical': False,
             'depends_on': [names[i - 1]] if i % CHAIN else [],
             'selectors': [{'node_tags': [name]}]}
            for i, name in enumerate(names)]},
    }


def enroll(rpc, nodes: int, groups: int) -> dict[str, list[str]]:
    """Nodes in groups of equal size; returns uuids by group."""
    names = group_names(groups)
    by_group: dict[str, list[str]] = {name: [] for name in names}
    for index in range(nodes):
        group = names[index * groups // nodes]
        by_group[group].append(rpc.create_node(CTX, {
            'name': 'node-%04d' % index, 'driver': 'fake-hardware',
            'extra': {'tags': [group], 'rack': 'rack-%02d' % (index // 40)},
            'resource_class': 'baremetal'}))
    return by_group


class Database:
    """A fresh, empty database of one kind for one run."""

    def __init__(self, kind: str, workdir: str) -> None:
        self.kind = kind
        self.name = 'ironside_bench_%s' % uuid.uuid4().hex[:10]
        if kind == 'sqlite':
            self.url = 'sqlite:///%s/%s.sqlite' % (workdir, self.name)
            return
        self._admin('CREATE DATABASE %s' % self.name)
        self.url = str(sa.engine.make_url(SERVERS[kind]).set(
            database=self.name).render_as_string(hide_password=False))

    def _admin(self, statement: str) -> None:
        engine = sa.create_engine(SERVERS[self.kind],
                                  isolation_level='AUTOCOMMIT')
        try:
            with engine.connect() as connection:
                connection.execute(sa.text(statement))
        finally:
            engine.dispose()

    def drop(self) -> None:
        db_session.dispose()
        if self.kind != 'sqlite':
            self._admin('DROP DATABASE IF EXISTS %s' % self.name)


# The direct run

NEXT = {
    'prepare': {states.ENROLL: 'manage', states.MANAGEABLE: 'provide'},
    'deploy': {states.AVAILABLE: 'deploy'},
}
DONE = {'prepare': states.AVAILABLE, 'deploy': states.ACTIVE}


def _request(rpc, uuid: str, verb: str) -> bool:
    try:
        if verb == 'deploy':
            rpc.do_node_deploy(CTX, uuid)
        else:
            rpc.do_provisioning_action(CTX, uuid, verb)
    except RETRY:
        return False
    return True


def drive_phase(rpc, uuids: list[str], phase: str, in_flight: int) -> None:
    waiting = list(uuids)
    flying: dict[str, str | None] = {}
    while waiting or flying:
        while waiting and len(flying) < in_flight:
            flying[waiting.pop(0)] = None
        rows = nodes_db.select_node_columns(
            ('uuid', 'provision_state'), {'uuid_in': list(flying)})
        for row in rows:
            if row.provision_state == DONE[phase]:
                del flying[row.uuid]
                continue
            verb = NEXT[phase].get(row.provision_state)
            if verb is None or flying[row.uuid] == row.provision_state:
                if row.provision_state in states.FAILURE_STATES:
                    raise RuntimeError('node %s failed: %s'
                                       % (row.uuid, row.provision_state))
                continue
            if _request(rpc, row.uuid, verb):
                flying[row.uuid] = row.provision_state
        time.sleep(POLL)


def run_direct(rpc, by_group: dict[str, list[str]], in_flight: int) -> None:
    for group in by_group:
        for phase in ('prepare', 'deploy'):
            drive_phase(rpc, by_group[group], phase, in_flight)


# The strategy run

def run_strategy(rpc, groups: int) -> str:
    actions.create_strategy(strategy_document(groups))
    nodes = conductor_nodes.ConductorNodes(rpc)
    service = site_service.SiteActionService(CONF.host, nodes)
    service.start()
    try:
        action = actions.create_action(nodes, 'deploy_site', 'benchmark')
        while action_state(action.id) != 'finished':
            time.sleep(POLL)
    finally:
        service.stop()
    return site_db.get_action(action.uuid).result


def action_state(action_id: int) -> str:
    """One column: reading the whole action (its progress document)
    every 20 ms would cost more than the runner does."""
    with db_session.reader() as session:
        return session.scalar(sa.select(site_models.SiteAction.state).where(
            site_models.SiteAction.id == action_id))


def all_active(by_group: dict[str, list[str]]) -> bool:
    uuids = [u for group in by_group.values() for u in group]
    rows = nodes_db.select_node_columns(('provision_state',),
                                      {'uuid_in': uuids})
    return len(rows) == len(uuids) and \
        all(r.provision_state == states.ACTIVE for r in rows)


def configure(in_flight: int, poll: float | None) -> None:
    CONF([], project='ironside', default_config_files=[])
    CONF.set_override('rpc_transport', 'local')
    CONF.set_override('host', 'benchmark')
    CONF.set_override('enabled_hardware_types', ['fake-hardware'])
    for name, value in (('sync_power_state_interval', 0),
                        ('check_provision_state_interval', 3600),
                        ('heartbeat_interval', 5)):
        CONF.set_override(name, value, 'conductor')
    CONF.set_override('max_nodes_in_flight', in_flight, 'site')
    if poll is not None:
        CONF.set_override('node_poll_interval', poll, 'site')


def start_conductor(database: Database):
    """A conductor on a fresh, migrated database, in this process; the
    manager and an RPC API that calls it directly."""
    CONF.set_override('connection', database.url, 'database')
    db_session.dispose()
    migration.upgrade()
    manager = conductor_manager.ConductorManager(CONF.host)
    manager.init_host()
    return manager, rpcapi.ConductorAPI(local_manager=manager)


def one_run(mode: str, database: Database, args) -> dict:
    """Enroll the site in a fresh database, then time one mode."""
    manager, rpc = start_conductor(database)
    try:
        by_group = enroll(rpc, args.nodes, args.groups)
        start = time.monotonic()
        cpu = time.process_time()
        result = run_direct(rpc, by_group, args.in_flight) \
            if mode == 'direct' else run_strategy(rpc, args.groups)
        seconds = time.monotonic() - start
        return {'mode': mode, 'seconds': round(seconds, 2),
                'cpu_seconds': round(time.process_time() - cpu, 2),
                'all_active': all_active(by_group), 'result': result}
    finally:
        manager.del_host()
        database.drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=1000)
    parser.add_argument('--groups', type=int, default=20)
    parser.add_argument('--in-flight', type=int, default=50)
    parser.add_argument('--repeat', type=int, default=1,
                        help='pairs of runs (direct, strategy), alternating')
    parser.add_argument('--node-poll-interval', type=float,
                        help='[site] node_poll_interval (default: the '
                             'option\'s default)')
    parser.add_argument('--database', default='sqlite',
                        choices=['sqlite', 'postgresql', 'mysql'])
    args = parser.parse_args()
    workdir = tempfile.TemporaryDirectory(prefix='ironside-site-bench-')
    configure(args.in_flight, args.node_poll_interval)
    runs = []
    for index in range(args.repeat * 2):
        mode = ('direct', 'strategy')[index % 2]
        run = one_run(mode, Database(args.database, workdir.name), args)
        runs.append(run)
        print('%-8s %8.2f s  %6.1f nodes/s  %7.2f s CPU  %s' % (
            mode, run['seconds'], args.nodes / run['seconds'],
            run['cpu_seconds'],
            'all active' if run['all_active'] else 'NOT ALL ACTIVE'),
            flush=True)
    direct = statistics.median(r['seconds'] for r in runs
                               if r['mode'] == 'direct')
    layered = statistics.median(r['seconds'] for r in runs
                                if r['mode'] == 'strategy')
    overhead = (layered - direct) / direct * 100
    cpu_direct = statistics.median(r['cpu_seconds'] for r in runs
                                   if r['mode'] == 'direct')
    cpu_layered = statistics.median(r['cpu_seconds'] for r in runs
                                    if r['mode'] == 'strategy')
    cpu_overhead = (cpu_layered - cpu_direct) / cpu_direct * 100
    print('strategy layer overhead: %+.1f%% wall time (median %.2f s vs '
          '%.2f s), %+.1f%% CPU time (%.2f s vs %.2f s)'
          % (overhead, layered, direct, cpu_overhead, cpu_layered,
             cpu_direct))
    document = {
        'benchmark': 'site_deploy',
        'time': datetime.datetime.now(datetime.timezone.utc).isoformat(),
        'machine': {'python': platform.python_version(),
                    'cpus': os.cpu_count(), 'platform': platform.platform(),
                    'load_average': os.getloadavg()},
        'database': args.database,
        'nodes': args.nodes, 'groups': args.groups,
        'in_flight': args.in_flight,
        'node_poll_interval': CONF.site.node_poll_interval, 'runs': runs,
        'median_seconds': {'direct': direct, 'strategy': layered},
        'median_cpu_seconds': {'direct': cpu_direct,
                               'strategy': cpu_layered},
        'overhead_percent': round(overhead, 1),
        'cpu_overhead_percent': round(cpu_overhead, 1),
    }
    RESULTS_DIR.mkdir(exist_ok=True)
    path = RESULTS_DIR / ('site-deploy-%s.json' % datetime.datetime.now(
        datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ'))
    path.write_text(json.dumps(document, indent=2))
    print('written to %s' % path)


if __name__ == '__main__':
    main()
