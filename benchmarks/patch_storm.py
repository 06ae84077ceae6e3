"""A PATCH storm on one node (and one over 100 nodes): nothing
acknowledged is lost, and the other nodes answer as fast as before.

    python -m benchmarks.patch_storm [--requests 1000] [--threads 32]

Issue 17 found concurrent PATCHes losing acknowledged changes (834 of
1,000 answered 200, 11 kept). The all-in-one ``ironside`` runs on SQLite
with fake hardware; the storm is ``add /extra/k<i>`` PATCHes mixed with
power verbs, sent by ``--threads`` clients at once, while one more client
PATCHes a node outside the storm, one request after another. Printed:
the answers by status, how many acknowledged changes are missing (must be
0), and the p50/p95 of a PATCH on the other node, idle and during each
storm.
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

HEADERS = {'X-OpenStack-Ironic-API-Version': '1.115'}


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return 'p50 %.1f ms, p95 %.1f ms (%d requests)' % (
        statistics.median(ordered) * 1000, p95 * 1000, len(ordered))


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--requests', type=int, default=1000)
    parser.add_argument('--threads', type=int, default=32)
    args = parser.parse_args()
    with servers.make_server('ironside') as server:
        base = server.base_url
        names = ['storm-%d' % i for i in range(100)] + ['other']
        for name in names:
            answer = requests.post(base + '/v1/nodes', headers=HEADERS,
                                   json={'driver': 'fake-hardware',
                                         'name': name}, timeout=60)
            answer.raise_for_status()
        print('ironside %s, SQLite, %d requests by %d clients'
              % (server.version(), args.requests, args.threads))
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


if __name__ == '__main__':
    main()
