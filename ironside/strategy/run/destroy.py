"""Destroying the server of a redeploy_server action: what to do next,
given the node's state and the step's record.

In order, through the node's own hardware interfaces (the seam's
requests, as an operator's would be):

1. out of service: the node is retired (an ``available`` or ``enroll``
   node is first brought to ``manageable``, where retiring is allowed), so
   that once torn down it stays ``manageable`` and nothing schedules it;
2. undeployed (``active`` → deleting → cleaning → ``manageable``);
3. its local storage wiped by manual cleaning with the
   ``management.wipe_local_storage`` clean step: every disk, or only the
   OS disk with ``preserve-local-storage`` (fake-hardware records which
   disks; Redfish erases drives where the BMC offers it);
4. powered off.

Like :mod:`.node_flow`, the decision depends only on the node's state
and on the request last recorded, so a conductor that takes the action
over waits for a transition in flight and never asks for it again. A
request is recorded once it was accepted: a conductor that died between
the two asks again, which for the wipe means wiping disks already wiped
(no further effect) and never skipping it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ironside.common import states
from ironside.drivers.modules import local_storage
from ironside.strategy.nodes import seam

WAIT = 'wait'
SUBMIT = 'submit'
NOTE = 'note'
DONE = 'done'
FAIL = 'fail'

RETIRE = 'retire'

_MOVING = frozenset((states.VERIFYING, states.DELETING, states.CLEANING,
                     states.CLEANWAIT, states.CLEANHOLD))
_DEPLOYED = frozenset((states.ACTIVE, states.DEPLOYFAIL, states.ERROR))


@dataclasses.dataclass(frozen=True)
class Move:
    kind: str
    # SUBMIT: the request (a seam verb, or RETIRE).
    verb: str | None = None
    # NOTE: what the record now says.
    updates: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # FAIL: why.
    reason: str | None = None


def clean_steps(preserve_local_storage: bool) -> list[dict[str, Any]]:
    return [{'interface': 'management', 'step': local_storage.STEP,
             'args': {'preserve_local_storage': preserve_local_storage}}]


def _error(what: str, node: seam.NodeState) -> str:
    return '%s: %s' % (what, node.last_error) if node.last_error else what


def decide(node: seam.NodeState | None, record: Mapping[str, Any]) -> Move:
    """The next move of the destroy step (see the module doc)."""
    if node is None:
        return Move(FAIL, reason='the node no longer exists')
    state = node.provision_state
    request = record.get('request')
    if state in _MOVING:
        return Move(WAIT)
    if state == states.CLEANFAIL:
        return Move(FAIL, reason=_error('cleaning failed', node))
    if not record.get('retired'):
        if state in (states.AVAILABLE, states.ENROLL):
            if request == seam.MANAGE:
                return Move(FAIL, reason=_error(
                    'did not become manageable', node))
            return Move(SUBMIT, verb=seam.MANAGE)
        return Move(SUBMIT, verb=RETIRE)
    if state in _DEPLOYED:
        if request == seam.TEARDOWN and state == states.ERROR:
            return Move(FAIL, reason=_error('undeploying failed', node))
        return Move(SUBMIT, verb=seam.TEARDOWN)
    if state != states.MANAGEABLE:
        return Move(FAIL, reason='can not destroy a node in state "%s"'
                    % state)
    if not record.get('wiped'):
        if request == seam.CLEAN:
            return Move(NOTE, updates={'wiped': True, 'request': None})
        return Move(SUBMIT, verb=seam.CLEAN)
    if node.power_state != states.POWER_OFF:
        if request == seam.POWER_OFF:
            return Move(WAIT)
        return Move(SUBMIT, verb=seam.POWER_OFF)
    return Move(DONE)


def submit(nodes: seam.NodeBackend, uuid: str, verb: str,
           preserve_local_storage: bool, reason: str) -> dict[str, Any]:
    """Make the request (Busy, Rejected); what the record now says."""
    if verb == seam.MANAGE:
        nodes.start_prepare(uuid, seam.MANAGE)
    elif verb == RETIRE:
        nodes.set_retired(uuid, True, reason)
        return {'retired': True, 'request': None}
    elif verb == seam.TEARDOWN:
        nodes.start_teardown(uuid)
    elif verb == seam.CLEAN:
        nodes.start_clean(uuid, clean_steps(preserve_local_storage))
    elif verb == seam.POWER_OFF:
        nodes.power_off(uuid)
    else:
        raise ValueError('unknown destroy request %r' % verb)
    return {'request': verb}
