"""What site designs cost: staging, committing and diffing a design of
5,000 node documents and 50 others.

    python benchmarks/designs.py                          # SQLite
    python benchmarks/designs.py --database postgresql    # or mysql

Each run gets a fresh database, and a process that has not seen the
documents before (a temporary SQLite file, or a database
of its own on the local server, dropped afterwards). The design: one
collection ``nodes`` of ``--nodes`` ``ironside/BaremetalNode/v1``
documents (with BMC credentials, labels, OS access), and one collection
``site`` of ``--others`` documents: the deployment strategy, the
deployment configuration and ``ironside/Config/v1`` documents. Timed,
each ``--repeat`` times on a fresh database (medians printed):

``stage``          both collections into the buffer (YAML parsed here)
``commit``         the first commit: every document validated, written
``diff``           buffer against committed after ``--changed`` nodes
                   changed (staged again), the changed paths decoded
``commit-change``  committing that change
``diff-revisions`` revision 1 against revision 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ironside.common.conf import CONF  # noqa: E402
from ironside.db import migration  # noqa: E402
from ironside.db import session as db_session  # noqa: E402
from ironside.strategy.designs import design  # noqa: E402
from ironside.strategy.designs import store  # noqa: E402
from ironside.strategy.reader.documents import Source  # noqa: E402

SERVERS = {
    'postgresql': 'postgresql+psycopg2://postgres@127.0.0.1:5432/postgres',
    'mysql': 'mysql+pymysql://root@127.0.0.1:3306/mysql',
}
RACKS = 40
STEPS = ('stage', 'commit', 'diff', 'commit-change', 'diff-revisions')


def node(index: int, rack_offset: int = 0) -> dict:
    rack = (index + rack_offset) % RACKS
    return {
        'schema': 'ironside/BaremetalNode/v1',
        'metadata': {'schema': 'metadata/Document/v1',
                     'name': 'node%05d' % index},
        'data': {
            'rack': 'rack%02d' % rack,
            'tags': ['compute'] if index % 7 else ['control'],
            'labels': {'openstack-compute': 'enabled', 'zone': 'z%d' % (
                rack % 4)},
            'roles': ['compute'],
            'driver': 'ipmi',
            'driver_info': {'ipmi_address': '10.%d.%d.%d' % (
                index // 62500, index // 250 % 250, index % 250),
                'ipmi_username': 'admin',
                'ipmi_password': 'secret-%d' % index},
            'properties': {'cpus': 64, 'memory_mb': 524288,
                           'local_gb': 1800, 'cpu_arch': 'x86_64'},
            'resource_class': 'baremetal',
            'os_access': {'address': '192.168.%d.%d' % (
                index // 250 % 250, index % 250), 'port': 22,
                'user': 'root'},
        },
    }


def others(count: int) -> list[dict]:
    groups = [{'name': 'control', 'critical': True, 'depends_on': [],
               'selectors': [{'node_tags': ['control']}]}]
    groups += [{'name': 'rack%02d' % r, 'critical': False,
                'depends_on': ['control'],
                'selectors': [{'rack_names': ['rack%02d' % r],
                               'node_tags': ['compute']}],
                'success_criteria': {'percent_successful_nodes': 90},
                'strategy': {'type': 'parallel', 'amount': 25}}
               for r in range(RACKS)]
    documents = [
        {'schema': 'shipyard/DeploymentStrategy/v1',
         'metadata': {'name': 'deployment-strategy'},
         'data': {'groups': groups}},
        {'schema': 'ironside/DeploymentConfiguration/v1',
         'metadata': {'name': 'deployment-configuration'},
         'data': {'physical_provisioner': {
             'deployment_strategy': 'deployment-strategy'}}},
    ]
    documents += [{'schema': 'ironside/Config/v1',
                   'metadata': {'name': 'config-%02d' % i},
                   'data': {'ntp_servers': ['10.0.0.%d' % i],
                            'settings': {'key%d' % k: k
                                         for k in range(20)}}}
                  for i in range(count - len(documents))]
    return documents


def dump(documents: list[dict]) -> str:
    dumper = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)
    return yaml.dump_all(documents, Dumper=dumper, sort_keys=False)


class Database:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.name = 'ironside_bench_%s' % uuid.uuid4().hex[:8]
        if kind == 'sqlite':
            self.tmp = tempfile.TemporaryDirectory()
            self.url = 'sqlite:///%s/designs.sqlite' % self.tmp.name
            return
        self._admin('CREATE DATABASE %s' % self.name)
        self.url = str(sa.engine.make_url(SERVERS[kind]).set(
            database=self.name).render_as_string(hide_password=False))
        if kind == 'mysql':
            self.url += '?charset=utf8mb4'

    def _admin(self, statement: str) -> None:
        engine = sa.create_engine(SERVERS[self.kind],
                                  isolation_level='AUTOCOMMIT')
        with engine.connect() as conn:
            conn.execute(sa.text(statement))
        engine.dispose()

    def __enter__(self) -> Database:
        CONF.set_override('connection', self.url, 'database')
        db_session.dispose()
        migration.upgrade()
        return self

    def __exit__(self, *exc) -> None:
        db_session.dispose()
        if self.kind == 'sqlite':
            self.tmp.cleanup()
        else:
            self._admin('DROP DATABASE IF EXISTS %s' % self.name)


def timed(call) -> tuple[tuple[float, float], object]:
    """(wall, CPU) seconds of ``call``, and its result. The CPU time of
    this process tells the cost apart from other processes' load."""
    start, cpu = time.perf_counter(), time.process_time()
    result = call()
    return (time.perf_counter() - start, time.process_time() - cpu), result


def run_once(args) -> dict[str, float]:
    nodes = [node(i) for i in range(args.nodes)]
    nodes_text = dump(nodes)
    site_text = dump(others(args.others))
    changed = nodes[:]
    for index in range(0, args.nodes, max(1, args.nodes // args.changed)):
        changed[index] = node(index, rack_offset=1)
    changed_text = dump(changed)
    times = {}
    design.forget()
    with Database(args.database):
        times['stage'], _ = timed(lambda: (
            store.stage('nodes', [Source('nodes.yaml', nodes_text)]),
            store.stage('site', [Source('site.yaml', site_text)])))
        times['commit'], result = timed(store.commit)
        assert result.revision == 1, result
        store.stage('nodes', [Source('nodes.yaml', changed_text)])
        times['diff'], diff = timed(store.diff)
        modified = [d for d in diff.documents if d.status == 'modified']
        assert len(modified) == args.changed, len(modified)
        times['commit-change'], result = timed(store.commit)
        assert result.revision == 2, result
        times['diff-revisions'], diff = timed(lambda: store.diff(1, 2))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--database', default='sqlite',
                        choices=['sqlite', 'postgresql', 'mysql'])
    parser.add_argument('--nodes', type=int, default=5000)
    parser.add_argument('--others', type=int, default=50)
    parser.add_argument('--changed', type=int, default=10,
                        help='node documents changed between revisions')
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()
    CONF([], project='ironside', default_config_files=[])
    runs = [run_once(args) for _ in range(args.repeat)]
    print('Site design of %d node documents and %d others, %s, %d runs; '
          'seconds, wall (median, min, max) and CPU of this process '
          '(median):' % (args.nodes, args.others, args.database,
                         args.repeat))
    for step in STEPS:
        walls = [r[step][0] for r in runs]
        print('  %-15s wall %6.3f  %6.3f  %6.3f   cpu %6.3f' % (
            step, statistics.median(walls), min(walls), max(walls),
            statistics.median(r[step][1] for r in runs)))


if __name__ == '__main__':
    main()
