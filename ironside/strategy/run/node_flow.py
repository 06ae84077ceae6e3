"""What to do next with one node in a phase, given its provision state.

Prepare brings a node to ``available``: ``manage`` from ``enroll``, then
``provide`` from ``manageable`` (which cleans it, as the conductor is
configured to). A node already ``available`` is prepared as it is, and
one already ``active`` counts as a success and is never redeployed.
Deploy brings an ``available`` node to ``active``.

A node an earlier action (or anything else) left failed is taken back,
as Airship's prepare phase does, so that running the action again
retries it: from ``deploy failed`` (or ``error``, a failed undeploy) it
is undeployed, which cleans it and leaves it ``available``; from
``clean failed`` or ``inspect failed`` it is managed, then provided
(cleaned). Each way back is tried once per action: a node that fails on
it fails as any other. A failed node in maintenance is not taken back
(Ironside, as Ironic, puts a node whose clean step failed in
maintenance; an operator clears it): it fails with the reason, and the
group's success criteria judge it.

The decision depends only on the node's state and on the last request
made for it in this phase, so a runner that takes an action over from a
dead conductor decides the same from the database alone: nodes in a
transitional state are waited for, never asked again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ironside.common import states
from ironside.common.conf import CONF
from ironside.db import site_models
from ironside.strategy.nodes import seam

PREPARE = 'prepare'
DEPLOY = 'deploy'
# The third phase of a group: its nodes run their tasks (task_flow).
TASKS = 'tasks'
PHASES = (PREPARE, DEPLOY, TASKS)

WAIT = 'wait'
SUBMIT = 'submit'
DONE = 'done'

_PREPARE_WAIT = frozenset((states.VERIFYING, states.DELETING,
                           states.CLEANING, states.CLEANWAIT,
                           states.CLEANHOLD))
_DEPLOY_WAIT = frozenset((states.DEPLOYING, states.DEPLOYWAIT,
                          states.DEPLOYHOLD))


@dataclasses.dataclass(frozen=True)
class Decision:
    kind: str
    # DONE: the node's new status, and why it failed.
    status: str | None = None
    reason: str | None = None
    # SUBMIT: the request to make; for a node taken back from a failed
    # state, what the action's log says of it once the request is made.
    verb: str | None = None
    note: str | None = None


# Failed states prepare takes a node back from: the request that starts
# the way back, and where that way goes.
TAKE_BACK = {
    states.DEPLOYFAIL: seam.TEARDOWN,
    states.ERROR: seam.TEARDOWN,
    states.CLEANFAIL: seam.MANAGE,
    states.INSPECTFAIL: seam.MANAGE,
}
_WAY_BACK = {
    seam.TEARDOWN: 'undeploy requested (it is cleaned, then available)',
    seam.MANAGE: 'manage requested (then provide: it is cleaned, then '
                 'available)',
}


def _failed(reason: str) -> Decision:
    return Decision(DONE, status=site_models.FAILURE, reason=reason)


def _error(what: str, node: seam.NodeState) -> str:
    return '%s: %s' % (what, node.last_error) if node.last_error else what


def _settled(node: seam.NodeState | None,
             waiting: frozenset[str]) -> Decision | None:
    """What both phases decide alike: gone, active, or still moving."""
    if node is None:
        return _failed('node no longer exists')
    if node.provision_state == states.ACTIVE:
        return Decision(DONE, status=site_models.SUCCESS)
    if node.provision_state in waiting:
        return Decision(WAIT)
    return None


def _unexpected(node: seam.NodeState, request: str | None, phase: str,
                hint: str = '') -> Decision:
    if request is None:
        return _failed('can not %s a node in state "%s"%s'
                       % (phase, node.provision_state, hint))
    return _failed(_error('went to state "%s" while being %sed'
                          % (node.provision_state, phase.rstrip('e')),
                          node))


def take_back(node: seam.NodeState) -> Decision:
    """The first request that brings a failed node back to
    ``available``, or why it is not taken back."""
    state = node.provision_state
    if node.maintenance:
        return _failed(
            'not taken back from state "%s": the node is in maintenance%s; '
            'take it out of maintenance for the next action to retry it'
            % (state, ' (%s)' % node.maintenance_reason
               if node.maintenance_reason else ''))
    verb = TAKE_BACK[str(state)]
    return Decision(SUBMIT, verb=verb, note='taken back from state "%s"%s: '
                    '%s' % (state, ' (%s)' % node.last_error
                            if node.last_error else '', _WAY_BACK[verb]))


def prepare(node: seam.NodeState | None, request: str | None) -> Decision:
    settled = _settled(node, _PREPARE_WAIT)
    if settled is not None:
        return settled
    assert node is not None  # _settled answers for a node gone
    state = node.provision_state
    if state == states.AVAILABLE:
        return Decision(DONE, status=site_models.PREPARED)
    if state in TAKE_BACK and request is None:
        return take_back(node)
    if state == states.ENROLL:
        if request == seam.MANAGE:
            return _failed(_error('verification failed', node))
        return Decision(SUBMIT, verb=seam.MANAGE)
    if state == states.MANAGEABLE:
        if request == seam.PROVIDE:
            return _failed(_error('returned to manageable instead of '
                                  'becoming available', node))
        return Decision(SUBMIT, verb=seam.PROVIDE)
    if state == states.CLEANFAIL:
        return _failed(_error('cleaning failed', node))
    if state == states.ERROR and request == seam.TEARDOWN:
        return _failed(_error('undeploying failed', node))
    return _unexpected(node, request, PREPARE, '; bring it to manageable '
                       'or available first')


def deploy(node: seam.NodeState | None, request: str | None) -> Decision:
    settled = _settled(node, _DEPLOY_WAIT)
    if settled is not None:
        return settled
    assert node is not None  # _settled answers for a node gone
    state = node.provision_state
    if state == states.AVAILABLE and request is None:
        return Decision(SUBMIT, verb=seam.DEPLOY)
    if state == states.DEPLOYFAIL:
        return _failed(_error('deploy failed', node))
    return _unexpected(node, request, DEPLOY)


# Pause between reads of node states while they change; doubles up to
# [site]node_poll_interval while nothing changes. Fake hardware finishes
# a step in milliseconds, so the shortest pause is short, but not so
# short that the runner takes CPU from the conductor it lives in.
MIN_POLL_DELAY = 0.02


@dataclasses.dataclass
class NodeRecord:
    """A node's row of the action (its status, the phase it is in flight
    in, its last request), as the runner keeps it between writes."""

    id: int
    uuid: str
    name: str
    status: str
    phase: str | None
    request: str | None
    reason: str | None

    def row(self) -> dict[str, Any]:
        return {'id': self.id, 'status': self.status, 'phase': self.phase,
                'request': self.request, 'reason': self.reason}


def timeout(phase: str) -> int | None:
    """How long a group's phase may take (a task has its own)."""
    seconds: int | None = None  # [site] options are IntOpts
    if phase == PREPARE:
        seconds = CONF.site.prepare_timeout
    elif phase == DEPLOY:
        seconds = CONF.site.deploy_timeout
    return seconds


DECIDE = {PREPARE: prepare, DEPLOY: deploy}

# Statuses that end a node's part in a phase.
FINISHED = {
    PREPARE: frozenset((site_models.PREPARED, site_models.SUCCESS,
                        site_models.FAILURE)),
    DEPLOY: frozenset((site_models.SUCCESS, site_models.FAILURE)),
}

# Statuses that count as successful when a phase is judged.
SUCCESSFUL = {
    PREPARE: frozenset((site_models.PREPARED, site_models.SUCCESS)),
    DEPLOY: frozenset((site_models.SUCCESS,)),
    TASKS: frozenset((site_models.SUCCESS,)),
}

# Statuses a node must have to take part in a phase.
ELIGIBLE = {
    PREPARE: site_models.NOT_STARTED,
    DEPLOY: site_models.PREPARED,
    TASKS: site_models.SUCCESS,
}
