"""The provision verbs without arguments (manage, provide, inspect,
adopt, unhold, unrescue, abort): which module carries each out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ironside.common import exception
from ironside.common import states
from ironside.conductor import cleaning
from ironside.conductor import deployments
from ironside.conductor import inspection
from ironside.conductor import power
from ironside.conductor import rescue
from ironside.conductor import step_flow
from ironside.conductor import utils

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager


def _manage(task: TaskManager, verb: str) -> None:
    if task.node.provision_state == states.ENROLL:
        power.start_verify(task, verb=verb)
    else:
        task.process_event('manage', verb=verb)


def _unhold(task: TaskManager, verb: str) -> None:
    task.check_transition('unhold', verb)
    flow = step_flow.hold_states()[task.node.provision_state or '']
    step_flow.unhold(task, flow, verb)


def abort(task: TaskManager, verb: str = 'abort') -> None:
    """Stop what a node waits in: a step flow (at once or after its
    step), an inspection or a rescue waiting for the agent."""
    node = task.node
    task.check_transition('abort', verb)
    state = node.provision_state or ''
    flow = step_flow.wait_states().get(state) or \
        step_flow.hold_states().get(state)
    if flow is not None:
        step_flow.abort(task, flow)
        return
    message = 'Aborted by request in state "%s"' % node.provision_state
    if node.provision_state == states.INSPECTWAIT:
        try:
            task.driver.inspect.abort(task)
        except Exception as exc:
            message += ' (ending the inspection failed: %s)' % \
                utils.describe(exc)
    elif node.provision_state == states.RESCUEWAIT:
        rescue.fail_rescue(task, message, utils.ABORTED, event='abort')
        return
    utils.set_failure(task, message, utils.ABORTED)
    task.process_event('abort', verb=verb)


ACTIONS: dict[str, Callable[[TaskManager, str], None]] = {
    'manage': _manage,
    'provide': lambda task, verb: cleaning.start_provide(task, verb=verb),
    'inspect': lambda task, verb: inspection.start_inspect(task, verb=verb),
    'adopt': lambda task, verb: deployments.start_adopt(task, verb=verb),
    'unhold': _unhold,
    'unrescue': lambda task, verb: rescue.start_unrescue(task, verb=verb),
    'abort': abort,
}


def act(task: TaskManager, action: str) -> None:
    try:
        start = ACTIONS[action]
    except KeyError:
        raise exception.InvalidParameterValue(
            err='Unsupported provision action %s' % action) from None
    start(task, action)
