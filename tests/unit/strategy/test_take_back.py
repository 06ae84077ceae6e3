"""Nodes an earlier action left failed are taken back by the next one
(node_flow's way back, run by the groups), node by node in the action's
log; what can not be taken back fails its node only; and an action
refused before it changed anything leaves its revision untagged."""

from __future__ import annotations

import threading

import pytest

from ironside.common import states
from ironside.db import designs as designs_db
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from ironside.db import site as site_db
from ironside.strategy import actions
from ironside.strategy.designs import store
from ironside.strategy.nodes import conductor as conductor_nodes
from ironside.strategy.run import runner
from tests import utils
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.conftest import run_action
from tests.unit.strategy.conftest import start_action
from tests.unit.strategy.design_fixtures import stage_example
from tests.unit.strategy.memory_limit import InFlightLimit
from tests.unit.strategy.test_runner_rules import StopAfter
from tests.unit.strategy.test_runner_rules import _node
from tests.unit.strategy.test_runner_rules import group
from tests.unit.strategy.test_runner_rules import site
from tests.unit.strategy.test_runner_rules import strategy


def _log(result):
    return [entry['message'] for entry in result['log']]


@pytest.mark.parametrize('state, error, requests, note', [
    (states.DEPLOYFAIL, 'fake deploy failure', ['deleted', 'deploy'],
     'node n1 taken back from state "deploy failed" (fake deploy '
     'failure): undeploy requested (it is cleaned, then available)'),
    (states.ERROR, 'tear down failed', ['deleted', 'deploy'],
     'node n1 taken back from state "error" (tear down failed): undeploy '
     'requested (it is cleaned, then available)'),
    (states.CLEANFAIL, 'fake prepare failure', ['manage', 'provide',
                                                'deploy'],
     'node n1 taken back from state "clean failed" (fake prepare '
     'failure): manage requested (then provide: it is cleaned, then '
     'available)'),
    (states.INSPECTFAIL, None, ['manage', 'provide', 'deploy'],
     'node n1 taken back from state "inspect failed": manage requested '
     '(then provide: it is cleaned, then available)'),
])
def test_a_failed_node_is_taken_back_and_deployed(db, state, error,
                                                  requests, note):
    strategy(group('a'))
    nodes = site(a=['n1', 'n2'])
    failed = nodes.by_name('n1')
    failed.provision_state = state
    failed.last_error = error
    result = run_action(nodes, 'test-strategy')
    assert result['result'] == 'success'
    assert nodes.requests_for('n1') == requests
    assert failed.provision_state == states.ACTIVE
    assert _log(result) == [note]
    assert nodes.requests_for('n2') == ['manage', 'provide', 'deploy']


def test_a_node_failing_on_its_way_back_fails_once(db):
    """The way back is tried once: a node whose undeploy fails fails with
    the reason, and is not taken back again in the same action."""
    strategy(group('a', success_criteria={'percent_successful_nodes': 50}))
    nodes = site(a=['n1', 'n2'])
    nodes.by_name('n1').provision_state = states.DEPLOYFAIL
    nodes.by_name('n1').fail_teardown = True
    result = run_action(nodes, 'test-strategy')
    assert nodes.requests_for('n1') == ['deleted']
    assert _node(result, 'n1')['reason'] == \
        'undeploying failed: fake teardown failure'
    assert result['result'] == 'success with some nodes or groups failed'
    # The next action takes it back from there (error), once fixed.
    nodes.by_name('n1').fail_teardown = False
    again = run_action(nodes, 'test-strategy', action='update_site')
    assert again['result'] == 'success'
    assert nodes.requests_for('n1') == ['deleted', 'deleted', 'deploy']


def test_maintenance_fails_its_node_and_the_criteria_judge(db):
    strategy(group('a', success_criteria={'percent_successful_nodes': 50}))
    nodes = site(a=['n1', 'n2'])
    held = nodes.by_name('n1')
    held.provision_state = states.CLEANFAIL
    held.maintenance = True
    held.maintenance_reason = 'disk wipe failed'
    result = run_action(nodes, 'test-strategy')
    assert nodes.requests_for('n1') == []
    assert _node(result, 'n1')['reason'] == (
        'not taken back from state "clean failed": the node is in '
        'maintenance (disk wipe failed); take it out of maintenance for '
        'the next action to retry it')
    assert result['result'] == 'success with some nodes or groups failed'
    assert _log(result) == []


def test_a_node_locked_by_someone_else_fails_alone(db, conf):
    conf.set('site', node_locked_timeout=0)
    strategy(group('a', success_criteria={'percent_successful_nodes': 50}))
    nodes = site(a=['n1', 'n2'])
    nodes.by_name('n1').provision_state = states.DEPLOYFAIL
    nodes.by_name('n1').locked_by = 'someone-else'
    result = run_action(nodes, 'test-strategy')
    assert nodes.requests_for('n1') == []
    assert _node(result, 'n1')['reason'] == (
        'deleted not made: the node is still locked after 0 seconds: node '
        'n1 is locked by host someone-else')
    assert result['result'] == 'success with some nodes or groups failed'
    assert _node(result, 'n2')['status'] == 'success'


def test_a_lock_released_in_time_is_waited_out(db, conf):
    conf.set('site', node_locked_timeout=600)
    strategy(group('a'))
    nodes = site(a=['n1'])
    locked = nodes.by_name('n1')
    locked.locked_by = 'someone-else'
    reads = nodes.read_states

    def read_states(uuids):
        if nodes.reads >= 5:
            locked.locked_by = None
        return reads(uuids)
    nodes.read_states = read_states
    result = run_action(nodes, 'test-strategy')
    assert result['result'] == 'success'
    assert nodes.requests_for('n1') == ['manage', 'provide', 'deploy']


# The revision's tag

@pytest.fixture
def design_site(db):
    stage_example()
    store.commit()
    return memory_nodes.MemoryNodes()


def _run_design(nodes, action='deploy_site'):
    row = actions.create_action(nodes, action)
    assert site_db.claim_action(row.id, 'test-host', None, None)
    assert runner.ActionRunner(row.uuid, 'test-host', nodes,
                               InFlightLimit(100)).run()
    return actions.action_report(row.uuid)


def _tags():
    return [(t.revision_id, t.tag) for t in designs_db.tags()]


def test_a_failed_deploy_is_retried_by_the_same_action(design_site):
    nodes = design_site
    ntp01 = nodes.add('ntp01', fail_deploy=True)
    first = _run_design(nodes)
    assert first['result'] == 'failed: critical group ntp-node failed'
    assert ntp01.provision_state == states.DEPLOYFAIL
    ntp01.fail_deploy = False
    second = _run_design(nodes)
    assert second['result'] == 'success'
    assert {n['status'] for n in second['nodes']} == {'success'}
    assert nodes.requests_for('ntp01') == [
        'set_extra', 'manage', 'provide', 'deploy', 'deleted', 'deploy']
    assert [m for m in _log(second) if m.startswith('node ')] == [
        'node ntp01 taken back from state "deploy failed" (fake deploy '
        'failure): undeploy requested (it is cleaned, then available)']
    assert _tags() == [(1, 'site-action-failure'),
                       (1, 'site-action-success')]


def test_an_action_refused_before_it_changed_anything_tags_nothing(
        design_site):
    nodes = design_site
    first = _run_design(nodes)
    assert first['result'] == 'success'
    for node in nodes.nodes.values():
        node.provision_state = states.DEPLOYFAIL
        node.maintenance = True
    before = list(nodes.requests)
    refused = _run_design(nodes, 'update_site')
    assert refused['result'] == 'failed: critical group ntp-node failed'
    assert nodes.requests == before
    assert _tags() == [(1, 'site-action-success')]
    # One node changed, and then the action failed: that is a failure.
    ntp01 = nodes.by_name('ntp01')
    ntp01.maintenance = False
    ntp01.fail_teardown = True
    failed = _run_design(nodes, 'update_site')
    assert failed['result'] == 'failed: critical group ntp-node failed'
    assert _tags() == [(1, 'site-action-success'),
                       (1, 'site-action-failure')]


# Against Ironside's conductor, on fake hardware

FAIL_CLEANING = {'fake_fail_steps': ['deploy.erase_devices_metadata']}
FAIL_DEPLOY = {'fake_fail_steps': ['deploy.write_image']}


@pytest.fixture
def two_nodes(db, rpc, context):
    """n1 and n2 of group "a" (half of it must succeed), and the seam
    over the conductor; n1's driver_info as given."""
    strategy(group('a', success_criteria={'percent_successful_nodes': 50}))

    def _enroll(driver_info):
        uuids = {}
        for name in ('n1', 'n2'):
            values = utils.fake_node_values(
                name=name, extra={'tags': ['a']},
                driver_info=driver_info if name == 'n1' else {})
            uuids[name] = rpc.create_node(context, values)
        return uuids, conductor_nodes.ConductorNodes(rpc)
    return _enroll


def _events(uuid):
    node = nodes_db.get_node(uuid)
    return [h.event for h in history_db.list_for_node(node.id)]


def test_the_conductor_undeploys_a_deploy_failed_node(two_nodes, rpc,
                                                       context):
    uuids, nodes = two_nodes(FAIL_DEPLOY)
    first = run_action(nodes, 'test-strategy')
    assert _node(first, 'n1')['status'] == 'failure'
    assert nodes_db.get_node(uuids['n1']).provision_state == \
        states.DEPLOYFAIL
    rpc.update_node(context, uuids['n1'], {'driver_info': {}})
    second = run_action(nodes, 'test-strategy', action='update_site')
    assert second['result'] == 'success'
    assert nodes_db.get_node(uuids['n1']).provision_state == states.ACTIVE
    events = _events(uuids['n1'])
    assert 'Cleaning finished' in \
        events[events.index('Tear down requested'):]
    assert _log(second) == [
        'node n1 taken back from state "deploy failed" (Deploy step '
        'deploy.write_image failed: Step deploy.write_image failed: fake '
        'failure requested by driver_info fake_fail_steps): undeploy '
        'requested (it is cleaned, then available)']


def test_a_clean_failure_left_in_maintenance_is_not_taken_back(
        two_nodes, rpc, context):
    """Ironside puts a node whose clean step failed in maintenance, as
    Ironic does: the next action says so, and goes on without it."""
    uuids, nodes = two_nodes(FAIL_CLEANING)
    run_action(nodes, 'test-strategy')
    failed = nodes_db.get_node(uuids['n1'])
    assert (failed.provision_state, failed.maintenance) == (
        states.CLEANFAIL, True)
    again = run_action(nodes, 'test-strategy', action='update_site')
    assert _node(again, 'n1')['reason'].startswith(
        'not taken back from state "clean failed": the node is in '
        'maintenance (')
    assert again['result'] == 'success with some nodes or groups failed'
    # Out of maintenance (the fault fixed), the next action takes it back.
    rpc.update_node(context, uuids['n1'], {'driver_info': {},
                                           'maintenance': False})
    last = run_action(nodes, 'test-strategy', action='update_site')
    assert last['result'] == 'success'
    assert nodes_db.get_node(uuids['n1']).provision_state == states.ACTIVE


def test_a_node_another_conductor_holds_fails_alone(two_nodes, conf):
    conf.set('conductor', node_locked_retry_attempts=0)
    conf.set('site', node_locked_timeout=0)
    uuids, nodes = two_nodes({})
    nodes_db.reserve_node('other-conductor', uuids['n1'])
    try:
        result = run_action(nodes, 'test-strategy')
    finally:
        nodes_db.release_node('other-conductor',
                              nodes_db.get_node(uuids['n1']).id)
    assert _node(result, 'n1')['reason'] == (
        'manage not made: the node is still locked after 0 seconds: Node '
        '%s is locked by host other-conductor, please retry after the '
        'current operation is completed.' % uuids['n1'])
    assert result['result'] == 'success with some nodes or groups failed'
    assert nodes_db.get_node(uuids['n2']).provision_state == states.ACTIVE


def test_a_conductor_taking_over_does_not_take_back_twice(db):
    """The undeploy was asked and recorded: the conductor that takes the
    action over polls the node on, and the log says it once."""
    strategy(group('a'))
    nodes = site(a=['n1'])
    nodes.by_name('n1').provision_state = states.DEPLOYFAIL
    row = start_action(nodes, 'test-strategy', host='conductor-1')
    stop = threading.Event()
    first = runner.ActionRunner(row.uuid, 'conductor-1',
                                StopAfter(nodes, 2, stop),
                                InFlightLimit(100), stop)
    assert first.run() is False
    (node,) = site_db.action_nodes(row.id)
    assert (node.phase, node.request) == ('prepare', 'deleted')
    seen = site_db.get_action(row.uuid)
    assert seen.progress['changed'] is True
    assert site_db.claim_action(row.id, 'conductor-2', seen.owner,
                                seen.heartbeat_at)
    assert runner.ActionRunner(row.uuid, 'conductor-2', nodes,
                               InFlightLimit(100)).run() is True
    assert nodes.requests_for('n1') == ['deleted', 'deploy']
    report = actions.action_report(row.uuid)
    assert report['result'] == 'success'
    assert _log(report) == [
        'node n1 taken back from state "deploy failed": undeploy requested '
        '(it is cleaned, then available)']
