"""The provision state machine matches what Ironic's clients expect."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.common import states


@pytest.mark.parametrize('start, event, end', [
    (states.ENROLL, 'manage', states.VERIFYING),
    (states.MANAGEABLE, 'provide', states.CLEANING),
    (states.AVAILABLE, 'deploy', states.DEPLOYING),
    (states.DEPLOYING, 'wait', states.DEPLOYWAIT),
    (states.DEPLOYWAIT, 'resume', states.DEPLOYING),
    (states.DEPLOYWAIT, 'abort', states.DEPLOYFAIL),
    (states.ACTIVE, 'delete', states.DELETING),
    (states.DELETING, 'clean', states.CLEANING),
    (states.CLEANWAIT, 'abort', states.CLEANFAIL),
    (states.CLEANFAIL, 'manage', states.MANAGEABLE),
    (states.ACTIVE, 'rebuild', states.DEPLOYING),
])
def test_ironic_transitions(start, event, end):
    assert states.next_state(start, event) == end


def test_illegal_event_is_refused():
    with pytest.raises(exception.InvalidTransition):
        states.next_state(states.ENROLL, 'deploy')


def test_client_visible_names():
    assert states.DEPLOYWAIT == 'wait call-back'
    assert states.CLEANWAIT == 'clean wait'
    assert states.VERBS['active'] == 'deploy'
    assert states.VERBS['deleted'] == 'delete'


def test_every_transitional_state_has_a_target():
    transitional = states.ALL_STATES - set(states.STABLE_STATES)
    assert transitional <= set(states.TARGETS)
