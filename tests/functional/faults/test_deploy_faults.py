"""A 200-node deploy through the API and three conductors survives the
faults of issue 17: the broker away 15 s, the database restarted, a
conductor killed and started again at once, a BMC that stops answering,
and the database restarted in the middle of a site action.

After each: every node ``active`` or failed with the fault's own reason,
no lock held, no action stuck, no step run twice, no 5xx but 503; the
recovery time shows in the terminal summary (and must stay under 70 s).
"""

from __future__ import annotations

import concurrent.futures
import time

import pytest

from ironside.common import states
from ironside.db import nodes as nodes_db
from ironside.db import site as site_db
from ironside.osc import report_text
from tests import utils
from tests.functional.faults.conftest import NODE_COUNT
from tests.functional.faults.conftest import RECOVERY_LIMIT
from tests.functional.faults.conftest import report
from tests.functional.fixtures import ipmi_bmc
from tests.unit.strategy import spec_flows

# One worker runs them one after the other, on the module's RabbitMQ and
# PostgreSQL (conftest's fault_services): a fault and its recovery are
# timed, and two 200-node deployments at once would time each other.
pytestmark = [pytest.mark.functional, pytest.mark.faults,
              pytest.mark.xdist_group('deploy-faults')]

# Seconds the broker stays away (the figure; the fault itself,
# not a wait for something).
BROKER_OUTAGE = 15


def _begin(faulty, share: float = 0.1):
    """Enroll the nodes, start deploying them all, and return once a
    share of them is under way (the fault lands mid-deploy)."""
    faulty.enroll_available()
    deploy = faulty.deploy_all()
    utils.wait_for(lambda: faulty.progress() >= NODE_COUNT * share or
                   deploy.done(), timeout=60, interval=0.05,
                   what='the deploy to get under way')
    return deploy


def _finish(request, faulty, scenario, since, allowed_failure, deploy,
            more_checks=None, more_nodes=()):
    """Wait for the nodes whose deploy was accepted to settle, report the
    recovery time, then check the outcome (and ``more_checks()``, a list
    of problems, asked once the recovery is timed)."""
    answers = deploy.result(timeout=RECOVERY_LIMIT + 60)
    # A request tried again after a 503 may find its first try took
    # effect (400: already deploying); the node's state says.
    started = {n.uuid for n in faulty.nodes()
               if n.provision_state != states.AVAILABLE}
    accepted = [u for u, s in answers.items()
                if s == 202 or (400 <= s < 500 and u in started)]
    refused = sorted({s for u, s in answers.items()
                      if u not in accepted})
    refused_count = len(answers) - len(accepted)
    accepted.extend(more_nodes)
    recovery = faulty.wait_settled(since, accepted)
    by_state, problems = faulty.check_outcome(allowed_failure, accepted)
    if refused:
        by_state['refused'] = refused_count
        problems.insert(0, 'deploy requests not accepted: %s' % refused)
    report(request, scenario, recovery, by_state)
    if more_checks is not None:
        problems.extend(more_checks())
    if recovery is None or recovery >= RECOVERY_LIMIT:
        problems.insert(0, '%s: no recovery within %ds' % (
            scenario, RECOVERY_LIMIT))
    assert not problems, '\n'.join(problems[:25])


def _mentions(*words):
    def _accept(node) -> bool:
        text = (node.last_error or '').lower()
        return node.failure_reason != 'ConductorDied' and any(
            w in text for w in words)
    return _accept


def test_rabbitmq_stopped_15s(request, faulty):
    deploy = _begin(faulty)
    faulty.rabbit.stop()
    time.sleep(BROKER_OUTAGE)
    faulty.rabbit.start()
    back = time.monotonic()
    _finish(request, faulty, 'RabbitMQ stopped %ds' % BROKER_OUTAGE, back,
            _mentions('messag', 'broker', 'rabbit', 'amqp', 'rpc'), deploy)


def test_postgresql_restarted(request, faulty):
    deploy = _begin(faulty)
    faulty.postgres.restart()
    back = time.monotonic()
    _finish(request, faulty, 'PostgreSQL restarted', back,
            _mentions('database', 'connection', 'server closed'), deploy)


def test_conductor_killed_and_restarted_at_once(request, faulty):
    deploy = _begin(faulty, share=0.2)
    victim = 'fault-conductor-1'
    faulty.split.conductors[victim].kill()
    killed = time.monotonic()
    # A supervisor starts it again straight away, under its own name.
    faulty.split.start_conductor(victim, timeout=RECOVERY_LIMIT)

    def _died_here(node) -> bool:
        return node.failure_reason == 'ConductorDied' and (
            'conductor %s stopped' % victim in (node.last_error or ''))

    _finish(request, faulty, 'conductor SIGKILLed and restarted', killed,
            _died_here, deploy)


def test_bmc_stops_answering(request, faulty):
    with ipmi_bmc.IPMIBMCs(1, prefix='silent') as bmcs:
        status, body = faulty.api.api('POST', '/v1/nodes', {
            'name': 'silent-bmc', 'driver': 'ipmi',
            'driver_info': bmcs.bmcs[0].driver_info()})
        assert status == 201, body
        silent = body['uuid']
        deploy = _begin(faulty)
        bmcs.configure('silent-0', silent=True)
        fell_silent = time.monotonic()
        assert faulty.request('PUT', '/v1/nodes/%s/states/provision'
                              % silent, {'target': 'manage'}) == 202
        # Callers keep asking the silent BMC; each gets an answer in time
        # and none holds up the other nodes.
        # Asked in the background: the recovery is timed meanwhile.
        pool = concurrent.futures.ThreadPoolExecutor(10)
        asking = [pool.submit(faulty.ask_once, 'GET',
                              '/v1/nodes/%s/management/boot_device' % silent)
                  for _ in range(10)]
        pool.shutdown(wait=False)

        def _silent_node_checks() -> list[str]:
            problems = []
            node = nodes_db.get_node(silent)
            if node.provision_state != states.ENROLL or node.reservation:
                problems.append('the silent node is still %s, locked by %s'
                                % (node.provision_state, node.reservation))
            if not node.last_error:
                problems.append('no reason recorded for the silent BMC')
            asked = [future.result() for future in asking]
            if not all(400 <= s < 500 or s == 503 for s in asked):
                problems.append('boot device of the silent node (0: no '
                                'answer in 30 s): %s' % asked)
            return problems

        # The silent node counts in the recovery: it must leave
        # verifying (back to enroll, with the reason), unlocked.
        _finish(request, faulty, 'BMC stopped answering', fell_silent,
                lambda node: False, deploy, _silent_node_checks, [silent])


def test_postgresql_restarted_during_site_action(request, faulty,
                                                  site_api):
    uuids = site_api.enroll()
    action = site_api.deploy()
    utils.wait_for(
        lambda: any(nodes_db.get_node(u).provision_state not in (
            states.ENROLL, states.VERIFYING) for u in uuids.values()),
        timeout=60, interval=0.05, what='the site action to get under way')
    faulty.postgres.restart()
    back = time.monotonic()
    try:
        result = site_api.wait_finished(action, timeout=RECOVERY_LIMIT + 30)
    except AssertionError:
        result = None
    recovery = time.monotonic() - back if result else None
    by_state, problems = faulty.check_outcome(lambda node: False,
                                              list(uuids.values()))
    report(request, 'PostgreSQL restarted during a site action', recovery,
           by_state)
    row = site_db.get_action(action)
    if result is None:
        problems.insert(0, 'site action stuck in %s, owner %s' % (
            row.state, row.owner))
    elif report_text.flow_text(result) != spec_flows.ALL_SUCCESS:
        problems.append(report_text.flow_text(result))
    assert not problems, '\n'.join(problems[:25])
    assert recovery < RECOVERY_LIMIT
