"""What the benchmark does to a server, the same for every server.

1. Enroll N fake-hardware nodes through ``POST /v1/nodes`` (W workers).
2. Drive every node through four phases, each phase a barrier: W workers
   take nodes one at a time, send the provision verb, then poll
   ``GET /v1/nodes/{uuid}?fields=provision_state,...`` (see PollSchedule)
   until the node settles in the phase's target:

   ====================  =========  ==============================
   phase                 verb       settles in
   ====================  =========  ==============================
   manage                manage     manageable
   provide               provide    available (automated cleaning)
   deploy                active     active
   undeploy              deleted    available (automated cleaning)
   ====================  =========  ==============================

   A phase's throughput is N / its wall time. A node that fails a phase is
   counted and left out of the later phases.
3. Time the reads Nova and operators make, one client, one request at a
   time: node list (plain, ``detail``, Nova's fields; every page followed
   through ``next``), node show (plain and Nova's fields, a random node each
   time), and Nova's instance lookup (``?instance_uuid=``).
"""

from __future__ import annotations

import random
import statistics
import threading
import time
import uuid
from concurrent import futures
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from typing import Callable
from typing import Iterator

from benchmarks.client import NOVA_FIELDS
from benchmarks.client import STATE_FIELDS
from benchmarks.client import Api
from benchmarks.client import ApiError
from benchmarks.servers import Server

PHASES = (('manage', 'manage', 'manageable'),
          ('provide', 'provide', 'available'),
          ('deploy', 'active', 'active'),
          ('undeploy', 'deleted', 'available'))

# Answers that mean "busy, ask again": node locked, conductor saturated.
RETRY_STATUSES = (409, 503)

# How many nodes get an instance_uuid for the instance-lookup timing.
LOOKUP_NODES = 20


def summarize(samples: list[float]) -> dict[str, float]:
    """Percentiles of samples (seconds) in milliseconds."""
    if not samples:
        return {'count': 0}
    ordered = sorted(samples)

    def pct(p: float) -> float:
        # Linear interpolation between closest ranks.
        rank = (len(ordered) - 1) * p
        low = int(rank)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)

    return {'count': len(ordered),
            'p50': pct(0.50) * 1000, 'p90': pct(0.90) * 1000,
            'p95': pct(0.95) * 1000,
            'p99': pct(0.99) * 1000, 'mean': statistics.fmean(ordered) * 1000,
            'max': ordered[-1] * 1000}


@dataclass
class PhaseResult:
    name: str
    nodes: int
    seconds: float
    server_cpu_seconds: float
    client_cpu_seconds: float
    node_latency_ms: dict[str, float]
    requests: int = 0
    retries: int = 0
    failures: list[str] = field(default_factory=list)
    # SQL statements the server sent during the phase (None: not known,
    # as for Ironic, which exports no such count).
    sql_statements: float | None = None
    # The node list polls of a burst phase.
    poll_latency_ms: dict[str, float] | None = None
    # CPU of the PostgreSQL backends serving the server (split shapes).
    database_cpu_seconds: float | None = None

    @property
    def rate(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict:
        data = asdict(self)
        data['nodes_per_second'] = self.rate
        data['sql_per_node'] = (
            round(self.sql_statements / self.nodes, 1)
            if self.sql_statements is not None and self.nodes else None)
        return data


class NodeFailed(Exception):
    pass


@dataclass(frozen=True)
class PollSchedule:
    """When a client looks at a node again, the same for every server.

    The first poll goes out as soon as the verb is accepted; the waits
    before the next ones start at ``first`` seconds and grow by ``factor``
    up to ``longest``. A fast server is seen done within about half its
    own latency, and a slow one is not flooded with polls. ``first ==
    longest`` is a fixed interval.
    """

    first: float = 0.01
    longest: float = 0.5
    factor: float = 1.5

    def waits(self) -> Iterator[float]:
        wait = self.first
        while True:
            yield wait
            wait = min(wait * self.factor, self.longest)


class Workload:
    def __init__(self, api: Api, server: Server, workers: int = 8,
                 poll: PollSchedule | None = None,
                 node_timeout: float = 600.0,
                 log: Callable[[str], None] = lambda text: None) -> None:
        self.api = api
        self.log = log
        self.server = server
        self.workers = workers
        self.poll = poll or PollSchedule()
        self.node_timeout = node_timeout
        self._lock = threading.Lock()
        self._requests = 0
        self._retries = 0

    def _count(self, requests: int, retries: int = 0) -> None:
        with self._lock:
            self._requests += requests
            self._retries += retries

    def _run_phase(self, name: str, items: list,
                   one: Callable[[object], str]) -> tuple[PhaseResult,
                                                          list[str]]:
        """Run one(item) for every item on the workers; a barrier at the
        end. Returns the result and what one() returned for the items
        that succeeded."""
        self._requests = self._retries = 0
        latencies: list[float] = []
        done: list[str] = []
        failures: list[str] = []

        def timed(item):
            started = time.perf_counter()
            outcome = one(item)
            return outcome, time.perf_counter() - started

        meter = self._start_meter()
        step = max(len(items) // 4, 1)
        with futures.ThreadPoolExecutor(self.workers) as pool:
            jobs = [pool.submit(timed, item) for item in items]
            for index, job in enumerate(jobs, 1):
                if len(items) >= 1000 and index % step == 0:
                    self.log('%s: %d/%d' % (name, index, len(items)))
                try:
                    outcome, seconds = job.result()
                except (NodeFailed, ApiError) as exc:
                    failures.append(str(exc))
                    continue
                done.append(outcome)
                latencies.append(seconds)
        return self._result(name, meter, done, failures, latencies), done

    def _start_meter(self) -> tuple[float | None, float, float, float]:
        """What a phase's figures are measured from: the server's SQL
        statements and CPU, the client's CPU, the clock."""
        return (self.server.sql_statements(), self.server.cpu_seconds(),
                time.process_time(), time.perf_counter(),
                self.server.database_cpu_seconds())

    def _result(self, name: str, meter: tuple, done: list[str],
                failures: list[str], latencies: list[float],
                **more: object) -> PhaseResult:
        sql_before, cpu_before, client_cpu_before, started, db_before = \
            meter
        sql_after = self.server.sql_statements()
        db_after = self.server.database_cpu_seconds()
        result = PhaseResult(
            name=name, nodes=len(done),
            seconds=time.perf_counter() - started,
            server_cpu_seconds=self.server.cpu_seconds() - cpu_before,
            client_cpu_seconds=time.process_time() - client_cpu_before,
            node_latency_ms=summarize(latencies), requests=self._requests,
            retries=self._retries, failures=failures[:10],
            sql_statements=(None if sql_before is None or sql_after is None
                            else sql_after - sql_before),
            database_cpu_seconds=(None if db_before is None or
                                  db_after is None
                                  else db_after - db_before),
            **more)
        if failures:
            result.failures.insert(0, '%d nodes failed' % len(failures))
        return result

    def enroll(self, count: int) -> tuple[PhaseResult, list[str]]:
        def create(index: int) -> str:
            node = self.api.call('POST', '/v1/nodes', body={
                'driver': 'fake-hardware',
                'name': 'bench-%05d' % index,
                'resource_class': 'baremetal',
                'properties': {'cpus': 8, 'memory_mb': 32768,
                               'local_gb': 100, 'cpu_arch': 'x86_64'},
            }, expect=(201,))
            self._count(1)
            return node['uuid']

        return self._run_phase('enroll', list(range(count)), create)

    def _drive(self, node_uuid: str, verb: str, target: str) -> str:
        """Send verb to the node and wait until it settles in target."""
        deadline = time.monotonic() + self.node_timeout
        path = '/v1/nodes/%s' % node_uuid
        self._send(node_uuid, verb)
        requests = 0
        waits = self.poll.waits()
        try:
            while True:
                requests += 1
                node = self.api.call('GET', path,
                                     params={'fields': STATE_FIELDS})
                state = node['provision_state']
                if state == target and not node['target_provision_state']:
                    return node_uuid
                if state.endswith('failed') or state == 'error' or (
                        not node['target_provision_state']
                        and state != target):
                    raise NodeFailed('node %s: %s ended in %r: %s' % (
                        node_uuid, verb, state, node['last_error']))
                if time.monotonic() > deadline:
                    raise NodeFailed('node %s: %s still in %r after %ds' % (
                        node_uuid, verb, state, self.node_timeout))
                time.sleep(next(waits))
        finally:
            self._count(requests)

    def provision(self, uuids: list[str]) -> list[PhaseResult]:
        """The serial workload: each worker drives one node at a time."""
        results = []
        for name, verb, target in PHASES:
            result, uuids = self._run_phase(
                name, uuids,
                lambda node_uuid, v=verb, t=target: self._drive(node_uuid,
                                                                v, t))
            results.append(result)
        return results

    def provision_burst(self, uuids: list[str]) -> list[PhaseResult]:
        """The burst workload: in each phase the workers send every
        node's verb as fast as the server takes them, while one client
        polls the node list until every node has settled."""
        results = []
        for name, verb, target in PHASES:
            result, uuids = self._burst_phase(name, verb, target, uuids)
            results.append(result)
        return results

    def _send(self, node_uuid: str, verb: str) -> None:
        """The verb, asked again while the server answers busy."""
        deadline = time.monotonic() + self.node_timeout
        path = '/v1/nodes/%s/states/provision' % node_uuid
        waits = self.poll.waits()
        requests = retries = 0
        try:
            while True:
                requests += 1
                response = self.api.request('PUT', path,
                                            body={'target': verb})
                if response.status == 202:
                    return
                if (response.status not in RETRY_STATUSES
                        or time.monotonic() > deadline):
                    raise ApiError('PUT', path, response.status,
                                   response.body.decode(errors='replace'))
                retries += 1
                time.sleep(next(waits))
        finally:
            self._count(requests, retries)

    def _burst_phase(self, name: str, verb: str, target: str,
                     uuids: list[str]) -> tuple[PhaseResult, list[str]]:
        self._requests = self._retries = 0
        pending = set(uuids)
        done: list[str] = []
        failures: list[str] = []
        latencies: list[float] = []
        polls: list[float] = []

        def timed_send(node_uuid: str) -> float:
            started = time.perf_counter()
            self._send(node_uuid, verb)
            return time.perf_counter() - started

        meter = self._start_meter()
        deadline = time.monotonic() + self.node_timeout
        with futures.ThreadPoolExecutor(self.workers) as pool:
            jobs = {pool.submit(timed_send, node): node for node in uuids}
            waits = self.poll.waits()
            while pending:
                for job in [job for job in jobs if job.done()]:
                    node = jobs.pop(job)
                    try:
                        latencies.append(job.result())
                    except ApiError as exc:
                        failures.append(str(exc))
                        pending.discard(node)
                nodes, seconds, pages = self.api.list_all(
                    '/v1/nodes', {'fields': 'uuid,' + STATE_FIELDS})
                polls.append(seconds)
                self._count(pages)
                for node in nodes:
                    if node['uuid'] not in pending:
                        continue
                    state = node['provision_state']
                    if state == target and not node['target_provision_state']:
                        pending.discard(node['uuid'])
                        done.append(node['uuid'])
                    elif state.endswith('failed') or state == 'error':
                        pending.discard(node['uuid'])
                        failures.append('node %s: %s ended in %r: %s' % (
                            node['uuid'], verb, state, node['last_error']))
                if pending and time.monotonic() > deadline:
                    failures.append('%d nodes not %s after %ds' % (
                        len(pending), target, self.node_timeout))
                    break
                if pending:
                    time.sleep(next(waits))
        result = self._result(name, meter, done, failures, latencies,
                              poll_latency_ms=summarize(polls))
        self.log('%s: %d nodes in %.1f s' % (name, len(done),
                                              result.seconds))
        return result, done

    def latencies(self, uuids: list[str], budget: float,
                  min_iterations: int = 5) -> dict[str, dict]:
        """Time the reads, each for about budget seconds."""
        expected = len(uuids)
        nova = ','.join(NOVA_FIELDS)
        instances = self._assign_instances(uuids)

        def listing(path: str, params: dict[str, str] | None = None):
            def run() -> float:
                nodes, seconds, _ = self.api.list_all(path, params)
                if len(nodes) != expected:
                    raise AssertionError('%s listed %d nodes, not %d' % (
                        path, len(nodes), expected))
                return seconds
            return run

        def show(params: dict[str, str] | None = None):
            def run() -> float:
                path = '/v1/nodes/%s' % random.choice(uuids)
                response = self.api.request('GET', path, params)
                if response.status != 200:
                    raise ApiError('GET', path, response.status,
                                   response.body.decode(errors='replace'))
                return response.seconds
            return run

        def lookup() -> float:
            instance = random.choice(instances)
            nodes, seconds, _ = self.api.list_all(
                '/v1/nodes', {'instance_uuid': instance, 'fields': nova})
            if len(nodes) != 1:
                raise AssertionError('instance lookup found %d nodes'
                                     % len(nodes))
            return seconds

        plans = {
            'list': (listing('/v1/nodes'), 200),
            'list_detail': (listing('/v1/nodes/detail'), 200),
            'list_nova_fields': (listing('/v1/nodes', {'fields': nova}),
                                 200),
            'show': (show(), 2000),
            'show_nova_fields': (show({'fields': nova}), 2000),
            'instance_lookup': (lookup, 2000),
        }
        results = {}
        for name, (run, max_iterations) in plans.items():
            results[name] = summarize(self._repeat(
                run, budget, min_iterations, max_iterations))
        return results

    @staticmethod
    def _repeat(run: Callable[[], float], budget: float,
                min_iterations: int, max_iterations: int) -> list[float]:
        run()  # warm caches and connections; not counted
        samples = []
        started = time.monotonic()
        while len(samples) < max_iterations and (
                len(samples) < min_iterations
                or time.monotonic() - started < budget):
            samples.append(run())
        return samples

    def _assign_instances(self, uuids: list[str]) -> list[str]:
        """Give a few nodes an instance_uuid, as Nova does before deploy,
        so the instance lookup has something to find."""
        instances = []
        for node_uuid in uuids[:LOOKUP_NODES]:
            instance = str(uuid.uuid4())
            self.api.call('PATCH', '/v1/nodes/%s' % node_uuid, body=[
                {'op': 'add', 'path': '/instance_uuid', 'value': instance}])
            instances.append(instance)
        return instances
