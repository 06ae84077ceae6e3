"""What the site layer adds to tasks: a task graph through the whole layer
against the same tasks sent straight to the SSH task runner.

    python -m benchmarks.task_graph --nodes 200 --tasks 10

One process holds a conductor (in-process RPC, as the all-in-one runs
it), a database (``--database sqlite``, a file, or ``postgresql`` /
``mysql``) and the site action service with the installed task runners
(SSH); ``--nodes`` OpenSSH servers stand in for the deployed nodes (the
functional tests' fixture), one fake-hardware node each, every node with
the role ``all``. ``[site] max_nodes_in_flight`` is ``--in-flight``
(default: every node at once), so the layer and the direct runs have the
same concurrency.

``deploy``
    ``deploy_site`` of a graph with one group (``all``, parallel) and one
    ``true`` task: every node prepared, deployed (fake hardware) and
    connected over SSH. The whole layer, end to end.
``true``, ``sleep 0.1``
    ``update_site`` of a graph of ``--tasks`` shell tasks, each requiring
    the one before, on the deployed nodes (no OS work: a partial run of
    tasks only), against the same tasks sent by one thread per node
    straight to a second SSH task runner (``direct``, as
    ``benchmarks/ssh_tasks.py`` does).

For each: tasks per second, the wall time, and the layer's overhead:
per task, the layer's run minus the direct run's wall time, divided by
the tasks in a node's chain; and the gap between a task's end and the
next one's start on the same node as the task rows record them (p50,
p95). Printed, and written to ``benchmarks/results/task-graph-<UTC
time>.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import site_deploy  # noqa: E402
from benchmarks import ssh_tasks  # noqa: E402
from ironside.common.conf import CONF  # noqa: E402
from ironside.db import session as db_session  # noqa: E402
from ironside.db import site as site_db  # noqa: E402
from ironside.db import site_models  # noqa: E402
from ironside.strategy import actions  # noqa: E402
from ironside.strategy import service as site_service  # noqa: E402
from ironside.strategy.nodes import conductor as conductor_nodes  # noqa: E402
from ironside.strategy.tasks.ssh import SSHTaskRunner  # noqa: E402
from tests.functional.fixtures import sshd  # noqa: E402

RESULTS = Path(__file__).resolve().parent / 'results'
POLL = 0.05


def graph(tasks: int, command: str) -> str:
    """One parallel group, a chain of ``tasks`` shell tasks."""
    items = ['- id: all\n  type: group\n']
    for index in range(tasks):
        items.append(
            '- id: t%02d\n  type: shell\n  groups: [all]\n%s'
            '  parameters: {cmd: "%s", timeout: 60}\n'
            % (index, '  requires: [t%02d]\n' % (index - 1) if index else '',
               command))
    return ''.join(items)


def enroll(rpc, fleet: sshd.SSHNodes) -> None:
    for node in fleet:
        rpc.create_node(site_deploy.CTX, {
            'name': node.name, 'driver': 'fake-hardware',
            'resource_class': 'baremetal', 'extra': {'roles': ['all']}})


def access(fleet: sshd.SSHNodes) -> dict:
    return {'nodes': {node.name: {'address': node.address,
                                  'port': node.port, 'user': fleet.user,
                                  'known_host': node.host_key}
                      for node in fleet},
            'private_key': fleet.client_key}


def run_action(nodes, action: str, text: str, fleet: sshd.SSHNodes
               ) -> dict:
    """Create the action, wait for it; its figures."""
    started = time.monotonic()
    cpu = time.process_time()
    row = actions.create_action(nodes, action, documents=[text],
                                access=access(fleet))
    while _state(row.id) != site_models.FINISHED:
        time.sleep(POLL)
    seconds = time.monotonic() - started
    cpu_seconds = time.process_time() - cpu
    runs = site_db.action_tasks(row.id)
    done = site_db.get_action(row.uuid)
    failed = [r for r in runs if r.status != site_models.SUCCESS]
    first = min(r.started_at for r in runs)
    last = max(r.finished_at for r in runs)
    return {'action': action, 'seconds': seconds, 'cpu_seconds': cpu_seconds,
            # Created to the first task's start; the last task's end to
            # the action's.
            'start_seconds': (first - done.created_at).total_seconds(),
            'end_seconds': (done.finished_at - last).total_seconds(),
            'tasks': len(runs), 'failed': len(failed),
            'failures': sorted({'%s: %s' % (r.task, r.reason)
                                for r in failed})[:5],
            'result': done.result,
            'task_seconds': sum(r.duration or 0 for r in runs),
            'gaps': _gaps(runs)}


def _state(action_id: int) -> str:
    with db_session.reader() as session:
        return session.scalar(sa.select(site_models.SiteAction.state).where(
            site_models.SiteAction.id == action_id))


def _gaps(runs) -> list[float]:
    """Seconds between a task's end and the next one's start, per node."""
    by_node: dict[str, list] = {}
    for run in runs:
        by_node.setdefault(run.node_uuid, []).append(run)
    gaps = []
    for node_runs in by_node.values():
        node_runs.sort(key=lambda r: r.position)
        for before, after in zip(node_runs, node_runs[1:], strict=False):
            if before.finished_at and after.started_at:
                gaps.append((after.started_at -
                             before.finished_at).total_seconds())
    return gaps


def direct(fleet: sshd.SSHNodes, runner: SSHTaskRunner, tasks: int,
           command: str, own: float) -> dict:
    round_ = ssh_tasks.measure_round(runner.run, fleet.targets(), tasks,
                                     command, own, 'direct %s' % command)
    return {'seconds': round_.seconds, 'cpu_seconds': round_.cpu_seconds,
            'tasks': round_.tasks, 'failed': len(round_.failures)}


def compare(name: str, layer: dict, plain: dict | None,
            tasks_per_node: int) -> dict:
    figures = {
        'name': name, 'tasks': layer['tasks'], 'failed': layer['failed'],
        'failures': layer['failures'], 'result': layer['result'],
        'seconds': round(layer['seconds'], 2),
        'tasks_per_second': round(layer['tasks'] / layer['seconds'], 1),
        'cpu_ms_per_task': round(layer['cpu_seconds'] * 1000 /
                                 max(layer['tasks'], 1), 2),
        'start_ms': round(layer['start_seconds'] * 1000),
        'end_ms': round(layer['end_seconds'] * 1000),
    }
    if layer['gaps']:
        gaps = sorted(layer['gaps'])
        figures['gap_p50_ms'] = round(statistics.median(gaps) * 1000, 1)
        figures['gap_p95_ms'] = round(
            gaps[int(0.95 * (len(gaps) - 1))] * 1000, 1)
    if plain is not None:
        figures.update(
            direct_seconds=round(plain['seconds'], 2),
            direct_tasks_per_second=round(plain['tasks'] / plain['seconds'],
                                          1),
            direct_cpu_ms_per_task=round(plain['cpu_seconds'] * 1000 /
                                         plain['tasks'], 2),
            overhead_ms_per_task=round(
                (layer['seconds'] - plain['seconds']) * 1000 /
                tasks_per_node, 1),
            # The same, once the action's start and end are set aside.
            running_overhead_ms_per_task=round(
                (layer['seconds'] - layer['start_seconds'] -
                 layer['end_seconds'] - plain['seconds']) * 1000 /
                tasks_per_node, 1),
            direct_failed=plain['failed'])
    return figures


def run(args) -> dict:
    in_flight = args.in_flight or args.nodes
    site_deploy.configure(in_flight, args.node_poll_interval)
    with tempfile.TemporaryDirectory(prefix='task-graph-bench-') as base:
        started = time.monotonic()
        fleet = sshd.SSHNodes(Path(base) / 'ssh', args.nodes).start()
        sshd_seconds = time.monotonic() - started
        database = site_deploy.Database(args.database, base)
        manager, rpc = site_deploy.start_conductor(database)
        nodes = conductor_nodes.ConductorNodes(rpc)
        service = site_service.SiteActionService(CONF.host, nodes)
        service.start()
        runner = SSHTaskRunner()
        try:
            enroll(rpc, fleet)
            rounds = [compare('deploy (1 task)', run_action(
                nodes, 'deploy_site', graph(1, 'true'), fleet), None, 1)]
            direct(fleet, runner, 1, 'true', 0.0)   # connect the runner
            for command, own in (('true', 0.0), ('sleep 0.1', 0.1)):
                layer = run_action(nodes, 'update_site',
                                   graph(args.tasks, command), fleet)
                plain = direct(fleet, runner, args.tasks, command, own)
                rounds.append(compare('%d x %s' % (args.tasks, command),
                                      layer, plain, args.tasks))
        finally:
            runner.close()
            service.stop()
            manager.del_host()
            database.drop()
            fleet.stop()
    return {
        'benchmark': 'task_graph',
        'time': datetime.datetime.now(datetime.timezone.utc).isoformat(),
        'nodes': args.nodes, 'tasks_per_node': args.tasks,
        'in_flight': in_flight, 'database': args.database,
        'cpus': os.cpu_count(), 'load_average': os.getloadavg(),
        'sshd_start_seconds': round(sshd_seconds, 1),
        'node_poll_interval': CONF.site.node_poll_interval,
        'rounds': rounds,
    }


def render(document: dict) -> str:
    lines = ['%d nodes (one sshd each), %d shell tasks per node, %d in '
             'flight, %s, %d CPUs, load %s' % (
                 document['nodes'], document['tasks_per_node'],
                 document['in_flight'], document['database'],
                 document['cpus'], '/'.join(
                     '%.1f' % x for x in document['load_average'])),
             '',
             '%-16s %6s %8s %8s %9s %9s %8s %8s %9s %6s' % (
                 'round', 'tasks', 'seconds', 'tasks/s', 'direct s',
                 'direct/s', 'overhead', 'gap p50', 'layer CPU',
                 'failed'),
             '%-16s %6s %8s %8s %9s %9s %8s %8s %9s %6s' % (
                 '', '', '', '', '', '', 'ms/task', 'ms', 'ms/task', '')]
    for r in document['rounds']:
        lines.append('%-16s %6d %8.2f %8.1f %9s %9s %8s %8s %9.2f %6d' % (
            r['name'], r['tasks'], r['seconds'], r['tasks_per_second'],
            r.get('direct_seconds', '-'), r.get('direct_tasks_per_second',
                                                '-'),
            r.get('overhead_ms_per_task', '-'), r.get('gap_p50_ms', '-'),
            r['cpu_ms_per_task'], r['failed']))
    lines += ['']
    for r in document['rounds']:
        lines.append('%s: %d ms from creating the action to its first '
                     'task, %d ms from its last task to its end%s' % (
                         r['name'], r['start_ms'], r['end_ms'],
                         '; %s ms per task besides' %
                         r['running_overhead_ms_per_task']
                         if 'running_overhead_ms_per_task' in r else ''))
    lines += ['',
              'overhead: (layer seconds - direct seconds) / tasks in a '
              'node\'s chain; gap: a task\'s end to the next one\'s start on '
              'the same node (task rows); layer CPU: this process (conductor,'
              ' site layer, SSH runner) per task']
    return '\n'.join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=200)
    parser.add_argument('--tasks', type=int, default=10)
    parser.add_argument('--in-flight', type=int, default=None,
                        help='[site] max_nodes_in_flight (default: --nodes)')
    parser.add_argument('--node-poll-interval', type=float, default=None)
    parser.add_argument('--database', default='sqlite',
                        choices=['sqlite', 'postgresql', 'mysql'])
    parser.add_argument('--output', type=Path, default=None)
    args = parser.parse_args(argv)
    document = run(args)
    print(render(document))
    output = args.output or RESULTS / ('task-graph-%s.json' % datetime
                                       .datetime.now(datetime.timezone.utc)
                                       .strftime('%Y%m%dT%H%M%SZ'))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(document, indent=2))
    print('written to %s' % output)
    return 1 if any(r['failed'] for r in document['rounds']) else 0


if __name__ == '__main__':
    sys.exit(main())
