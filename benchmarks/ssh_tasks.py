"""What the SSH task runner costs: many nodes, many shell tasks, real sshd.

    python -m benchmarks.ssh_tasks --nodes 200 --tasks 10

Starts ``--nodes`` OpenSSH servers on 127.0.0.1 (the functional tests'
fixture: Debian's sshd, one per node, keys made for the run), then runs
rounds of ``--tasks`` shell tasks on every node, one worker thread per
node calling :meth:`SSHTaskRunner.run` (at most ``--workers`` at once),
as the site layer's task phase does:

``connect``
    ``true`` on nodes the runner has never seen: each node's first task
    pays its connection (TCP, key exchange, login), bounded by
    ``[ssh_tasks] max_concurrent_connects``.
``true``, ``sleep 0.1``
    On the open connections. ``true`` costs the node nothing, so its
    latency is the runner's and sshd's cost per task; ``sleep 0.1``
    shows the overhead above a task's own run time.

For each round: tasks per second, p50/p95 task latency, the overhead
(latency minus the task's own run time), and the benchmark process's CPU
(the runner and its callers; the sshd processes are not in it) per task.
Memory: the process's resident size before the first round and after the
last, and its peak. The figures are printed and written to
``benchmarks/results/ssh-tasks-<UTC time>.json``.

The site layer's own overhead is measured by calling :func:`measure_round`
with its ``run_task`` going through the site layer instead of straight to
the runner.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import json
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ironside.strategy.tasks.base import TaskResult  # noqa: E402
from ironside.strategy.tasks.base import TaskSpec  # noqa: E402
from ironside.strategy.tasks.base import TaskTarget  # noqa: E402
from ironside.strategy.tasks.ssh import SSHTaskRunner  # noqa: E402
from tests.functional.fixtures import process  # noqa: E402
from tests.functional.fixtures import sshd  # noqa: E402

RESULTS = Path(__file__).resolve().parent / 'results'

RunTask = Callable[[TaskTarget, TaskSpec], TaskResult]


@dataclasses.dataclass
class Round:
    name: str
    nodes: int
    tasks: int
    seconds: float
    cpu_seconds: float
    own_seconds: float
    latencies: list[float]
    failures: list[str]
    workers: int = 0
    node_cpu_seconds: float | None = None

    def summary(self) -> dict:
        ordered = sorted(self.latencies)

        def pct(p: float) -> float:
            return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

        return {
            'name': self.name, 'nodes': self.nodes, 'tasks': self.tasks,
            'seconds': round(self.seconds, 3),
            'tasks_per_second': round(self.tasks / self.seconds, 1),
            'p50_ms': round(pct(0.50) * 1000, 1),
            'p95_ms': round(pct(0.95) * 1000, 1),
            'overhead_p50_ms': round((pct(0.50) - self.own_seconds) * 1000,
                                     1),
            'overhead_mean_ms': round(
                (statistics.fmean(ordered) - self.own_seconds) * 1000, 1),
            'workers': self.workers,
            'cpu_ms_per_task': round(self.cpu_seconds * 1000 / self.tasks,
                                     2),
            'node_cpu_ms_per_task': (
                None if self.node_cpu_seconds is None else
                round(self.node_cpu_seconds * 1000 / self.tasks, 2)),
            'failures': self.failures[:10],
            'failed': len(self.failures),
        }


def measure_round(run_task: RunTask, targets: Sequence[TaskTarget],
                  tasks_per_node: int, command: str, own_seconds: float,
                  name: str, workers: int | None = None) -> Round:
    """Run ``tasks_per_node`` shell tasks ``command`` on every target, a
    worker per node (at most ``workers`` at once), each node's tasks one
    after the other; time each ``run_task`` call."""
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def node_work(target: TaskTarget) -> None:
        for i in range(tasks_per_node):
            task = TaskSpec(id='%s-%d' % (name, i), type='shell',
                            parameters={'cmd': command, 'timeout': 60})
            started = time.monotonic()
            result = run_task(target, task)
            elapsed = time.monotonic() - started
            with lock:
                latencies.append(elapsed)
                if not result.succeeded:
                    failures.append('%s: %s' % (target.node_name,
                                                result.reason))

    workers = workers or len(targets)
    cpu = time.process_time()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(node_work, targets))
    return Round(name, len(targets), len(latencies),
                 time.monotonic() - started, time.process_time() - cpu,
                 own_seconds, latencies, failures, workers)


def fleet_cpu_seconds(fleet: sshd.SSHNodes) -> float:
    """CPU the nodes' side used so far: every sshd, its connection
    processes and (through their reaped children) the tasks' shells."""
    stats = process.process_stats()
    pids = []
    for node in fleet:
        pids.append(node.process.pid)
        pids.extend(sshd.descendants(node.process.pid))
    # utime, stime, cutime, cstime
    ticks = sum(int(value) for pid in pids if pid in stats
                for value in stats[pid][11:15])
    return ticks / os.sysconf('SC_CLK_TCK')


def measured_round(fleet: sshd.SSHNodes, *args, **kwargs) -> Round:
    """:func:`measure_round` with the nodes' CPU for it."""
    before = fleet_cpu_seconds(fleet)
    result = measure_round(*args, **kwargs)
    result.node_cpu_seconds = fleet_cpu_seconds(fleet) - before
    return result


def rss_mib() -> float:
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return 0.0


def run(nodes: int, tasks: int, workers: int | None,
        max_concurrent_connects: int) -> dict:
    with tempfile.TemporaryDirectory(prefix='ssh-bench-') as base:
        started = time.monotonic()
        fleet = sshd.SSHNodes(base, nodes).start()
        start_seconds = time.monotonic() - started
        runner = SSHTaskRunner(
            max_concurrent_connects=max_concurrent_connects)
        try:
            rss_before = rss_mib()
            targets = fleet.targets()
            rounds = [
                measured_round(fleet, runner.run, targets, 1, 'true', 0.0,
                               'connect', workers),
                measured_round(fleet, runner.run, targets, tasks, 'true',
                               0.0, 'true', workers),
                measured_round(fleet, runner.run, targets, tasks,
                               'sleep 0.1', 0.1, 'sleep 0.1', workers),
                # Few at once: the overhead when the machine is not busy
                # forking shells for 200 nodes.
                measured_round(fleet, runner.run, targets, 1, 'sleep 0.1',
                               0.1, 'sleep 0.1, 8 at once', 8),
            ]
            rss_after = rss_mib()
            connections = runner.connections_opened
            reused = all(node.connections() == 1 for node in fleet)
        finally:
            runner.close()
            fleet.stop()
    return {
        'time': datetime.datetime.now(datetime.timezone.utc).isoformat(),
        'nodes': nodes, 'tasks_per_node': tasks,
        'workers': workers or nodes,
        'max_concurrent_connects': max_concurrent_connects,
        'cpus': os.cpu_count(), 'load_average': os.getloadavg(),
        'sshd_start_seconds': round(start_seconds, 2),
        'rounds': [r.summary() for r in rounds],
        'rss_mib_before': round(rss_before, 1),
        'rss_mib_after': round(rss_after, 1),
        'rss_mib_peak': round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        'connections_opened': connections,
        'one_connection_per_node': reused,
    }


def render(document: dict) -> str:
    lines = [
        '%d nodes (one sshd each, started in %.1fs), %d shell tasks per '
        'node, %d workers, %d CPUs, load %s'
        % (document['nodes'], document['sshd_start_seconds'],
           document['tasks_per_node'], document['workers'], document['cpus'],
           '/'.join('%.1f' % x for x in document['load_average'])),
        '',
        '%-21s %6s %8s %8s %8s %9s %9s %9s %6s' % (
            'round', 'tasks', 'tasks/s', 'p50 ms', 'p95 ms',
            'overhead', 'runner', 'nodes', 'failed'),
        '%-21s %6s %8s %8s %8s %9s %9s %9s %6s' % (
            '', '', '', '', '', 'p50 ms', 'CPU ms/t', 'CPU ms/t', ''),
    ]
    for r in document['rounds']:
        lines.append('%-21s %6d %8.1f %8.1f %8.1f %9.1f %9.2f %9.2f %6d' % (
            r['name'], r['tasks'], r['tasks_per_second'], r['p50_ms'],
            r['p95_ms'], r['overhead_p50_ms'], r['cpu_ms_per_task'],
            r['node_cpu_ms_per_task'] or 0, r['failed']))
    lines += [
        '',
        'overhead: p50 latency minus the task\'s own run time; runner '
        'CPU: this process; nodes CPU: the sshd processes and the tasks\' '
        'shells',
        'runner process RSS: %.0f MiB before, %.0f MiB after, %.0f MiB '
        'peak' % (document['rss_mib_before'], document['rss_mib_after'],
                  document['rss_mib_peak']),
        'SSH connections opened: %d (one per node: %s)'
        % (document['connections_opened'],
           document['one_connection_per_node']),
    ]
    return '\n'.join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=200)
    parser.add_argument('--tasks', type=int, default=10,
                        help='shell tasks per node and round')
    parser.add_argument('--workers', type=int, default=None,
                        help='worker threads (default: one per node)')
    parser.add_argument('--max-concurrent-connects', type=int, default=32)
    parser.add_argument('--output', type=Path, default=None)
    args = parser.parse_args(argv)
    document = run(args.nodes, args.tasks, args.workers,
                   args.max_concurrent_connects)
    print(render(document))
    output = args.output or RESULTS / ('ssh-tasks-%s.json' % datetime
                                       .datetime.now(datetime.timezone.utc)
                                       .strftime('%Y%m%dT%H%M%SZ'))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(document, indent=2))
    print('written to %s' % output)
    failed = sum(r['failed'] for r in document['rounds'])
    return 1 if failed or not document['one_connection_per_node'] else 0


if __name__ == '__main__':
    sys.exit(main())
