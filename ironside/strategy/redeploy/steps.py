"""A redeploy_server action's steps, as its progress stores them and its
report shows them.

Stored under ``progress["redeploy"]``::

    {"node": "ctl01", "node_uuid": "...", "labels": ["ucp_control_plane"],
     "preserve_local_storage": false,
     "steps": {"drain-node": {"step": "drain-node", "state": "succeeded",
                              "status": {...status response...}},
               ...,
               "destroy": {"step": "destroy", "state": "running",
                           "request": "clean", "retired": true,
                           "wiped": false}},
     "status": {...the action's status response...} | null}

Each step is ``running`` while it runs and ``succeeded`` or ``failed``
with its status response when it ends: the decommission's own five
(:data:`..decommission.sequence.STEPS`), the decommission as a whole,
``destroy``, ``remove-from-cluster`` and ``redeploy``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ironside.strategy.decommission import sequence
from ironside.strategy.decommission import status as st

KEY = 'redeploy'

DECOMMISSION = 'decommission'
DESTROY = 'destroy'
REMOVE_FROM_CLUSTER = 'remove-from-cluster'
REDEPLOY = 'redeploy'
# The action's own steps, in order; the report also lists the
# decommission's, before them.
MAIN_STEPS = (DECOMMISSION, DESTROY, REMOVE_FROM_CLUSTER, REDEPLOY)
ALL_STEPS = sequence.STEPS + MAIN_STEPS

RUNNING = sequence.RUNNING
SUCCEEDED = sequence.SUCCEEDED
FAILED = sequence.FAILED
PENDING = 'pending'


def initial(node: str, node_uuid: str, labels: list[str],
            preserve_local_storage: bool) -> dict[str, Any]:
    return {'node': node, 'node_uuid': node_uuid, 'labels': list(labels),
            'preserve_local_storage': preserve_local_storage,
            'steps': {}, 'status': None}


def ended(step: str, status: st.Status, **fields: Any) -> dict[str, Any]:
    """A step's record once it ended with ``status``."""
    return dict(fields, step=step,
                state=SUCCEEDED if status.succeeded else FAILED,
                status=status.as_dict())


def status_of(record: Mapping[str, Any] | None) -> st.Status | None:
    if not record or not record.get('status'):
        return None
    return st.Status.from_dict(record['status'])


def overall(state: Mapping[str, Any], failed_step: str | None,
            failure: st.Status | None) -> st.Status:
    """The action's status response: the failing step's (its details
    listing every step of the action), or Success."""
    messages = []
    for step in MAIN_STEPS:
        status = status_of(state['steps'].get(step))
        if status is None:
            messages.append(st.Message('not run', name=step,
                                       kind=st.STEP_MESSAGE))
        else:
            messages.append(st.Message(
                '%s: %s' % (status.reason, status.message), name=step,
                error=not status.succeeded, kind=st.STEP_MESSAGE))
    node = state['node']
    if failure is None:
        return st.success('Node %s redeployed' % node, messages)
    return st.Status(failure.reason, 'redeploy_server of node %s failed at '
                     'step %s: %s' % (node, failed_step, failure.message),
                     failure.code, tuple(messages) + tuple(
                         m for m in failure.messages
                         if m.name not in MAIN_STEPS), failure.retry)


def result(status: st.Status, failed_step: str | None) -> str:
    """The action's result, as the site action list shows it."""
    if status.succeeded:
        return 'success'
    return 'failed: %s at step %s (%s %d)' % (
        'redeploy_server', failed_step, status.reason, status.code)


def report(state: Mapping[str, Any]) -> dict[str, Any]:
    """The report's ``redeploy`` section: every step in order, with its
    state and status response, and the action's status response."""
    listed = []
    for step in ALL_STEPS:
        record = state['steps'].get(step)
        entry = {'step': step, 'state': record['state'] if record
                 else PENDING, 'status': record.get('status')
                 if record else None}
        listed.append(entry)
    return {'node': state['node'], 'node_uuid': state['node_uuid'],
            'preserve_local_storage': state['preserve_local_storage'],
            'labels': list(state.get('labels') or ()),
            'steps': listed, 'status': state.get('status')}
