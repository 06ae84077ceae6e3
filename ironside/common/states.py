"""Provision and power states, and the one state machine every node lives by.

The names are the strings Ironic's clients see, so ``openstack baremetal``,
openstacksdk and Nova read them unchanged. The transition table follows
Ironic's: a client that knows which verbs Ironic accepts in which state
gets the same answers here.
"""

from __future__ import annotations

from automaton import exceptions as automaton_exc
from automaton import machines

from ironside.common.exception import InvalidTransition

# Provision states.
NOSTATE = None
ENROLL = 'enroll'
VERIFYING = 'verifying'
MANAGEABLE = 'manageable'
AVAILABLE = 'available'
ACTIVE = 'active'
DEPLOYING = 'deploying'
DEPLOYWAIT = 'wait call-back'
DEPLOYFAIL = 'deploy failed'
DEPLOYHOLD = 'deploy hold'
DELETING = 'deleting'
DELETED = 'deleted'
CLEANING = 'cleaning'
CLEANWAIT = 'clean wait'
CLEANFAIL = 'clean failed'
CLEANHOLD = 'clean hold'
ERROR = 'error'
REBUILD = 'rebuild'
INSPECTING = 'inspecting'
INSPECTWAIT = 'inspect wait'
INSPECTFAIL = 'inspect failed'
ADOPTING = 'adopting'
ADOPTFAIL = 'adopt failed'
RESCUING = 'rescuing'
RESCUEWAIT = 'rescue wait'
RESCUE = 'rescue'
RESCUEFAIL = 'rescue failed'
UNRESCUING = 'unrescuing'
UNRESCUEFAIL = 'unrescue failed'
SERVICING = 'servicing'
SERVICEWAIT = 'service wait'
SERVICEFAIL = 'service failed'
SERVICEHOLD = 'service hold'

# Power states and power targets.
POWER_ON = 'power on'
POWER_OFF = 'power off'
REBOOT = 'rebooting'
SOFT_REBOOT = 'soft rebooting'
SOFT_POWER_OFF = 'soft power off'
POWER_ERROR = 'error'

POWER_TARGETS = (POWER_ON, POWER_OFF, REBOOT, SOFT_REBOOT, SOFT_POWER_OFF)

# API verbs (the ``target`` of PUT /states/provision) to state machine
# events. ``active``/``deleted`` are the historical names of deploy/undeploy.
VERBS = {
    'active': 'deploy',
    'deploy': 'deploy',
    'deleted': 'delete',
    'undeploy': 'delete',
    'manage': 'manage',
    'provide': 'provide',
    'inspect': 'inspect',
    'abort': 'abort',
    'clean': 'clean',
    'adopt': 'adopt',
    'rescue': 'rescue',
    'unrescue': 'unrescue',
    'unhold': 'unhold',
    'service': 'service',
    'rebuild': 'rebuild',
}

STABLE_STATES = (ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, ERROR, RESCUE)

FAILURE_STATES = frozenset((DEPLOYFAIL, CLEANFAIL, INSPECTFAIL, ADOPTFAIL,
                            RESCUEFAIL, UNRESCUEFAIL, SERVICEFAIL, ERROR))

# States a worker thread is actively running in; if the conductor that runs
# them dies, nobody will finish them.
WORKING_STATES = frozenset((VERIFYING, DEPLOYING, CLEANING, DELETING,
                            INSPECTING, ADOPTING, RESCUING, UNRESCUING,
                            SERVICING))

# States in which a node waits for an asynchronous step to finish.
WAIT_STATES = frozenset((DEPLOYWAIT, CLEANWAIT, INSPECTWAIT, RESCUEWAIT,
                         SERVICEWAIT))

# Stable states in which an agent left running by [deploy]fast_track may
# look its node up and heartbeat (Ironic's FASTTRACK_LOOKUP_ALLOWED_STATES
# less the flows' own).
FAST_TRACK_STATES = frozenset((ENROLL, MANAGEABLE, AVAILABLE))

# Node fields other than the state machine's may only be updated in these.
UPDATE_ALLOWED_STATES = (ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, ERROR,
                         RESCUE, DEPLOYFAIL, CLEANFAIL, INSPECTFAIL,
                         ADOPTFAIL, RESCUEFAIL, UNRESCUEFAIL, SERVICEFAIL,
                         DEPLOYHOLD, CLEANHOLD, SERVICEHOLD)

DELETE_ALLOWED_STATES = (ENROLL, MANAGEABLE, AVAILABLE, ADOPTFAIL)

# Stable state each transitional state aims at; this becomes the node's
# target_provision_state while it is in that state.
TARGETS = {
    VERIFYING: MANAGEABLE,
    DEPLOYING: ACTIVE, DEPLOYWAIT: ACTIVE, DEPLOYFAIL: ACTIVE,
    DEPLOYHOLD: ACTIVE,
    CLEANING: AVAILABLE, CLEANWAIT: AVAILABLE, CLEANFAIL: AVAILABLE,
    CLEANHOLD: AVAILABLE,
    DELETING: AVAILABLE,
    INSPECTING: MANAGEABLE, INSPECTWAIT: MANAGEABLE, INSPECTFAIL: MANAGEABLE,
    ADOPTING: ACTIVE, ADOPTFAIL: ACTIVE,
    RESCUING: RESCUE, RESCUEWAIT: RESCUE, RESCUEFAIL: RESCUE,
    UNRESCUING: ACTIVE, UNRESCUEFAIL: ACTIVE,
    SERVICING: ACTIVE, SERVICEWAIT: ACTIVE, SERVICEFAIL: ACTIVE,
    SERVICEHOLD: ACTIVE,
}

# (from, event, to)
TRANSITIONS = (
    # Enrolment and verification.
    (ENROLL, 'manage', VERIFYING),
    (VERIFYING, 'done', MANAGEABLE),
    (VERIFYING, 'fail', ENROLL),
    # Cleaning: automated (provide) and manual (clean).
    (MANAGEABLE, 'provide', CLEANING),
    (MANAGEABLE, 'clean', CLEANING),
    (CLEANING, 'done', AVAILABLE),
    (CLEANING, 'manage', MANAGEABLE),
    (CLEANING, 'fail', CLEANFAIL),
    (CLEANING, 'wait', CLEANWAIT),
    (CLEANING, 'hold', CLEANHOLD),
    (CLEANWAIT, 'resume', CLEANING),
    (CLEANWAIT, 'fail', CLEANFAIL),
    (CLEANWAIT, 'abort', CLEANFAIL),
    (CLEANWAIT, 'hold', CLEANHOLD),
    (CLEANHOLD, 'unhold', CLEANWAIT),
    (CLEANHOLD, 'abort', CLEANFAIL),
    (CLEANFAIL, 'manage', MANAGEABLE),
    (AVAILABLE, 'manage', MANAGEABLE),
    # Deployment.
    (AVAILABLE, 'deploy', DEPLOYING),
    (DEPLOYING, 'wait', DEPLOYWAIT),
    (DEPLOYING, 'hold', DEPLOYHOLD),
    (DEPLOYING, 'done', ACTIVE),
    (DEPLOYING, 'fail', DEPLOYFAIL),
    (DEPLOYWAIT, 'resume', DEPLOYING),
    (DEPLOYWAIT, 'fail', DEPLOYFAIL),
    (DEPLOYWAIT, 'abort', DEPLOYFAIL),
    (DEPLOYWAIT, 'hold', DEPLOYHOLD),
    (DEPLOYWAIT, 'delete', DELETING),
    (DEPLOYHOLD, 'unhold', DEPLOYWAIT),
    (DEPLOYHOLD, 'abort', DEPLOYFAIL),
    (DEPLOYFAIL, 'deploy', DEPLOYING),
    (DEPLOYFAIL, 'rebuild', DEPLOYING),
    (DEPLOYFAIL, 'delete', DELETING),
    (ACTIVE, 'rebuild', DEPLOYING),
    (ERROR, 'rebuild', DEPLOYING),
    # Tear down.
    (ACTIVE, 'delete', DELETING),
    (ERROR, 'delete', DELETING),
    (DELETING, 'clean', CLEANING),
    (DELETING, 'fail', ERROR),
    # Inspection.
    (MANAGEABLE, 'inspect', INSPECTING),
    (INSPECTING, 'done', MANAGEABLE),
    (INSPECTING, 'fail', INSPECTFAIL),
    (INSPECTING, 'wait', INSPECTWAIT),
    (INSPECTWAIT, 'resume', INSPECTING),
    (INSPECTWAIT, 'done', MANAGEABLE),
    (INSPECTWAIT, 'fail', INSPECTFAIL),
    (INSPECTWAIT, 'abort', INSPECTFAIL),
    (INSPECTFAIL, 'manage', MANAGEABLE),
    (INSPECTFAIL, 'inspect', INSPECTING),
    # Adoption.
    (MANAGEABLE, 'adopt', ADOPTING),
    (ADOPTING, 'done', ACTIVE),
    (ADOPTING, 'fail', ADOPTFAIL),
    (ADOPTFAIL, 'adopt', ADOPTING),
    (ADOPTFAIL, 'manage', MANAGEABLE),
    # Rescue.
    (ACTIVE, 'rescue', RESCUING),
    (RESCUING, 'done', RESCUE),
    (RESCUING, 'wait', RESCUEWAIT),
    (RESCUING, 'fail', RESCUEFAIL),
    (RESCUEWAIT, 'resume', RESCUING),
    (RESCUEWAIT, 'fail', RESCUEFAIL),
    (RESCUEWAIT, 'abort', RESCUEFAIL),
    (RESCUEWAIT, 'delete', DELETING),
    (RESCUE, 'rescue', RESCUING),
    (RESCUE, 'unrescue', UNRESCUING),
    (RESCUE, 'delete', DELETING),
    (RESCUEFAIL, 'rescue', RESCUING),
    (RESCUEFAIL, 'unrescue', UNRESCUING),
    (RESCUEFAIL, 'delete', DELETING),
    (UNRESCUING, 'done', ACTIVE),
    (UNRESCUING, 'fail', UNRESCUEFAIL),
    (UNRESCUEFAIL, 'rescue', RESCUING),
    (UNRESCUEFAIL, 'unrescue', UNRESCUING),
    (UNRESCUEFAIL, 'delete', DELETING),
    # Servicing.
    (ACTIVE, 'service', SERVICING),
    (SERVICING, 'done', ACTIVE),
    (SERVICING, 'fail', SERVICEFAIL),
    (SERVICING, 'wait', SERVICEWAIT),
    (SERVICING, 'hold', SERVICEHOLD),
    (SERVICEWAIT, 'resume', SERVICING),
    (SERVICEWAIT, 'fail', SERVICEFAIL),
    (SERVICEWAIT, 'abort', SERVICEFAIL),
    (SERVICEWAIT, 'hold', SERVICEHOLD),
    (SERVICEWAIT, 'delete', DELETING),
    (SERVICEHOLD, 'service', SERVICING),
    (SERVICEHOLD, 'unhold', SERVICEWAIT),
    (SERVICEHOLD, 'fail', SERVICEFAIL),
    (SERVICEHOLD, 'abort', SERVICEFAIL),
    (SERVICEFAIL, 'service', SERVICING),
    (SERVICEFAIL, 'rescue', RESCUING),
    (SERVICEFAIL, 'abort', ACTIVE),
    (SERVICEFAIL, 'delete', DELETING),
)

ALL_STATES = frozenset([t[0] for t in TRANSITIONS] +
                       [t[2] for t in TRANSITIONS])


def _build_machine() -> machines.FiniteMachine:
    machine = machines.FiniteMachine()
    for state in sorted(ALL_STATES):
        machine.add_state(state)
    for start, event, end in TRANSITIONS:
        machine.add_transition(start, end, event)
    machine.default_start_state = ENROLL
    machine.freeze()
    return machine


_MACHINE = _build_machine()


class NodeStateMachine:
    """A node's position in the provision state machine.

    A thin wrapper so callers see (state, target) pairs and one exception
    type, rather than automaton's vocabulary.
    """

    def __init__(self, state: str | None) -> None:
        self._fsm = _MACHINE.copy(shallow=True)
        self._fsm.initialize(state or ENROLL)

    @property
    def state(self) -> str:
        current = self._fsm.current_state
        if current is None:  # __init__ initializes it
            raise RuntimeError('the state machine has no state')
        return current

    @property
    def target(self) -> str | None:
        return TARGETS.get(self.state)

    def can(self, event: str) -> bool:
        return self._fsm.is_actionable_event(event)

    def process(self, event: str) -> str:
        try:
            self._fsm.process_event(event)
        except automaton_exc.NotFound:
            raise InvalidTransition(self.state, event) from None
        return self.state


def next_state(state: str | None, event: str) -> str:
    """The state ``event`` leads to from ``state`` (InvalidTransition)."""
    return NodeStateMachine(state).process(event)


def allowed_events(state: str | None) -> set[str]:
    return {event for start, event, _ in TRANSITIONS
            if start == (state or ENROLL)}
