"""What the runner does next with a node, from its state alone."""

from __future__ import annotations

import pytest

from ironside.common import states
from ironside.strategy.nodes import seam
from ironside.strategy.run import node_flow


def node(state, error=None):
    return seam.NodeState('u', state, error)


@pytest.mark.parametrize('state, request_, expected', [
    (states.ENROLL, None, ('submit', 'manage')),
    (states.VERIFYING, 'manage', ('wait', None)),
    (states.ENROLL, 'manage', ('done', 'failure',
                               'verification failed: no BMC')),
    (states.MANAGEABLE, 'manage', ('submit', 'provide')),
    (states.MANAGEABLE, None, ('submit', 'provide')),
    (states.CLEANING, 'provide', ('wait', None)),
    (states.CLEANWAIT, None, ('wait', None)),
    (states.MANAGEABLE, 'provide', (
        'done', 'failure', 'returned to manageable instead of becoming '
        'available: no BMC')),
    (states.CLEANFAIL, 'provide', ('done', 'failure',
                                   'cleaning failed: no BMC')),
    (states.AVAILABLE, 'provide', ('done', 'prepared', None)),
    (states.AVAILABLE, None, ('done', 'prepared', None)),
    (states.ACTIVE, None, ('done', 'success', None)),
    (states.RESCUE, None, (
        'done', 'failure', 'can not prepare a node in state "rescue"; '
        'bring it to manageable or available first')),
    (states.INSPECTING, 'manage', (
        'done', 'failure', 'went to state "inspecting" while being '
        'prepared: no BMC')),
])
def test_prepare(state, request_, expected):
    _check(node_flow.prepare(node(state, 'no BMC'), request_), expected)


@pytest.mark.parametrize('state, request_, expected', [
    (states.AVAILABLE, None, ('submit', 'deploy')),
    (states.DEPLOYING, 'deploy', ('wait', None)),
    (states.DEPLOYWAIT, 'deploy', ('wait', None)),
    (states.ACTIVE, 'deploy', ('done', 'success', None)),
    (states.DEPLOYFAIL, 'deploy', ('done', 'failure',
                                   'deploy failed: no BMC')),
    (states.AVAILABLE, 'deploy', (
        'done', 'failure', 'went to state "available" while being '
        'deployed: no BMC')),
    (states.MANAGEABLE, None, (
        'done', 'failure', 'can not deploy a node in state '
        '"manageable"')),
])
def test_deploy(state, request_, expected):
    _check(node_flow.deploy(node(state, 'no BMC'), request_), expected)


# Nodes an earlier action left failed: the way back, one step at a time.
@pytest.mark.parametrize('state, request_, expected', [
    # deploy failed (or error, a failed undeploy): undeploy, which cleans.
    (states.DEPLOYFAIL, None, ('submit', 'deleted')),
    (states.ERROR, None, ('submit', 'deleted')),
    (states.DELETING, 'deleted', ('wait', None)),
    (states.CLEANING, 'deleted', ('wait', None)),
    (states.CLEANWAIT, 'deleted', ('wait', None)),
    (states.AVAILABLE, 'deleted', ('done', 'prepared', None)),
    (states.ERROR, 'deleted', ('done', 'failure',
                               'undeploying failed: no BMC')),
    (states.CLEANFAIL, 'deleted', ('done', 'failure',
                                   'cleaning failed: no BMC')),
    (states.DEPLOYFAIL, 'deleted', (
        'done', 'failure', 'went to state "deploy failed" while being '
        'prepared: no BMC')),
    # clean failed and inspect failed: manage, then provide (cleans).
    (states.CLEANFAIL, None, ('submit', 'manage')),
    (states.INSPECTFAIL, None, ('submit', 'manage')),
    (states.MANAGEABLE, 'manage', ('submit', 'provide')),
    (states.CLEANFAIL, 'manage', ('done', 'failure',
                                  'cleaning failed: no BMC')),
    (states.INSPECTFAIL, 'manage', (
        'done', 'failure', 'went to state "inspect failed" while being '
        'prepared: no BMC')),
])
def test_prepare_takes_failed_nodes_back(state, request_, expected):
    _check(node_flow.prepare(node(state, 'no BMC'), request_), expected)


@pytest.mark.parametrize('state, verb, note', [
    (states.DEPLOYFAIL, 'deleted', 'taken back from state "deploy failed" '
     '(no BMC): undeploy requested (it is cleaned, then available)'),
    (states.ERROR, 'deleted', 'taken back from state "error" (no BMC): '
     'undeploy requested (it is cleaned, then available)'),
    (states.CLEANFAIL, 'manage', 'taken back from state "clean failed" '
     '(no BMC): manage requested (then provide: it is cleaned, then '
     'available)'),
    (states.INSPECTFAIL, 'manage', 'taken back from state "inspect '
     'failed" (no BMC): manage requested (then provide: it is cleaned, '
     'then available)'),
])
def test_the_way_back_says_what_and_from_where(state, verb, note):
    decision = node_flow.prepare(node(state, 'no BMC'), None)
    assert (decision.verb, decision.note) == (verb, note)
    assert node_flow.prepare(node(state), None).note.startswith(
        'taken back from state "%s": ' % state)


@pytest.mark.parametrize('state', sorted(node_flow.TAKE_BACK))
def test_a_failed_node_in_maintenance_is_not_taken_back(state):
    decision = node_flow.prepare(seam.NodeState(
        'u', state, 'boom', maintenance=True,
        maintenance_reason='clean step failed'), None)
    _check(decision, (
        'done', 'failure', 'not taken back from state "%s": the node is in '
        'maintenance (clean step failed); take it out of maintenance for '
        'the next action to retry it' % state))
    assert node_flow.prepare(seam.NodeState(
        'u', state, maintenance=True), None).reason.startswith(
        'not taken back from state "%s": the node is in maintenance; '
        % state)


def test_maintenance_alone_is_left_to_the_conductor():
    """Only the way back checks maintenance: another node's request is
    made, and the conductor refuses it if it must."""
    decision = node_flow.prepare(seam.NodeState(
        'u', states.ENROLL, maintenance=True), None)
    assert (decision.kind, decision.verb) == ('submit', 'manage')


def test_missing_node_fails():
    assert node_flow.prepare(None, None).reason == 'node no longer exists'
    assert node_flow.deploy(None, 'deploy').status == 'failure'


def test_error_is_left_out_when_there_is_none():
    assert node_flow.deploy(node(states.DEPLOYFAIL), 'deploy').reason == \
        'deploy failed'


def _check(decision, expected):
    kind = expected[0]
    assert decision.kind == kind
    if kind == 'submit':
        assert decision.verb == expected[1]
    elif kind == 'done':
        assert (decision.status, decision.reason) == expected[1:]
