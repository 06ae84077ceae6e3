"""A PATCH storm on one node (and one over 100 nodes): nothing
acknowledged is lost, and the other nodes answer as fast as before.

    python -m benchmarks.patch_storm [--requests 1000] [--threads 32]
        [--clients 1000] [--split]

First, issue 26's storm: ``--requests`` PATCHes of distinct keys
(``add /extra/k<i>``) of one idle node, from ``--clients`` clients at
once. Printed: the answers by status, how many are not 200, how many
acknowledged keys are missing, and the p50/p99 of the answers. Every
one should be 200 (issue 26 found 376 of 1,000 refused with 409, p50
8.1 s).

Issue 17 found concurrent PATCHes losing acknowledged changes (834 of
1,000 answered 200, 11 kept). The all-in-one ``ironside`` runs on SQLite
with fake hardware; the storm is ``add /extra/k<i>`` PATCHes mixed with
power verbs, sent by ``--threads`` clients at once, while one more client
PATCHes a node outside the storm, one request after another. Printed:
the answers by status, how many acknowledged changes are missing (must be
0), and the p50/p95 of a PATCH on the other node, idle and during each
storm.

With ``--split``, the server is ``ironside-api`` and one
``ironside-conductor`` over RabbitMQ and PostgreSQL
(:mod:`benchmarks.split_servers`) instead of the all-in-one on SQLite.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import statistics
import threading
import time

import requests

from benchmarks import servers
from benchmarks import split_servers

HEADERS = {'X-OpenStack-Ironic-API-Version': '1.115'}


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return 'p50 %.1f ms, p95 %.1f ms (%d requests)' % (
        statistics.median(ordered) * 1000, p95 * 1000, len(ordered))


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _distinct_keys(base: str, node: str, count: int, clients: int) -> None:
    """``count`` PATCHes of distinct keys of one idle node, ``clients``
    at once: answers, non-200s, lost keys, p50/p99."""
    local = threading.local()
    start = threading.Barrier(min(clients, count))

    def one(i: int) -> tuple[int, float]:
        session = getattr(local, 'session', None)
        if session is None:
            session = local.session = requests.Session()
            start.wait()
        began = time.perf_counter()
        status = _patch(session, base, node, 'd%d' % i).status_code
        return status, time.perf_counter() - began

    began = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(one, range(count)))
    wall = time.perf_counter() - began
    statuses = collections.Counter(status for status, _ in results)
    extra = requests.get('%s/v1/nodes/%s' % (base, node), headers=HEADERS,
                         timeout=60).json()['extra']
    lost = sum(1 for i, (status, _) in enumerate(results)
               if status == 200 and 'd%d' % i not in extra)
    took = sorted(seconds for _, seconds in results)
    print('%d PATCHes of distinct keys of one idle node, %d clients at '
          'once: answers %s; not 200: %d; acknowledged but lost: %d; '
          'p50 %.0f ms, p99 %.0f ms; %.1f s in all'
          % (count, clients, dict(sorted(statuses.items())),
             count - statuses[200], lost, statistics.median(took) * 1000,
             _quantile(took, 0.99) * 1000, wall))


def _patch(session, base, node, key):
    return session.patch('%s/v1/nodes/%s' % (base, node), headers=HEADERS,
                         json=[{'op': 'add', 'path': '/extra/%s' % key,
                                'value': 1}], timeout=120)


def _timed_patches(base: str, node: str, stop: threading.Event,
                   count: int | None = None) -> list[float]:
    session = requests.Session()
    took, index = [], 0
    while not stop.is_set() and (count is None or index < count):
        began = time.perf_counter()
        answer = _patch(session, base, node, 'probe%d' % (index % 5))
        took.append(time.perf_counter() - began)
        assert answer.status_code == 200, answer.text
        index += 1
    return took


def _storm(base: str, targets: list[str], requests_count: int,
           threads: int) -> tuple[collections.Counter, int, list[float]]:
    """The storm, the missing acknowledged keys, and the probe's times."""
    local = threading.local()

    def one(i: int) -> tuple[str, str, int]:
        session = getattr(local, 'session', None)
        if session is None:
            session = local.session = requests.Session()
        node = targets[i % len(targets)]
        if i % 10 == 9:
            answer = session.put(
                '%s/v1/nodes/%s/states/power' % (base, node),
                headers=HEADERS, json={'target': 'power on'}, timeout=120)
            return node, '', answer.status_code
        key = 'k%d' % i
        return node, key, _patch(session, base, node, key).status_code

    stop = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(1) as probe_pool:
        probe = probe_pool.submit(_timed_patches, base, 'other', stop)
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            results = list(pool.map(one, range(requests_count)))
        stop.set()
        probe_times = probe.result()
    statuses = collections.Counter(status for _, _, status in results)
    extras = {node: requests.get('%s/v1/nodes/%s' % (base, node),
                                 headers=HEADERS, timeout=60).json()['extra']
              for node in targets}
    missing = sum(1 for node, key, status in results
                  if key and status == 200 and key not in extras[node])
    return statuses, missing, probe_times


def _run(base: str, args: argparse.Namespace) -> None:
    names = ['storm-%d' % i for i in range(100)] + ['other', 'edited']
    for name in names:
        answer = requests.post(base + '/v1/nodes', headers=HEADERS,
                               json={'driver': 'fake-hardware',
                                     'name': name}, timeout=60)
        answer.raise_for_status()
    names.remove('edited')
    _distinct_keys(base, 'edited', args.requests, args.clients)
    print('%d requests by %d clients' % (args.requests, args.threads))
    idle = _timed_patches(base, 'other', threading.Event(), count=200)
    print('PATCH on another node, idle:          %s'
          % _percentiles(idle))
    for label, targets in (('one node', names[:1]),
                           ('100 nodes', names[:100])):
        statuses, missing, probe = _storm(base, targets, args.requests,
                                          args.threads)
        print('storm on %-9s answers %s; acknowledged but lost: %d'
              % (label, dict(sorted(statuses.items())), missing))
        print('PATCH on another node, during it:    %s'
              % _percentiles(probe))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--requests', type=int, default=1000)
    parser.add_argument('--threads', type=int, default=32)
    parser.add_argument('--clients', type=int, default=1000,
                        help='clients at once of the distinct-keys storm')
    parser.add_argument('--split', action='store_true',
                        help='ironside-api and a conductor over RabbitMQ '
                             'and PostgreSQL')
    args = parser.parse_args()
    if args.split:
        with split_servers.Deployment(1, {}) as deployment:
            print('ironside-api and 1 conductor, RabbitMQ, PostgreSQL')
            _run(deployment.base_url, args)
        return
    with servers.make_server('ironside') as server:
        print('ironside %s, SQLite' % server.version())
        _run(server.base_url, args)


if __name__ == '__main__':
    main()
