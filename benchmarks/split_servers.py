"""Ironside split over processes for the scale-out benchmark: one
``ironside-api`` and K ``ironside-conductor`` processes over RabbitMQ and
PostgreSQL, or the all-in-one ``ironside`` on the same PostgreSQL.

Each deployment gets a fresh PostgreSQL database and a RabbitMQ virtual
host of its own (the functional tests' fixtures make them), and every
process starts in a session of its own, so its CPU time can be read from
/proc and a kill leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
import sqlalchemy as sa
from prometheus_client.parser import text_string_to_metric_families

from benchmarks.servers import free_port
from benchmarks.servers import interface_options
from benchmarks.servers import postgres_cpu
from benchmarks.servers import tail
from benchmarks.servers import write_ini
from tests import dbs
from tests.functional.fixtures import process
from tests.functional.fixtures import services

BIN = Path(sys.executable).parent
START_TIMEOUT = 120.0

# Liveness figures short enough to see a conductor die within a run:
# declared dead 10 s after its last heartbeat, and the API's hash ring
# rebuilt every 5 s.
FAST_LIVENESS = {'heartbeat_interval': 2, 'heartbeat_timeout': 10,
                 'hash_ring_reset_interval': 5, 'takeover_interval': 5}


class Proc:
    """One Ironside process, in a session of its own."""

    def __init__(self, name: str, argv: list[str], workdir: Path,
                 metrics_url: str | None = None) -> None:
        self.name = name
        self.argv = argv
        self.log_path = workdir / ('%s.out' % name)
        self.metrics_url = metrics_url
        self.popen: subprocess.Popen | None = None

    def start(self) -> Proc:
        with open(self.log_path, 'ab') as out:
            self.popen = subprocess.Popen(
                self.argv, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
                env=dict(os.environ, PYTHONUNBUFFERED='1'))
        return self

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        if self.running:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()

    def stop(self) -> None:
        if not self.running:
            return
        os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(30)
        except subprocess.TimeoutExpired:
            self.kill()


def cpu_by_session() -> dict[int, float]:
    """CPU seconds (user + system) of live processes, by session id."""
    ticks = os.sysconf('SC_CLK_TCK')
    totals: dict[int, float] = {}
    for fields in process.process_stats().values():
        session = int(fields[3])
        totals[session] = totals.get(session, 0.0) + \
            (int(fields[11]) + int(fields[12])) / ticks
    return totals


def scrape(url: str) -> dict[str, float]:
    """The samples of a /metrics page that the benchmark reads."""
    wanted = ('ironside_rpc_calls_total', 'ironside_db_statements_total')
    totals: dict[str, float] = {}
    text = requests.get(url, timeout=30).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == 'ironside_rpc_calls_total':
                key = 'rpc_calls'
            elif sample.name == 'ironside_db_statements_total':
                key = 'statements_' + sample.labels['kind']
            else:
                continue
            if sample.name in wanted:
                totals[key] = totals.get(key, 0.0) + sample.value
    return totals


class Deployment:
    """The API and ``conductors`` conductor processes (0: the all-in-one)."""

    def __init__(self, conductors: int, options: dict[str, dict],
                 keep_state: bool = False) -> None:
        self.conductors = conductors
        self.options = options
        self.keep_state = keep_state
        self.workdir = Path(tempfile.mkdtemp(prefix='bench-scale-'))
        self.port = free_port()
        self.base_url = 'http://127.0.0.1:%d' % self.port
        self.procs: dict[str, Proc] = {}
        self._stack = contextlib.ExitStack()
        self.database: dbs.TestDatabase | None = None
        self.engine: sa.Engine | None = None

    @property
    def name(self) -> str:
        return 'all-in-one' if not self.conductors else \
            'API + %d conductor%s' % (self.conductors,
                                      's' if self.conductors > 1 else '')

    def hosts(self) -> list[str]:
        return ['conductor-%d' % i for i in range(1, self.conductors + 1)]

    def _sections(self, host: str, transport_url: str,
                  exchange: str) -> dict[str, dict[str, object]]:
        default = {'host': host, 'auth_strategy': 'noauth',
                   'enabled_hardware_types': 'fake-hardware',
                   'rpc_transport': 'oslo' if self.conductors else 'local',
                   'transport_url': transport_url,
                   'control_exchange': exchange,
                   'rpc_response_timeout': 10,
                   'log_file': self.workdir / ('%s.log' % host)}
        default.update(interface_options({'firmware': 'no-firmware',
                                          'network': 'noop',
                                          'storage': 'noop'}))
        sections = {'DEFAULT': default,
                    # The BMCs are fake-hardware's, as quick as the
                    # database: a call waiting on one gets the same 10 s
                    # as any other, so a call sent to a conductor just
                    # killed fails and is retried within that, not 90 s.
                    'api': {'host_ip': '127.0.0.1', 'port': self.port,
                            'max_limit': 1000,
                            'rpc_bmc_response_timeout': 10},
                    'database': {'connection': self.database.url},
                    'metrics': {'enabled': 'true'}}
        for group, values in self.options.items():
            sections.setdefault(group, {}).update(values)
        return sections

    def start(self) -> None:
        self.database = dbs.TestDatabase('postgresql')
        self._stack.callback(self.database.drop)
        transport_url = self._stack.enter_context(services.rabbit_vhost())
        exchange = services.unique_exchange()
        self.engine = sa.create_engine(self.database.url)
        self._stack.callback(self.engine.dispose)

        def config(host: str, **extra: dict) -> Path:
            sections = self._sections(host, transport_url, exchange)
            for group, values in extra.items():
                sections.setdefault(group, {}).update(values)
            path = self.workdir / ('%s.conf' % host)
            write_ini(path, sections)
            return path

        sync = subprocess.run(
            [str(BIN / 'ironside-dbsync'), '--config-file',
             str(config('dbsync')), 'upgrade'], capture_output=True)
        if sync.returncode:
            raise RuntimeError('dbsync failed: %s' % sync.stderr[-2000:])
        if not self.conductors:
            self._start(Proc('all-in-one', [
                str(BIN / 'ironside'), '--config-file',
                str(config('all-in-one')), '--state-dir',
                str(self.workdir)], self.workdir,
                self.base_url + '/metrics'))
        for host in self.hosts():
            port = free_port()
            self._start(Proc(host, [
                str(BIN / 'ironside-conductor'), '--config-file',
                str(config(host, metrics={'conductor_port': port}))],
                self.workdir, 'http://127.0.0.1:%d/metrics' % port))
        if self.conductors:
            self._wait(lambda: set(self.live_hosts()) == set(self.hosts()),
                       'conductors to register')
            self._start(Proc('api', [
                str(BIN / 'ironside-api'), '--config-file',
                str(config('api'))], self.workdir,
                self.base_url + '/metrics'))
        self._wait(self._answers, 'the API to answer')

    def _start(self, proc: Proc) -> None:
        self.procs[proc.name] = proc.start()

    def _answers(self) -> bool:
        try:
            return requests.get(self.base_url + '/', timeout=2).ok
        except requests.RequestException:
            return False

    def _wait(self, condition, what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while not condition():
            dead = [p.name for p in self.procs.values() if not p.running]
            if dead or time.monotonic() > deadline:
                raise RuntimeError('waiting for %s: %s\n%s' % (
                    what, 'died: %s' % dead if dead else 'timed out',
                    self.logs()))
            time.sleep(0.2)

    def logs(self) -> str:
        return '\n'.join('== %s\n%s' % (p.name, tail(p.log_path))
                         for p in self.procs.values())

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.running:
                os.killpg(proc.popen.pid, signal.SIGTERM)
        for proc in self.procs.values():
            proc.stop()
        self._stack.close()
        if not self.keep_state:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Deployment:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # What is measured

    def query(self, sql: str, **params) -> list[sa.Row]:
        with self.engine.connect() as conn:
            return list(conn.execute(sa.text(sql), params))

    def live_hosts(self, timeout: float = 10) -> list[str]:
        return [row[0] for row in self.query(
            "SELECT hostname FROM conductors WHERE online AND "
            "heartbeat_at > (now() AT TIME ZONE 'utc') - "
            "make_interval(secs => :timeout)", timeout=timeout)]

    def counters(self) -> dict[str, float]:
        """Ironside's CPU by process, PostgreSQL's, the database's
        transactions and row writes, RPC calls and SQL statements."""
        sessions = cpu_by_session()
        values: dict[str, float] = {}
        for proc in self.procs.values():
            if proc.running:
                values['cpu_' + proc.name] = sessions.get(proc.popen.pid,
                                                          0.0)
        values['cpu_ironside'] = sum(v for k, v in values.items()
                                     if k.startswith('cpu_'))
        values['cpu_postgres'] = postgres_cpu()
        with self.engine.connect() as conn:
            conn.execute(sa.text('SELECT pg_stat_clear_snapshot()'))
            row = conn.execute(sa.text(
                'SELECT xact_commit, xact_rollback, tup_inserted, '
                'tup_updated, tup_deleted, tup_fetched FROM '
                'pg_stat_database WHERE datname = :name'),
                {'name': self.database.name}).one()
        values.update(transactions=row[0] + row[1],
                      row_writes=row[2] + row[3] + row[4],
                      rows_fetched=row[5])
        for proc in self.procs.values():
            if proc.running and proc.metrics_url:
                for key, value in scrape(proc.metrics_url).items():
                    values[key] = values.get(key, 0.0) + value
        return values

    def states(self) -> dict[str | None, int]:
        return dict(self.query('SELECT provision_state, count(*) FROM '
                               'nodes GROUP BY provision_state'))

    def handled_by(self) -> dict[str, int]:
        """Nodes by the conductor that last deployed them."""
        return dict(self.query(
            'SELECT c.hostname, count(*) FROM nodes n JOIN conductors c '
            'ON c.id = n.conductor_affinity GROUP BY c.hostname '
            'ORDER BY c.hostname'))
