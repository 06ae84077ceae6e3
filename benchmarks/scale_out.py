"""Scale-out: the API and 1, 2 and 3 conductor processes over RabbitMQ and
PostgreSQL, against the all-in-one on the same PostgreSQL and machine.

    python -m benchmarks.scale_out --nodes 2000 --configs aio,1,2,3

Two modes (``--modes``):

``nodelay``
    fake steps take no time: CPU-bound, every process shares the cores.
``delay``
    every fake step takes ``--step-delay`` seconds (1 by default;
    fake-hardware's ``fake_step_delay``), and each conductor has
    ``--delay-pool`` worker threads, so a conductor is bound by the
    hardware it waits on, as real ones are: more conductors, more nodes
    in flight. Run on ``--delay-nodes`` nodes.

For each mode and configuration (fresh database and RabbitMQ virtual
host) it enrolls the nodes, drives them manage → provide → deploy →
undeploy (each phase: ``--workers`` clients send the verb to every node,
retrying 409 and 503, while the benchmark watches the nodes' states in
the database, so polls cost the servers nothing; a phase lasts from its
first request to the last node's ``provision_updated_at``), times node
lists (plain, detail, Nova's fields), and reads per phase: Ironside's
and PostgreSQL's CPU, the database's transactions and row writes, SQL
statements and conductor RPC calls (the processes' /metrics). It prints
how the hash ring spreads the nodes, and with two conductors or more
kills one (SIGKILL) and times until every one of its nodes answers a
request (``GET /v1/nodes/{node}/validate``, which the owner serves)
through the others.

The fleet caps are raised to the node count and the conductors' backlog
too, so that the figures measure throughput rather than the caps.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import threading
import time
from concurrent import futures
from pathlib import Path

from tooz import hashring

from benchmarks.client import NOVA_FIELDS
from benchmarks.client import Api
from benchmarks.client import ApiError
from benchmarks.provision import machine
from benchmarks.split_servers import FAST_LIVENESS
from benchmarks.split_servers import Deployment
from benchmarks.workload import Workload
from benchmarks.workload import summarize

RESULTS_DIR = Path(__file__).resolve().parent / 'results'
PHASES = (('manage', 'manage', 'manageable'),
          ('provide', 'provide', 'available'),
          ('deploy', 'active', 'active'),
          ('undeploy', 'deleted', 'available'))
RETRY = (409, 503)


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Run:
    """One deployment through the whole workload."""

    def __init__(self, dep: Deployment, api: Api, args, nodes: int,
                 delay: float, log) -> None:
        self.dep = dep
        self.api = api
        self.args = args
        self.nodes = nodes
        self.delay = delay
        self.log = log
        self.retries = 0
        self.partitions = 2 ** args.hash_exponent
        self._lock = threading.Lock()

    def _measure(self, name: str, work) -> dict:
        before = self.dep.counters()
        started_wall = _utcnow()
        started = time.perf_counter()
        count, ended_wall = work()
        seconds = (ended_wall - started_wall).total_seconds() \
            if ended_wall else time.perf_counter() - started
        time.sleep(1.5)   # PostgreSQL publishes its counters every second
        after = self.dep.counters()
        delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
        per_node = max(count, 1)
        statements = sum(v for k, v in delta.items()
                         if k.startswith('statements_'))
        result = {
            'phase': name, 'nodes': count, 'seconds': round(seconds, 2),
            'nodes_per_second': round(count / seconds, 2) if seconds
            else 0.0,
            'retries': self.retries,
            'ironside_cpu_ms_per_node': round(
                delta['cpu_ironside'] * 1000 / per_node, 2),
            'postgres_cpu_ms_per_node': round(
                delta['cpu_postgres'] * 1000 / per_node, 2),
            'transactions_per_node': round(
                delta['transactions'] / per_node, 1),
            'row_writes_per_node': round(delta['row_writes'] / per_node, 1),
            'statements_per_node': round(statements / per_node, 1),
            'rpc_calls_per_node': round(delta.get('rpc_calls', 0.0) /
                                        per_node, 2),
            'cpu_by_process_s': {k[4:]: round(v, 1) for k, v in
                                 delta.items() if k.startswith('cpu_')},
        }
        self.retries = 0
        self.log('%-8s %5d nodes %7.1f s %7.1f nodes/s  ironside %6.1f '
                 'ms/node  pg %5.1f ms/node  %5.1f stmts  %4.1f xacts  '
                 '%4.1f writes  %4.2f rpc /node' % (
                     name, count, seconds, result['nodes_per_second'],
                     result['ironside_cpu_ms_per_node'],
                     result['postgres_cpu_ms_per_node'],
                     result['statements_per_node'],
                     result['transactions_per_node'],
                     result['row_writes_per_node'],
                     result['rpc_calls_per_node']))
        return result

    def enroll(self) -> tuple[dict, list[str]]:
        uuids: list[str] = []
        driver_info = {'fake_step_delay': self.delay} if self.delay else {}

        def create(index: int) -> str:
            return self.api.call('POST', '/v1/nodes', body={
                'driver': 'fake-hardware', 'name': 'bench-%05d' % index,
                'resource_class': 'baremetal', 'driver_info': driver_info,
                'properties': {'cpus': 8, 'memory_mb': 32768,
                               'local_gb': 100, 'cpu_arch': 'x86_64'},
            }, expect=(201,))['uuid']

        def work():
            with futures.ThreadPoolExecutor(self.args.workers) as pool:
                uuids.extend(pool.map(create, range(self.nodes)))
            return len(uuids), None

        return self._measure('enroll', work), uuids

    def _send(self, uuid: str, verb: str) -> None:
        path = '/v1/nodes/%s/states/provision' % uuid
        wait = 0.05
        while True:
            response = self.api.request('PUT', path, body={'target': verb})
            if response.status == 202:
                return
            if response.status not in RETRY:
                raise ApiError('PUT', path, response.status,
                               response.body.decode(errors='replace'))
            with self._lock:
                self.retries += 1
            time.sleep(wait)
            wait = min(wait * 2, 1.0)

    def phase(self, name: str, verb: str, target: str,
              uuids: list[str]) -> dict:
        def work():
            with futures.ThreadPoolExecutor(self.args.workers) as pool:
                sent = [pool.submit(self._send, u, verb) for u in uuids]
                while True:
                    row = self.dep.query(
                        "SELECT count(*) FILTER (WHERE provision_state = :t "
                        "AND target_provision_state IS NULL), count(*) "
                        "FILTER (WHERE provision_state LIKE '%failed' OR "
                        "provision_state = 'error'), "
                        "max(provision_updated_at) FROM nodes",
                        t=target)[0]
                    done = all(f.done() for f in sent)
                    if done and row[0] + row[1] >= len(uuids):
                        break
                    time.sleep(0.25)
                for job in sent:
                    job.result()
            if row[1]:
                self.log('%s: %d nodes failed' % (name, row[1]))
            return row[0], row[2]

        return self._measure(name, work)

    def latencies(self, uuids: list[str]) -> dict:
        workload = Workload(self.api, None)
        figures = workload.latencies(uuids, self.args.latency_seconds)
        keep = ('list', 'list_detail', 'list_nova_fields', 'show')
        self.log('list p50 ms: ' + ', '.join(
            '%s %.0f' % (k, figures[k]['p50']) for k in keep))
        return {k: figures[k] for k in keep}

    def page_latencies(self) -> dict:
        """One request for one page of the API's largest (1,000 nodes):
        what a client waits for each time it asks, whatever the fleet's
        size (a whole list grows with the nodes it returns)."""
        nova = ','.join(NOVA_FIELDS)
        figures = {}
        for name, path, params in (
                ('page', '/v1/nodes', {}),
                ('page_detail', '/v1/nodes/detail', {}),
                ('page_nova_fields', '/v1/nodes', {'fields': nova})):
            def run(path=path, params=params) -> float:
                response = self.api.request('GET', path,
                                            dict(params, limit='1000'))
                if response.status != 200:
                    raise ApiError('GET', path, response.status,
                                   response.body.decode(errors='replace'))
                return response.seconds
            figures[name] = summarize(Workload._repeat(
                run, self.args.latency_seconds, 5, 500))
        self.log('one page p50 ms: ' + ', '.join(
            '%s %.0f' % (k, v['p50']) for k, v in figures.items()))
        return figures

    def spread(self, uuids: list[str]) -> dict:
        hosts = self.dep.hosts()
        if not hosts:
            return {}
        ring = hashring.HashRing(hosts, partitions=self.partitions)
        counts = dict.fromkeys(hosts, 0)
        for uuid in uuids:
            counts[next(iter(ring.get_nodes(uuid.encode())))] += 1
        self.log('hash ring: %s; deployed by: %s' % (
            counts, self.dep.handled_by()))
        return {'ring': counts, 'deployed_by': self.dep.handled_by()}

    def kill_one(self, uuids: list[str]) -> dict:
        """SIGKILL the last conductor; time until all its nodes answer."""
        hosts = self.dep.hosts()
        victim = hosts[-1]
        before = hashring.HashRing(hosts, partitions=self.partitions)
        after = hashring.HashRing(hosts[:-1], partitions=self.partitions)

        def owner(ring, uuid):
            return next(iter(ring.get_nodes(uuid.encode())))

        theirs = [u for u in uuids if owner(before, u) == victim]
        moved_elsewhere = sum(1 for u in uuids if owner(before, u) !=
                              victim and owner(after, u) != owner(before, u))
        respread = dict.fromkeys(hosts[:-1], 0)
        for uuid in theirs:
            respread[owner(after, uuid)] += 1
        killed = time.monotonic()
        self.dep.procs[victim].kill()
        answered: list[float] = []

        def reach(uuid: str) -> None:
            path = '/v1/nodes/%s/validate' % uuid
            while True:
                try:
                    if self.api.request('GET', path).status == 200:
                        answered.append(time.monotonic() - killed)
                        return
                except Exception:
                    pass
                time.sleep(0.5)

        detected = None
        with futures.ThreadPoolExecutor(self.args.workers) as pool:
            jobs = [pool.submit(reach, u) for u in theirs]
            while detected is None:
                if victim not in self.dep.live_hosts(
                        FAST_LIVENESS['heartbeat_timeout']):
                    detected = time.monotonic() - killed
                time.sleep(0.2)
            for job in jobs:
                job.result()
        result = {'victim': victim, 'its_nodes': len(theirs),
                  'respread_to': respread,
                  'other_nodes_moved': moved_elsewhere,
                  'declared_dead_after_s': round(detected, 1),
                  'all_its_nodes_answer_after_s': round(max(answered), 1)
                  if answered else 0.0}
        self.log('killed %s (%d nodes): dead after %.1f s, all its nodes '
                 'answer after %.1f s, re-spread %s, other nodes moved %d'
                 % (victim, len(theirs), result['declared_dead_after_s'],
                    result['all_its_nodes_answer_after_s'], respread,
                    moved_elsewhere))
        return result

    def idle(self, seconds: float) -> dict:
        """What the processes cost with nothing asked of them, per
        second: heartbeats, periodic jobs, the site action service."""
        before = self.dep.counters()
        time.sleep(seconds)
        after = self.dep.counters()
        rates = {k: round((after.get(k, 0.0) - before.get(k, 0.0)) /
                          seconds, 3) for k in after
                 if k.startswith(('cpu_', 'statements_', 'transactions',
                                  'row_writes'))}
        self.log('idle, per second: ironside CPU %.3f s, %.1f '
                 'transactions, %.1f row writes' % (
                     rates['cpu_ironside'], rates['transactions'],
                     rates['row_writes']))
        return rates

    def run(self) -> dict:
        result: dict = {}
        enroll, uuids = self.enroll()
        result['phases'] = [enroll]
        if self.args.lists_only:
            result['page_ms'] = self.page_latencies()
            result['latency_ms'] = self.latencies(uuids)
            return result
        result['idle_per_second'] = self.idle(self.args.idle_seconds)
        live = uuids
        for name, verb, target in PHASES:
            result['phases'].append(self.phase(name, verb, target, live))
            if name == 'deploy':
                result['spread'] = self.spread(uuids)
        if not self.args.no_latency:
            result['latency_ms'] = self.latencies(uuids)
        if len(self.dep.hosts()) >= 2 and not self.args.no_kill:
            result['kill'] = self.kill_one(uuids)
        return result


def options(mode: str, nodes: int, args) -> dict[str, dict]:
    conductor = dict(FAST_LIVENESS, automated_clean='true',
                     sync_power_state_interval=0,
                     max_concurrent_deploy=nodes, max_concurrent_clean=nodes,
                     workers_pool_backlog=nodes,
                     hash_partition_exponent=args.hash_exponent)
    if mode == 'delay':
        conductor['workers_pool_size'] = args.delay_pool
    # 4 processes stay within PostgreSQL's default max_connections of
    # 100.
    return {'conductor': conductor,
            'database': {'max_pool_size': 15, 'max_overflow': 5}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--nodes', type=int, default=10000,
                        help='Nodes in the no-delay mode (default 10000).')
    parser.add_argument('--delay-nodes', type=int, default=300,
                        help='Nodes in the delay mode (default 300).')
    parser.add_argument('--step-delay', type=float, default=1.0,
                        help='Seconds every fake step takes in the delay '
                             'mode (default 1).')
    parser.add_argument('--delay-pool', type=int, default=16,
                        help='Worker threads per conductor in the delay '
                             'mode (default 16).')
    parser.add_argument('--hash-exponent', type=int, default=10,
                        help='[conductor]hash_partition_exponent (default '
                             '10, its default).')
    parser.add_argument('--configs', default='aio,1,2,3',
                        help='aio (the all-in-one) and/or conductor counts '
                             '(default aio,1,2,3).')
    parser.add_argument('--modes', default='nodelay,delay')
    parser.add_argument('--workers', type=int, default=16,
                        help='Concurrent clients (default 16).')
    parser.add_argument('--latency-seconds', type=float, default=3.0)
    parser.add_argument('--idle-seconds', type=float, default=10.0,
                        help='Seconds the idle cost is measured over, '
                             'after enrolling (default 10).')
    parser.add_argument('--no-latency', action='store_true')
    parser.add_argument('--lists-only', action='store_true',
                        help='Enroll the nodes and time the lists only '
                             '(one page and whole lists), no phases.')
    parser.add_argument('--no-kill', action='store_true')
    parser.add_argument('--keep-state', action='store_true')
    parser.add_argument('--output', type=Path)
    args = parser.parse_args(argv)

    started = datetime.datetime.now(datetime.timezone.utc)
    output = args.output or RESULTS_DIR / (
        'scale-out-' + started.strftime('%Y%m%dT%H%M%SZ') + '.json')
    document = {'started': started.isoformat(timespec='seconds'),
                'command': 'python -m benchmarks.scale_out ' +
                ' '.join(argv if argv is not None else sys.argv[1:]),
                'machine': machine(), 'settings': vars(args) | {
                    'output': str(output)},
                'runs': []}
    for mode in args.modes.split(','):
        nodes = args.nodes if mode == 'nodelay' else args.delay_nodes
        delay = 0.0 if mode == 'nodelay' else args.step_delay
        for config in args.configs.split(','):
            conductors = 0 if config == 'aio' else int(config)
            dep = Deployment(conductors, options(mode, nodes, args),
                             keep_state=args.keep_state)
            tag = '[%s %s N=%d]' % (mode, dep.name, nodes)

            def log(text, tag=tag):
                print('%s %s' % (tag, text), file=sys.stderr, flush=True)

            run = {'mode': mode, 'config': dep.name, 'conductors':
                   conductors, 'nodes': nodes, 'step_delay': delay}
            run['load_average_before'] = os.getloadavg()
            try:
                with dep:
                    run.update(Run(dep, Api(dep.base_url), args, nodes,
                                   delay, log).run())
            except Exception as exc:
                log('failed: %s' % exc)
                run['error'] = str(exc)
            run['load_average_after'] = os.getloadavg()
            document['runs'].append(run)
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(json.dumps(document, indent=1))
    print(render(document))
    print('Results written to %s' % output)
    return 0


def render(document: dict) -> str:
    """A table per mode: phase rates and per-node costs by configuration."""
    lines = []
    for mode in dict.fromkeys(r['mode'] for r in document['runs']):
        runs = [r for r in document['runs'] if r['mode'] == mode
                and 'phases' in r]
        if not runs:
            continue
        lines.append('\n%s, N = %d' % (mode, runs[0]['nodes']))
        lines.append('%-28s' % '' + ''.join('%22s' % r['config']
                                            for r in runs))
        for index, phase in enumerate(runs[0]['phases']):
            for key, label in (('nodes_per_second', 'nodes/s'),
                               ('ironside_cpu_ms_per_node', 'CPU ms/node'),
                               ('postgres_cpu_ms_per_node', 'PG CPU ms/node'),
                               ('statements_per_node', 'SQL stmts/node'),
                               ('row_writes_per_node', 'row writes/node'),
                               ('rpc_calls_per_node', 'RPC calls/node')):
                lines.append('%-28s' % ('%s %s' % (phase['phase'], label))
                             + ''.join('%22s' % r['phases'][index][key]
                                       for r in runs))
        for figures in ('page_ms', 'latency_ms'):
            if not all(figures in r for r in runs):
                continue
            for key in runs[0][figures]:
                lines.append('%-28s' % ('%s p50 ms' % key) + ''.join(
                    '%22.0f' % r[figures][key]['p50'] for r in runs))
    return '\n'.join(lines)


if __name__ == '__main__':
    sys.exit(main())
