"""Provisioning throughput and API latency, Ironside and Ironic 39 side by
side.

    python -m benchmarks.provision --servers ironside,ironic39 --nodes 100,1000

For every workload, automated-cleaning setting, node count and server (in
that order, one server at a time, each in a fresh process with a fresh
database) it enrolls the nodes, drives them all to active and back (see
benchmarks/workload.py), then times node list and show. It prints a table
per workload, cleaning setting and node count and writes everything to
benchmarks/results/<UTC time>.json.

Workloads (``--workload``): ``serial``, each of the workers drives one node
at a time (verb, then polls of that node); ``burst``, the workers send
every node's verb of a phase as fast as the server takes them while one
client polls the node list. ``--automated-clean on,off`` runs both
cleaning settings. Shapes (``--shape``): ``all-in-one`` on SQLite, or
``split-json-rpc`` / ``split-rabbitmq``, the API and a conductor as
processes of their own on a fresh PostgreSQL database (benchmarks/servers.py).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import itertools
import json
import os
import platform
import sys
import time
from pathlib import Path

from benchmarks import profile
from benchmarks import report
from benchmarks.client import Api
from benchmarks.servers import SHAPES
from benchmarks.servers import make_server
from benchmarks.workload import PollSchedule
from benchmarks.workload import Workload

RESULTS_DIR = Path(__file__).resolve().parent / 'results'


def add_output_option(parser: argparse.ArgumentParser) -> None:
    """``--output``: where a benchmark writes its results document."""
    parser.add_argument('--output', type=Path,
                        help='JSON file to write (default: '
                             'benchmarks/results/<UTC time>.json).')


def parse_list_only(spec: str | None,
                    servers: list[str]) -> dict[str, int]:
    """--list-only SPEC -> {server: smallest node count it applies to}.

    No SPEC: every server at every count. Otherwise comma-separated
    ``server`` or ``server:N`` (only for counts >= N).
    """
    if spec is None:
        return {}
    if spec == '*':
        return dict.fromkeys(servers, 0)
    limits = {}
    for item in spec.split(','):
        name, _, count = item.partition(':')
        limits[name] = int(count) if count else 0
    return limits


def machine() -> dict[str, object]:
    model = ''
    try:
        with open('/proc/cpuinfo') as cpuinfo:
            for line in cpuinfo:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    memory_gib = (os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
                  / 2 ** 30)
    return {'cpus': os.cpu_count(), 'cpu_model': model,
            'memory_gib': round(memory_gib, 1),
            'python': platform.python_version(),
            'kernel': platform.release()}


def _profiled(server, count: int, directory: Path | None):
    if directory is None:
        return contextlib.nullcontext()
    return profile.record(server.process.pid,
                          directory / ('%s-%d.raw' % (server.name, count)))


def run_one(server_name: str, count: int, args: argparse.Namespace,
            list_only: bool, workload_name: str = 'serial',
            automated_clean: bool = True,
            shape: str = 'all-in-one') -> dict:
    server = make_server(server_name, keep_state=args.keep_state,
                         automated_clean=automated_clean, shape=shape)
    result: dict = {'server': server_name, 'nodes': count,
                    'list_only': list_only, 'workload': workload_name,
                    'automated_clean': automated_clean, 'shape': shape}
    tag = '%s %s N=%d %s cleaning %s' % (
        server_name, shape, count, workload_name,
        'on' if automated_clean else 'off')
    log = lambda text: print('[%s] %s' % (tag, text),  # noqa: E731
                             file=sys.stderr, flush=True)
    log('starting')
    result['load_average_before'] = os.getloadavg()
    with server:
        result['version'] = server.version()
        result['memory_at_start'] = server.memory()
        api = Api(server.base_url)
        result['api_version'] = api.version
        workload = Workload(api, server, workers=args.workers,
                            poll=PollSchedule(args.poll_first,
                                              args.poll_max),
                            log=log)
        enroll, uuids = workload.enroll(count)
        result['enroll'] = enroll.as_dict()
        log('enrolled %d nodes at %.1f nodes/s' % (enroll.nodes,
                                                  enroll.rate))
        if not list_only:
            drive = (workload.provision_burst if workload_name == 'burst'
                     else workload.provision)
            with _profiled(server, count, args.py_spy):
                phases = drive(uuids)
            result['phases'] = {phase.name: phase.as_dict()
                                for phase in phases}
            for phase in phases:
                log('%s: %d nodes at %.1f nodes/s%s' % (
                    phase.name, phase.nodes, phase.rate,
                    ' (%s)' % phase.failures[0] if phase.failures else ''))
        log('timing list and show')
        result['latency'] = workload.latencies(uuids, args.latency_seconds)
        result['server_cpu_seconds'] = server.cpu_seconds()
        result['memory'] = server.memory()
        result['load_average_after'] = os.getloadavg()
        if args.keep_state:
            result['state_dir'] = str(server.state_dir)
    log('done')
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--servers', default='ironside,ironic39',
                        help='Comma-separated: ironside, ironic39 '
                             '(default: both).')
    parser.add_argument('--nodes', default='100,1000',
                        help='Comma-separated node counts (default: '
                             '100,1000).')
    parser.add_argument('--workload', default='serial',
                        help='Comma-separated: serial, burst (default: '
                             'serial).')
    parser.add_argument('--automated-clean', default='on',
                        help='Comma-separated: on, off (default: on).')
    parser.add_argument('--shape', default='all-in-one',
                        help='Comma-separated: %s (default: all-in-one).'
                             % ', '.join(SHAPES))
    parser.add_argument('--workers', type=int, default=8,
                        help='Concurrent clients (default: 8).')
    parser.add_argument('--poll-first', type=float, default=0.01,
                        help='Seconds before the second poll of a node\'s '
                             'state (the first is at once); later waits '
                             'grow 1.5x each (default: 0.01).')
    parser.add_argument('--poll-max', type=float, default=0.5,
                        help='Longest wait between two polls (default: '
                             '0.5). Equal to --poll-first: a fixed '
                             'interval.')
    parser.add_argument('--latency-seconds', type=float, default=10.0,
                        help='Time spent on each list/show timing '
                             '(default: 10; at least 5 iterations).')
    parser.add_argument('--list-only', nargs='?', const='*', metavar='SPEC',
                        help='Skip provisioning (enroll, then time list and '
                             'show). Alone: for every server. '
                             'SERVER[:N],...: only for those servers, at '
                             'node counts >= N, e.g. ironic39:10000.')
    parser.add_argument('--py-spy', type=Path, metavar='DIR',
                        help='Record each server with py-spy while it '
                             'provisions, into DIR/<server>-<N>.raw '
                             '(summarise with python -m '
                             'benchmarks.profile).')
    parser.add_argument('--keep-state', action='store_true',
                        help='Keep each server\'s state directory '
                             '(config, database, logs).')
    add_output_option(parser)
    args = parser.parse_args(argv)
    server_names = [name for name in args.servers.split(',') if name]
    counts = [int(count) for count in args.nodes.split(',') if count]
    workloads = [name for name in args.workload.split(',') if name]
    cleanings = [value == 'on' for value in args.automated_clean.split(',')
                 if value]
    shapes = [name for name in args.shape.split(',') if name]
    unknown = set(shapes) - set(SHAPES)
    if unknown:
        parser.error('unknown shape(s) %s; known: %s' % (
            ', '.join(sorted(unknown)), ', '.join(SHAPES)))
    list_only = parse_list_only(args.list_only, server_names)

    started = datetime.datetime.now(datetime.timezone.utc)
    document = {
        'started': started.isoformat(timespec='seconds'),
        'machine': machine(),
        'settings': {'servers': server_names, 'nodes': counts,
                     'workers': args.workers,
                     'poll_first': args.poll_first,
                     'poll_max': args.poll_max,
                     'latency_seconds': args.latency_seconds,
                     'list_only': args.list_only,
                     'workloads': workloads,
                     'automated_clean': cleanings,
                     'shapes': shapes},
        'runs': [],
    }
    output = args.output or RESULTS_DIR / (
        started.strftime('%Y%m%dT%H%M%SZ') + '.json')
    clock = time.monotonic()
    for shape, workload_name, clean, count, name in itertools.product(
            shapes, workloads, cleanings, counts, server_names):
        skip = name in list_only and count >= list_only[name]
        try:
            run = run_one(name, count, args, skip, workload_name, clean,
                          shape)
        except Exception as exc:
            # Keep what the other servers measured; say why this one
            # has no figures.
            print('[%s %s N=%d] failed: %s' % (name, shape, count, exc),
                  file=sys.stderr, flush=True)
            run = {'server': name, 'nodes': count, 'error': str(exc),
                   'workload': workload_name, 'automated_clean': clean,
                   'shape': shape}
        document['runs'].append(run)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(document, indent=1))
    document['seconds'] = round(time.monotonic() - clock, 1)
    output.write_text(json.dumps(document, indent=1))
    print(report.render(document))
    print('Results written to %s' % output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
