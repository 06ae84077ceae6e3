"""``GET /metrics`` of the API, its request metrics, and the families
read from the database at scrape time.

With ``[metrics]enabled`` the API counts and times every request it
answers, by route template (``/v1/nodes/{node_ident}``, never the node's
name) and status, and answers ``/metrics`` with the process's registry
(in the all-in-one, the conductor's families too). The database families
— nodes by provision state, nodes in maintenance by fault, site actions,
their groups and their nodes by state — are read by the API process
only, so several conductors never report the same nodes twice.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

import falcon
from prometheus_client.core import GaugeMetricFamily

from ironside.common import metrics
from ironside.common.conf import CONF
from ironside.db import counts
from ironside.db import site_models
from ironside.strategy import progress as site_progress

LOG = logging.getLogger(__name__)

PATH = '/metrics'
UNMATCHED = '(unmatched)'

_RUNNING_STATES = {'prepare': 'preparing', 'deploy': 'deploying'}

_collector_lock = threading.Lock()
_collector_registered = False


def register(app: falcon.App, rpcapi: object = None) -> None:
    """Serve /metrics and count requests, if metrics are enabled."""
    if not CONF.metrics.enabled:
        return
    app.add_middleware(RequestMetrics())
    app.add_route(PATH, MetricsResource())
    _register_collector()


def public_paths() -> tuple[str, ...]:
    """Paths that answer without authentication, as configured."""
    if CONF.metrics.enabled and CONF.metrics.api_unauthenticated:
        return (PATH,)
    return ()


def _register_collector() -> None:
    global _collector_registered
    with _collector_lock:
        if not _collector_registered:
            metrics.REGISTRY.register(DatabaseCollector())
            _collector_registered = True


class RequestMetrics:
    """Falcon middleware: each answer counted and timed by route."""

    def process_request(self, req: falcon.Request,
                        resp: falcon.Response) -> None:
        req.context.metrics_started = time.monotonic()

    def process_response(self, req: falcon.Request, resp: falcon.Response,
                         resource: object, req_succeeded: bool) -> None:
        started = getattr(req.context, 'metrics_started', None)
        if started is None:
            return
        metrics.api_request(req.method, req.uri_template or UNMATCHED,
                            resp.status_code, time.monotonic() - started)


class MetricsResource:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.data, resp.content_type = metrics.exposition()


def _group_state(group: dict) -> str:
    """A group of an unfinished action: pending, preparing, deploying,
    succeeded or failed."""
    if group['state'] == site_progress.DONE:
        return 'failed' if site_progress.group_failed(group) \
            else 'succeeded'
    if group['state'] == site_progress.PENDING:
        return 'pending'
    return _RUNNING_STATES.get(group['state'], 'running')


def _result_class(result: str | None) -> str:
    if result is None:
        return 'none'
    if result == site_progress.ACTION_SUCCESS:
        return 'success'
    if result == site_progress.ACTION_PARTIAL:
        return 'partial'
    if result == site_models.ABORTED:
        return 'aborted'
    return 'failed'


class DatabaseCollector:
    """Families counted in the database when Prometheus scrapes."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily(
            'ironside_database_up', 'Whether the last scrape could read '
            'the database (1) or not (0).')
        try:
            families = self._families()
        except Exception as exc:
            LOG.warning('Metrics could not read the database: %s', exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    def _families(self) -> list[GaugeMetricFamily]:
        nodes = GaugeMetricFamily(
            'ironside_nodes', 'Nodes by provision state.',
            labels=['provision_state'])
        for state, count in sorted(counts.nodes_by_provision_state().items(),
                                   key=lambda item: str(item[0])):
            nodes.add_metric([str(state)], count)
        maintenance = GaugeMetricFamily(
            'ironside_nodes_maintenance', 'Nodes in maintenance, by fault '
            '("none" when set by hand).', labels=['fault'])
        for fault, count in sorted(counts.maintenance_by_fault().items(),
                                   key=lambda item: str(item[0])):
            maintenance.add_metric([fault or 'none'], count)
        actions = GaugeMetricFamily(
            'ironside_site_actions', 'Site actions by state (queued, '
            'running, aborting, finished, aborted) and result (none, '
            'success, partial, failed, aborted).', labels=['state', 'result'])
        by_state: dict[tuple[str, str], int] = {}
        for state, result, count in counts.site_actions_by_state():
            key = (state, _result_class(result))
            by_state[key] = by_state.get(key, 0) + count
        for key, count in sorted(by_state.items()):
            actions.add_metric(list(key), count)
        groups = GaugeMetricFamily(
            'ironside_site_groups', 'Groups of queued and running site '
            'actions by state (pending, preparing, deploying, running, '
            'succeeded, failed).', labels=['state'])
        group_states = dict.fromkeys(
            ('pending', 'preparing', 'deploying', 'running', 'succeeded',
             'failed'), 0)
        for progress in counts.unfinished_progress():
            for group in (progress or {}).get('groups', {}).values():
                state = _group_state(group)
                group_states[state] = group_states.get(state, 0) + 1
        for state, count in group_states.items():
            groups.add_metric([state], count)
        action_nodes = GaugeMetricFamily(
            'ironside_site_action_nodes', 'Nodes of queued and running site '
            'actions by status (not started, prepared, success, failure) '
            'and whether they are in flight.', labels=['status', 'in_flight'])
        for status, in_flight, count in counts.unfinished_action_nodes():
            action_nodes.add_metric([status, str(in_flight).lower()], count)
        return [nodes, maintenance, actions, groups, action_nodes]
