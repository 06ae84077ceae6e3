"""Prometheus metrics: every family a process counts, in one place.

The families live on prometheus_client's default registry. The
all-in-one's API process sums its conductor process's families into its
own ``/metrics`` (:func:`add_peer`), so the service has one page. The
rest of the code records an event with one call of a
function below; recording costs a lock and an addition and happens
whether or not metrics are served. Serving is ``[metrics]enabled``: the
API answers ``/metrics`` (:mod:`ironside.api.metrics`, which also adds
the families read from the database at scrape time), and each
``ironside-conductor`` serves its own on ``[metrics]conductor_port``
(:func:`serve_conductor`).

Label values come from bounded sets (route templates, provision states,
step names, RPC method names, exception class names), never node names
or UUIDs, so the number of series stays small on any site.
"""

from __future__ import annotations

import datetime
import functools
import logging
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import prometheus_client
from prometheus_client import Counter
from prometheus_client import Histogram
from prometheus_client.parser import text_string_to_metric_families

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.common.context import RequestContext

LOG = logging.getLogger(__name__)

# The *_created series double every counter and say nothing an alert
# needs.
prometheus_client.disable_created_metrics()

REGISTRY = prometheus_client.REGISTRY

# A deploy or clean step takes from milliseconds (fake hardware) to hours
# (a disk wipe).
STEP_BUCKETS = (0.01, 0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800,
                3600, 7200, float('inf'))
LOCK_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30,
                float('inf'))
PASS_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, float('inf'))

API_REQUESTS = Counter(
    'ironside_api_requests', 'API requests answered, by method, route '
    'template and status code.', ['method', 'route', 'status'])
API_DURATION = Histogram(
    'ironside_api_request_duration_seconds', 'Time the API took to answer '
    'a request, by method and route template.', ['method', 'route'])
PROVISION_TRANSITIONS = Counter(
    'ironside_provision_state_transitions', 'Provision state changes of '
    'nodes made by this process, by the state left and the state entered.',
    ['from_state', 'to_state'])
STEP_DURATION = Histogram(
    'ironside_step_duration_seconds', 'How long deploy and clean steps '
    'ran, by flow (deploy or clean), interface, step and outcome '
    '(success or failed).', ['flow', 'interface', 'step', 'outcome'],
    buckets=STEP_BUCKETS)
LOCK_WAIT = Histogram(
    'ironside_node_lock_wait_seconds', 'Time taken to get a node\'s '
    'exclusive lock, retries included.', buckets=LOCK_BUCKETS)
LOCK_CONFLICTS = Counter(
    'ironside_node_lock_conflicts', 'Attempts to lock a node that another '
    'task held: retried, or refused (NodeLocked given up).', ['result'])
RPC_CALLS = Counter(
    'ironside_rpc_calls', 'Conductor RPC calls made by this process, by '
    'method.', ['method'])
RPC_FAILURES = Counter(
    'ironside_rpc_failures', 'Conductor RPC calls that raised, by method '
    'and error class.', ['method', 'error'])
RPC_DURATION = Histogram(
    'ironside_rpc_call_duration_seconds', 'Time conductor RPC calls took, '
    'by method.', ['method'])
POWER_SYNC_DURATION = Histogram(
    'ironside_power_sync_duration_seconds', 'Time one power state sync '
    'pass of a conductor took.', buckets=PASS_BUCKETS)
POWER_SYNC_FAILURES = Counter(
    'ironside_power_sync_failures', 'Power state reads that failed during '
    'power state sync.')

DB_STATEMENTS = Counter(
    'ironside_db_statements', 'SQL statements this process sent to the '
    'database, by kind (select, insert, update, delete, other); an '
    'executemany counts once.', ['kind'])
_STATEMENT_KINDS = {kind: DB_STATEMENTS.labels(kind) for kind in
                    ('select', 'insert', 'update', 'delete', 'other')}

CONFLICT_RETRIED = 'retried'
CONFLICT_REFUSED = 'refused'


def api_request(method: str, route: str, status: int,
                seconds: float) -> None:
    API_REQUESTS.labels(method, route, str(status)).inc()
    API_DURATION.labels(method, route).observe(seconds)


def provision_transition(from_state: str | None, to_state: str) -> None:
    PROVISION_TRANSITIONS.labels(str(from_state), str(to_state)).inc()


def step_finished(flow: str, step: dict, outcome: str,
                  seconds: float | None = None,
                  since: datetime.datetime | None = None) -> None:
    """A step ended after ``seconds``, or since ``since`` (naive UTC,
    as the database stores times): for a step that went asynchronous,
    the time its node started waiting."""
    if seconds is None:
        if since is None:
            return
        now = datetime.datetime.now(datetime.timezone.utc).replace(
            tzinfo=None)
        seconds = max(0.0, (now - since).total_seconds())
    STEP_DURATION.labels(flow, str(step.get('interface')),
                         str(step.get('step')), outcome).observe(seconds)


def lock_acquired(seconds: float) -> None:
    LOCK_WAIT.observe(seconds)


def lock_conflict(refused: bool) -> None:
    LOCK_CONFLICTS.labels(CONFLICT_REFUSED if refused
                          else CONFLICT_RETRIED).inc()


def db_statement(statement: str) -> None:
    kind = statement[:6].lower()
    (_STATEMENT_KINDS.get(kind) or _STATEMENT_KINDS['other']).inc()


def power_sync_failed() -> None:
    POWER_SYNC_FAILURES.inc()


def timed_power_sync(func: Callable) -> Callable:
    """Decorate a power sync pass to observe how long each one takes."""
    @functools.wraps(func)
    def _timed(*args: Any, **kwargs: Any) -> Any:
        with POWER_SYNC_DURATION.time():
            return func(*args, **kwargs)
    return _timed


class CountedRpcClient:
    """An RPC client (oslo.messaging's or the in-process one) that counts
    and times its calls; ``prepare`` hands out counted clients too."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def prepare(self, **kwargs: Any) -> CountedRpcClient:
        return CountedRpcClient(self._client.prepare(**kwargs))

    def call(self, context: RequestContext, method: str, **kwargs: Any) -> Any:
        return self._counted(self._client.call, context, method, kwargs)

    def cast(self, context: RequestContext, method: str,
             **kwargs: Any) -> None:
        self._counted(self._client.cast, context, method, kwargs)

    @staticmethod
    def _counted(send: Callable, context: RequestContext, method: str,
                 kwargs: dict[str, Any]) -> Any:
        RPC_CALLS.labels(method).inc()
        started = time.monotonic()
        try:
            return send(context, method, **kwargs)
        except Exception as exc:
            RPC_FAILURES.labels(method, type(exc).__name__).inc()
            raise
        finally:
            RPC_DURATION.labels(method).observe(time.monotonic() - started)


# /metrics pages of other processes of the same service (the all-in-one's
# conductor process, read by its API process), summed into this one's.
_PEERS: list[str] = []


def add_peer(url: str) -> None:
    """Sum the metrics served at ``url`` into this process's page."""
    _PEERS.append(url)


def exposition() -> tuple[bytes, str]:
    """The registry in Prometheus' text format, and its content type;
    with the peers' families summed in (one service, one page)."""
    own = prometheus_client.generate_latest(REGISTRY)
    if not _PEERS:
        return own, prometheus_client.CONTENT_TYPE_LATEST
    texts = [own.decode()]
    for url in _PEERS:
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                texts.append(answer.read().decode())
        except OSError as exc:
            LOG.warning('Metrics of %s not read: %s', url, exc)
    return (prometheus_client.generate_latest(_Summed(texts)),
            prometheus_client.CONTENT_TYPE_LATEST)


class _Summed:
    """Families of several pages as one: samples of the same name and
    labels added up (counts, sums and histogram buckets add; so do the
    gauges of the service's processes)."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def collect(self) -> Any:
        families: dict[str, Any] = {}
        values: dict[str, dict[tuple, float]] = {}
        for text in self.texts:
            for family in text_string_to_metric_families(text):
                if family.name not in families:
                    families[family.name] = family
                    values[family.name] = {}
                found = values[family.name]
                for sample in family.samples:
                    key = (sample.name, tuple(sorted(sample.labels.items())))
                    found[key] = found.get(key, 0.0) + sample.value
        for name, family in families.items():
            summed = prometheus_client.Metric(name, family.documentation,
                                              family.type, family.unit)
            for (sample, labels), value in values[name].items():
                summed.add_sample(sample, dict(labels), value)
            yield summed


def serve_conductor() -> Any:
    """Serve /metrics on [metrics]conductor_host:conductor_port, if
    metrics are enabled; returns the HTTP server (or None)."""
    if not CONF.metrics.enabled:
        return None
    try:
        server, _thread = prometheus_client.start_http_server(
            CONF.metrics.conductor_port, addr=CONF.metrics.conductor_host,
            registry=REGISTRY)
    except OSError as exc:
        raise exception.ConfigInvalid(
            error_msg='cannot serve metrics on %s:%d: %s' % (
                CONF.metrics.conductor_host, CONF.metrics.conductor_port,
                exc.strerror or exc)) from None
    LOG.info('Conductor metrics on http://%s:%d/metrics',
             CONF.metrics.conductor_host, CONF.metrics.conductor_port)
    return server
