"""Each rule of the spec's Process, on small sites in memory."""

from __future__ import annotations

import datetime
import threading

import pytest

from ironside.common import states
from ironside.db import site as site_db
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy.run import runner
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.conftest import run_action
from tests.unit.strategy.conftest import start_action
from tests.unit.strategy.memory_limit import InFlightLimit


def group(name, critical=False, depends_on=(), selectors=None, **extra):
    value = {'name': name, 'critical': critical,
             'depends_on': list(depends_on),
             'selectors': selectors if selectors is not None else
             [{'node_tags': [name]}]}
    value.update(extra)
    return value


def strategy(*groups, name='test-strategy'):
    return actions.create_strategy({
        'schema': 'ironside/DeploymentStrategy/v1',
        'metadata': {'name': name}, 'data': {'groups': list(groups)}})


def site(**tagged):
    """site(a=['n1', 'n2']): nodes n1, n2 tagged "a" (names may repeat)."""
    nodes = memory_nodes.MemoryNodes()
    tags = {}
    for tag, names in tagged.items():
        for node in names:
            tags.setdefault(node, []).append(tag)
    for node in sorted(tags):
        nodes.add(node, tags=tags[node])
    return nodes


class RecordingLimit(InFlightLimit):
    """An in-flight limit that remembers the most nodes it let fly."""

    def __init__(self, size):
        super().__init__(size)
        self.peak = 0

    def try_acquire(self):
        granted = super().try_acquire()
        self.peak = max(self.peak, self.used)
        return granted


def _group(result, name):
    return next(g for g in result['groups'] if g['name'] == name)


def _node(result, name):
    return next(n for n in result['nodes'] if n['name'] == name)


def _first(nodes, name):
    uuid = nodes.by_name(name).node.uuid
    return next(i for i, (u, _) in enumerate(nodes.requests) if u == uuid)


# Strategies: waves and the in-flight cap

def test_one_by_one_deploys_a_node_at_a_time(db):
    strategy(group('a', strategy={'type': 'one_by_one'}))
    nodes = site(a=['n1', 'n2', 'n3'])
    limit = RecordingLimit(100)
    result = run_action(nodes, 'test-strategy', limit=limit)
    assert result['result'] == 'success'
    assert limit.peak == 1
    names = {n.node.uuid: n.node.name for n in nodes.nodes.values()}
    assert [(names[u], verb) for u, verb in nodes.requests] == [
        ('n1', 'manage'), ('n1', 'provide'), ('n2', 'manage'),
        ('n2', 'provide'), ('n3', 'manage'), ('n3', 'provide'),
        ('n1', 'deploy'), ('n2', 'deploy'), ('n3', 'deploy')]


def test_parallel_amount_goes_in_waves(db):
    strategy(group('a', strategy={'type': 'parallel', 'amount': 2}))
    nodes = site(a=['n1', 'n2', 'n3', 'n4', 'n5'])
    limit = RecordingLimit(100)
    run_action(nodes, 'test-strategy', limit=limit)
    assert limit.peak == 2
    # A wave starts when the one before has finished the phase.
    provides = [i for i, (_, verb) in enumerate(nodes.requests)
                if verb == 'provide']
    assert provides[1] < min(_first(nodes, 'n3'), _first(nodes, 'n4'))
    assert nodes.requests[:2] == [(nodes.by_name('n1').node.uuid, 'manage'),
                                  (nodes.by_name('n2').node.uuid, 'manage')]


def test_parallel_without_amount_starts_all(db):
    strategy(group('a', strategy={'type': 'parallel'}))
    nodes = site(a=['n1', 'n2', 'n3'])
    limit = RecordingLimit(100)
    run_action(nodes, 'test-strategy', limit=limit)
    assert limit.peak == 3
    assert [verb for _, verb in nodes.requests[:3]] == ['manage'] * 3


def test_in_flight_cap_wins_over_the_strategy(db):
    strategy(group('a'))
    nodes = site(a=['n%d' % i for i in range(7)])
    limit = RecordingLimit(2)
    result = run_action(nodes, 'test-strategy', limit=limit)
    assert limit.peak == 2
    assert result['node_counts']['success'] == 7
    assert limit.used == 0


# Submitting nodes

def test_busy_conductor_is_asked_again(db):
    strategy(group('a'))
    nodes = site(a=['n1', 'n2'])
    nodes.by_name('n1').busy = 3
    result = run_action(nodes, 'test-strategy')
    assert result['result'] == 'success'
    assert nodes.requests_for('n1') == ['manage', 'provide', 'deploy']


def test_refused_request_fails_the_node(db):
    strategy(group('a', success_criteria={'percent_successful_nodes': 50}))
    nodes = site(a=['n1', 'n2'])
    nodes.by_name('n1').maintenance = True
    result = run_action(nodes, 'test-strategy')
    node = _node(result, 'n1')
    assert node['status'] == 'failure'
    assert node['reason'] == 'manage refused: node n1 is in maintenance'
    assert result['result'] == 'success with some nodes or groups failed'


def test_node_in_two_groups_is_submitted_once_and_counts_in_both(db):
    strategy(group('a'),
             group('b', depends_on=['a'], success_criteria={
                 'minimum_successful_nodes': 2}))
    nodes = site(a=['shared'], b=['shared', 'own'])
    result = run_action(nodes, 'test-strategy')
    assert nodes.requests_for('shared') == ['manage', 'provide', 'deploy']
    assert _group(result, 'b')['prepare'] == {'result': 'success'}
    assert _group(result, 'b')['deploy'] == {'result': 'success'}


def test_success_elsewhere_counts_for_criteria(db):
    strategy(group('a'),
             group('b', depends_on=['a'], success_criteria={
                 'percent_successful_nodes': 50}))
    nodes = site(a=['shared'], b=['shared', 'own'])
    nodes.by_name('own').fail_deploy = True
    result = run_action(nodes, 'test-strategy')
    assert _group(result, 'b')['deploy'] == {'result': 'success'}


def test_nodes_failing_prepare_are_not_deployed(db):
    strategy(group('a', success_criteria={'percent_successful_nodes': 50}))
    nodes = site(a=['n1', 'n2'])
    nodes.by_name('n1').fail_prepare = True
    result = run_action(nodes, 'test-strategy')
    assert nodes.requests_for('n1') == ['manage', 'provide']
    assert nodes.requests_for('n2') == ['manage', 'provide', 'deploy']
    assert _node(result, 'n1')['reason'] == \
        'cleaning failed: fake prepare failure'
    assert _group(result, 'a')['deploy'] == {'result': 'success'}


def test_failed_verification_fails_the_node(db):
    strategy(group('a'))
    nodes = site(a=['n1'])
    nodes.by_name('n1').fail_verify = True
    result = run_action(nodes, 'test-strategy')
    assert nodes.requests_for('n1') == ['manage']
    assert _node(result, 'n1')['reason'] == \
        'verification failed: fake verify failure'


def test_criteria_failing_after_prepare_skip_deploy(db):
    strategy(group('a', success_criteria={'percent_successful_nodes': 100}))
    nodes = site(a=['n1', 'n2'])
    nodes.by_name('n1').fail_prepare = True
    result = run_action(nodes, 'test-strategy')
    a = _group(result, 'a')
    assert a['prepare'] == {'result': 'failed: criteria', 'criteria': [{
        'criterion': 'percent_successful_nodes', 'needed': 100,
        'actual': 50.0}]}
    assert a['deploy'] == {'result': 'failed: prepare'}
    assert 'deploy' not in [verb for _, verb in nodes.requests]
    assert _node(result, 'n2')['status'] == 'prepared'


def test_failed_dependency_fails_dependents_without_trying(db):
    strategy(group('a', success_criteria={'minimum_successful_nodes': 1}),
             group('b', depends_on=['a']),
             group('c', depends_on=['b']),
             group('d'))
    nodes = site(a=['a1'], b=['b1'], c=['c1'], d=['d1'])
    nodes.by_name('a1').fail_deploy = True
    result = run_action(nodes, 'test-strategy')
    assert _group(result, 'b')['prepare'] == {
        'result': 'failed: dependency', 'dependencies': ['a']}
    assert _group(result, 'c')['deploy'] == {
        'result': 'failed: dependency', 'dependencies': ['b']}
    assert nodes.requests_for('b1') == nodes.requests_for('c1') == []
    assert _node(result, 'b1')['status'] == 'not started'
    assert _group(result, 'd')['deploy'] == {'result': 'success'}
    assert result['result'] == 'success with some nodes or groups failed'


def test_required_for_is_the_reverse_of_depends_on(db):
    strategy(group('b'), group('a', required_for=['b'], critical=True,
                               success_criteria={
                                   'minimum_successful_nodes': 1}))
    nodes = site(a=['a1'], b=['b1'])
    nodes.by_name('a1').fail_prepare = True
    result = run_action(nodes, 'test-strategy')
    assert [g['name'] for g in result['groups']] == ['a', 'b']
    assert _group(result, 'b')['prepare']['result'] == 'failed: dependency'
    assert result['result'] == 'failed: critical group a failed'


def test_empty_group_is_fully_successful(db):
    strategy(group('a', selectors=[{'node_names': ['nowhere']}],
                   success_criteria={'percent_successful_nodes': 100,
                                     'maximum_failed_nodes': 0}))
    result = run_action(site(b=['n1']), 'test-strategy')
    assert _group(result, 'a')['prepare'] == {'result': 'success'}
    assert result['result'] == 'success'


def test_empty_group_fails_a_minimum(db):
    strategy(group('a', critical=True,
                   selectors=[{'node_names': ['nowhere']}],
                   success_criteria={'minimum_successful_nodes': 1}))
    result = run_action(site(b=['n1']), 'test-strategy')
    assert _group(result, 'a')['prepare'] == {
        'result': 'failed: criteria', 'criteria': [{
            'criterion': 'minimum_successful_nodes', 'needed': 1,
            'actual': 0}]}
    assert result['result'] == 'failed: critical group a failed'


def test_active_nodes_count_as_success_and_are_left_alone(db):
    strategy(group('a'))
    nodes = site(a=['n1', 'n2', 'n3'])
    nodes.by_name('n1').provision_state = states.ACTIVE
    nodes.by_name('n2').provision_state = states.AVAILABLE
    result = run_action(nodes, 'test-strategy')
    assert nodes.requests_for('n1') == []
    assert nodes.requests_for('n2') == ['deploy']
    assert nodes.requests_for('n3') == ['manage', 'provide', 'deploy']
    assert result['node_counts']['success'] == 3


def test_node_in_an_unpreparable_state_fails(db):
    strategy(group('a'))
    nodes = site(a=['n1'])
    nodes.by_name('n1').provision_state = states.RESCUE
    result = run_action(nodes, 'test-strategy')
    assert _node(result, 'n1')['reason'] == (
        'can not prepare a node in state "rescue"; bring it to '
        'manageable or available first')


def test_deploy_steps_and_templates_reach_the_nodes(db):
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': []}, 'priority': 150}]
    strategy(group('a', deploy_steps=steps, deploy_templates=['CUSTOM_X']))
    nodes = site(a=['n1'])
    run_action(nodes, 'test-strategy')
    assert nodes.by_name('n1').deploy_steps == steps + [
        {'template': 'CUSTOM_X'}]


# Timeouts

class SteppingClock:
    """Each reading is ``step`` seconds after the one before."""

    def __init__(self, step):
        self.now = datetime.datetime(2024, 1, 1)
        self.step = datetime.timedelta(seconds=step)

    def __call__(self):
        self.now += self.step
        return self.now


@pytest.mark.parametrize('phase', ['prepare', 'deploy'])
def test_phase_timeout_fails_the_group(db, conf, phase):
    conf.set('site', prepare_timeout=30, deploy_timeout=30)
    strategy(group('a', critical=True), group('b'))
    nodes = site(a=['n1', 'n2'], b=['b1'])
    if phase == 'prepare':
        nodes.by_name('n1').frozen = True
    else:
        nodes.by_name('n1').provision_state = states.AVAILABLE
        nodes.by_name('n1').fail_deploy = True
        nodes.by_name('n1').frozen = True
    result = run_action(nodes, 'test-strategy', clock=SteppingClock(1))
    a = _group(result, 'a')
    assert a[phase] == {'result': 'failed: timeout', 'timeout': 30}
    assert _node(result, 'n1')['reason'] == \
        '%s timed out after 30 seconds' % phase
    assert _node(result, 'n1')['in_flight'] is None
    assert result['result'] == 'failed: critical group a failed'
    assert '| %s<FAILED, due to timeout>' % ('%s a' % phase).ljust(12) in \
        report_text.flow_text(result)


# Durability

class StopAfter:
    """A seam that stops its runner after a number of state reads."""

    def __init__(self, nodes, reads, stop):
        self.nodes = nodes
        self.reads = reads
        self.stop = stop

    def __getattr__(self, name):
        return getattr(self.nodes, name)

    def read_states(self, uuids):
        self.reads -= 1
        if self.reads <= 0:
            self.stop.set()
        return self.nodes.read_states(uuids)


def test_takeover_polls_nodes_in_flight_instead_of_asking_again(db):
    strategy(group('a'), group('b', depends_on=['a']))
    nodes = site(a=['a1', 'a2', 'a3'], b=['b1', 'b2'])
    row = start_action(nodes, 'test-strategy', host='conductor-1')
    stop = threading.Event()
    first = runner.ActionRunner(row.uuid, 'conductor-1',
                                StopAfter(nodes, 3, stop),
                                InFlightLimit(100), stop)
    assert first.run() is False
    in_flight = [n for n in site_db.action_nodes(row.id) if n.phase]
    assert in_flight
    # conductor-1 died; conductor-2 claims the action as it saw it.
    seen = site_db.get_action(row.uuid)
    assert site_db.claim_action(row.id, 'conductor-2', seen.owner,
                                seen.heartbeat_at)
    second = runner.ActionRunner(row.uuid, 'conductor-2', nodes,
                                 InFlightLimit(100))
    assert second.run() is True
    for name in ('a1', 'a2', 'a3', 'b1', 'b2'):
        assert nodes.requests_for(name) == ['manage', 'provide', 'deploy']
    assert actions.action_report(row.uuid)['result'] == 'success'


def test_runner_that_lost_its_action_writes_nothing(db):
    strategy(group('a'))
    nodes = site(a=['a1'])
    row = start_action(nodes, 'test-strategy', host='conductor-1')
    seen = site_db.get_action(row.uuid)
    assert site_db.claim_action(row.id, 'conductor-2', seen.owner,
                                seen.heartbeat_at)
    stale = runner.ActionRunner(row.uuid, 'conductor-1', nodes,
                                InFlightLimit(100))
    assert stale.run() is False
    assert site_db.get_action(row.uuid).progress['order'] == []
    assert site_db.get_action(row.uuid).owner == 'conductor-2'


def test_finished_action_releases_its_nodes(db):
    strategy(group('a'))
    nodes = site(a=['a1'])
    run_action(nodes, 'test-strategy')
    assert site_db.node_claims([nodes.by_name('a1').node.uuid]) == {}
    assert run_action(nodes, 'test-strategy',
                      action='update_site')['result'] == 'success'
