"""Fault tests: the API and three conductors over a RabbitMQ node and a
PostgreSQL cluster of the test's own, 200 fake-hardware nodes deployed
through the API while the broker stops, the database restarts, a
conductor is killed or a BMC falls silent.

Each test gets one deployment (``faulty``) on a virtual host and a
database of its own; the module's tests share the RabbitMQ node and the
PostgreSQL cluster (``fault_services``), and the machine's own services
are never touched.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import pathlib
import tempfile
import threading
import time
import types
import urllib.error
import urllib.request
import uuid as uuidlib
from collections.abc import Iterator

import pytest
from cheroot import wsgi

from ironside.api import app as api_app
from ironside.api import site as site_api_module
from ironside.common import states
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from tests import utils
from tests.functional import conftest as functional_conftest
from tests.functional import test_site_split
from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import private_services
from tests.functional.fixtures import services

NODE_COUNT = 200
CONDUCTORS = ('fault-conductor-1', 'fault-conductor-2', 'fault-conductor-3')
# The bound: every fault is over, and every node settled, within.
RECOVERY_LIMIT = 70
# Seconds a process may take to start on a loaded CI machine.
STARTUP = 120
# Where a node rests after the fault: deployed, failed, or (a node whose
# verification failed, the silent BMC's) back in enroll.
SETTLED = (states.ACTIVE, states.DEPLOYFAIL, states.ENROLL)


@dataclasses.dataclass
class FaultyDeployment:
    """The deployment under test and the private services below it."""

    split: functional_conftest.SplitDeployment
    api: ironside_process.SplitApi
    rabbit: private_services.PrivateRabbitMQ
    postgres: private_services.PrivatePostgreSQL
    uuids: list[str] = dataclasses.field(default_factory=list)
    answers: list[int] = dataclasses.field(default_factory=list)

    def enroll_available(self, count: int = NODE_COUNT) -> list[str]:
        """Fake-hardware nodes, written straight into ``available``: the
        faults hit the deploy, not the enrolment."""
        for index in range(count):
            values = utils.fake_node_values(
                uuid=str(uuidlib.uuid4()), name='fault-node-%03d' % index,
                provision_state=states.AVAILABLE,
                power_state=states.POWER_OFF)
            self.uuids.append(nodes_db.create_node(values).uuid)
        return self.uuids

    def request(self, method: str, path: str, body=None,
                deadline: float = 120) -> int:
        """An API call as a patient client makes it: 503 and refused
        connections are tried again (after ``Retry-After``) until the
        deadline; anything else is the answer. Every status is kept."""
        end = time.monotonic() + deadline
        while True:
            try:
                status, _ = self.api.api(method, path, body)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                status = 0
            self.answers.append(status)
            if status not in (0, 503) or time.monotonic() > end:
                return status
            time.sleep(0.5)

    def ask_once(self, method: str, path: str) -> int:
        """One API call; 0 when no answer came within 30 s."""
        try:
            return self.api.api(method, path)[0]
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return 0

    def deploy_all(self, uuids=None) -> concurrent.futures.Future:
        """Ask for every node to be deployed, eight requests at a time, in
        the background; the future holds the final status per node."""
        uuids = list(uuids or self.uuids)
        pool = concurrent.futures.ThreadPoolExecutor(8)

        def _deploy(uuid):
            return uuid, self.request(
                'PUT', '/v1/nodes/%s/states/provision' % uuid,
                {'target': 'active'})

        def _all():
            try:
                return dict(pool.map(_deploy, uuids))
            finally:
                pool.shutdown(wait=False)

        runner = concurrent.futures.ThreadPoolExecutor(1)
        future = runner.submit(_all)
        runner.shutdown(wait=False)
        return future

    def nodes(self) -> list:
        return nodes_db.select_node_columns(
            ('uuid', 'name', 'provision_state', 'reservation', 'last_error',
             'failure_reason'))

    def progress(self) -> int:
        """Nodes that left ``available``; 0 while the database is away."""
        try:
            return sum(1 for n in self.nodes()
                       if n.provision_state != states.AVAILABLE)
        except Exception:
            return 0

    def settled(self, uuids=None) -> bool:
        """Every node active or failed, none locked; False while the
        database cannot be read."""
        wanted = set(uuids or self.uuids)
        try:
            rows = [n for n in self.nodes() if n.uuid in wanted]
        except Exception:
            return False
        return len(rows) == len(wanted) and all(
            n.provision_state in SETTLED and n.reservation is None
            for n in rows)

    def wait_settled(self, since: float, uuids=None,
                     timeout: float = RECOVERY_LIMIT + 50) -> float:
        """Seconds from ``since`` until every node settled; None if they
        did not within ``timeout``."""
        try:
            utils.wait_for(lambda: self.settled(uuids), timeout=timeout,
                           interval=0.25, what='every node to settle')
        except AssertionError:
            return None
        return time.monotonic() - since

    def deploy_counts(self, uuid: str) -> dict[str, int]:
        """How often each deploy step of a node finished within one
        deploy (the most of any deploy), from the records the conductor
        kept in the node's history. A deploy asked for again, as a
        client does after a 503 whose call had failed the node, counts
        afresh from its "Deploy requested"."""
        node = nodes_db.get_node(uuid)
        deploys: list[dict[str, int]] = [{}]
        for record in history_db.list_for_node(node.id):
            if record.event.startswith(('Deploy requested',
                                        'Rebuild requested')):
                deploys.append({})
                continue
            if record.event.startswith('Deploy step ') and (
                    ' finished' in record.event):
                step = record.event.split()[2]
            elif record.event == 'Deploy finished':
                step = 'deploy'
            else:
                continue
            deploys[-1][step] = deploys[-1].get(step, 0) + 1
        return {step: max(counts.get(step, 0) for counts in deploys)
                for step in set().union(*deploys)}

    def check_outcome(self, allowed_failure, uuids=None
                      ) -> tuple[dict[str, int], list[str]]:
        """What the issue asks after every fault: each node active, or
        failed with a reason ``allowed_failure(node)`` accepts as true;
        no lock held; no node deployed twice; no 5xx but 503. Returns the
        count of nodes per final state, and the problems found."""
        wanted = set(uuids or self.uuids)
        rows = [n for n in self.nodes() if n.uuid in wanted]
        by_state: dict[str, int] = {}
        problems = []
        for node in rows:
            by_state[node.provision_state] = by_state.get(
                node.provision_state, 0) + 1
            if node.provision_state not in SETTLED:
                problems.append('%s still %s' % (node.name,
                                                 node.provision_state))
            if node.reservation:
                problems.append('%s still locked by %s' % (
                    node.name, node.reservation))
            if node.provision_state == states.DEPLOYFAIL and not (
                    node.last_error and allowed_failure(node)):
                problems.append('%s failed for a reason that is not the '
                                'fault: %s / %s' % (
                                    node.name, node.failure_reason,
                                    node.last_error))
            twice = {step: count for step, count in
                     self.deploy_counts(node.uuid).items() if count > 1}
            if twice:
                problems.append('%s deployed twice: %s' % (node.name, twice))
        errors = sorted({s for s in self.answers if s >= 500 and s != 503})
        if errors:
            problems.append('the API answered %s (%d times)' % (
                errors, sum(1 for s in self.answers if s in errors)))
        return by_state, problems


def report(request, scenario: str, recovery: float | None,
           by_state: dict) -> None:
    """Keep the recovery time where the terminal summary (and CI's log)
    shows it, from any xdist worker."""
    took = ('recovered in %.1fs' % recovery if recovery is not None
            else 'did not recover within %ds' % (RECOVERY_LIMIT + 50))
    request.node.user_properties.append(
        ('recovery', '%s: %s (%s)' % (scenario, took, ', '.join(
            '%d %s' % (v, k) for k, v in sorted(by_state.items())))))


@dataclasses.dataclass
class PrivateServices:
    """A RabbitMQ node and a PostgreSQL cluster of the module's own."""

    rabbit: private_services.PrivateRabbitMQ
    postgres: private_services.PrivatePostgreSQL

    def running(self) -> PrivateServices:
        """Both serving again, whatever the last test did to them."""
        if not self.rabbit.running:
            self.rabbit.start()
        if not self.postgres.running:
            self.postgres.start()
        return self


@pytest.fixture(scope='module')
def fault_services() -> Iterator[PrivateServices]:
    """Started once for a module's tests (a RabbitMQ node takes 10-20 s
    to start on a loaded machine): each test gets a virtual host and a
    database of its own on them, and finds them running."""
    ok, why = private_services.available()
    services.require(ok, why)
    rabbit = private_services.PrivateRabbitMQ(
        pathlib.Path(tempfile.mkdtemp(prefix='ironside-rmq-')))
    postgres = private_services.PrivatePostgreSQL(
        pathlib.Path(tempfile.mkdtemp(prefix='ironside-pg-')))
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            started = [pool.submit(rabbit.start),
                       pool.submit(lambda: postgres.init().start())]
            for future in started:
                future.result()
        yield PrivateServices(rabbit, postgres)
    finally:
        rabbit.close()
        postgres.close()


@pytest.fixture
def faulty(tmp_path, conf, fault_services) -> Iterator[FaultyDeployment]:
    stack = fault_services.running()
    name = 'ironside_%s' % uuidlib.uuid4().hex[:10]
    database = types.SimpleNamespace(
        url=stack.postgres.create_database(name), drop=lambda: None)
    deployment = functional_conftest._split(
        'postgresql', tmp_path, conf, database,
        services.unique_exchange(), stack.rabbit.vhost_url(name))
    split = next(deployment)
    try:
        split.sections['DEFAULT']['enabled_hardware_types'] = \
            'fake-hardware,ipmi'
        split.sections['conductor'].update(
            sync_power_state_interval=0,
            check_provision_state_interval=2,
            deploy_callback_timeout=60)
        split.sections['site'] = {'action_check_interval': 0.2,
                                  'node_poll_interval': 0.2}
        split.sections['ipmi'] = {
            'power_poll_interval': 0.1, 'retry_interval': 0.2,
            'command_retry_timeout': 5, 'validate_timeout': 2}
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            for future in [
                    pool.submit(split.start_conductor, host, STARTUP)
                    for host in CONDUCTORS]:
                future.result()
        api = split.start_api()
        yield FaultyDeployment(split, api, stack.rabbit, stack.postgres)
    finally:
        deployment.close()


@pytest.fixture
def site_api(faulty) -> Iterator[test_site_split.SiteApi]:
    """The site API served by this process over the faulty deployment."""
    server = wsgi.Server(('127.0.0.1', 0), api_app.build_app(
        None, extra_apis=[(site_api_module.DEFAULT_PREFIX,
                           site_api_module.register)]))
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield test_site_split.SiteApi(
            faulty.split, 'http://127.0.0.1:%d/site/v1' % server.bind_addr[1])
    finally:
        server.stop()
        thread.join(10)
