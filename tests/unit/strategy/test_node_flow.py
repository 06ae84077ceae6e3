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
    (states.DEPLOYFAIL, None, (
        'done', 'failure', 'can not prepare a node in state "deploy '
        'failed"; bring it to manageable or available first')),
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
