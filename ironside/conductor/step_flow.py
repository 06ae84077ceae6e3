"""The one step engine: runs deploy, clean and service steps alike.

A :class:`StepFlow` describes what differs between deploying, cleaning
and servicing (field names, states, what to do at the end and on
failure, how long a wait may last, whether a waiting step may be
aborted); everything else — recording the current step, running it,
waiting for asynchronous ones, resuming, aborting, failing, timing out,
taking over — is here once, and the manager and the periodic tasks ask
the registry instead of branching on the kind of flow.

Before each step the node records the step (``deploy_step`` /
``clean_step`` / ``service_step``) and the flow's control state (the
step list, the step's index, what a waiting step asked for: a
:class:`~.step_state.StepState`), so any conductor can report it or
resume after it. A step says what it wants by what it returns: None
when it is done, a :class:`~ironside.drivers.base.Wait` when it goes on.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common import metrics
from ironside.common.conf import CONF
from ironside.conductor import steps as steps_mod
from ironside.conductor import utils
from ironside.conductor.step_state import StepState
from ironside.db import models
from ironside.drivers import base

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class StepFlow:
    kind: str                       # base.DEPLOY, CLEAN or SERVICE
    event_type: str                 # history event type
    # Called when the last step is done, with the lock held.
    on_done: Callable
    # Called as on_fail(task, message, reason, event='fail') with the lock
    # held; event is 'abort' when a user aborted.
    on_fail: Callable
    # Seconds a step may wait (0: for ever); read when checked.
    callback_timeout: Callable[[], int]
    # Whether a user's abort stops a waiting step at once (otherwise only
    # a step marked abortable; the others stop after the step).
    abort_waiting_step: bool = False
    # Called before the first step (to boot a ramdisk, say), with the
    # lock held; if it raises, the flow fails before any step runs.
    prepare: Callable[[TaskManager], None] | None = None

    @property
    def working_state(self) -> str:
        return base.FLOW_STATES[self.kind][0]

    @property
    def wait_state(self) -> str:
        return base.FLOW_STATES[self.kind][1]

    @property
    def step_field(self) -> str:
        return '%s_step' % self.kind

    def execute(self, iface: base.BaseInterface, task: TaskManager,
                step: dict) -> base.Wait | str | None:
        return iface.execute_step(task, self.kind, step)


_FLOWS: dict[str, StepFlow] = {}


def register(flow: StepFlow) -> StepFlow:
    _FLOWS[flow.kind] = flow
    return flow


def flow_for(node: models.Node) -> StepFlow:
    return _FLOWS[base.flow_of(node)]


def current_step(task: TaskManager, flow: StepFlow) -> dict:
    return dict(getattr(task.node, flow.step_field) or {})


def state_of(node: models.Node, flow: StepFlow) -> StepState:
    return StepState.of(node, flow.kind)


def clear_async_flags(node: models.Node, flow: StepFlow) -> None:
    state_of(node, flow).waiting_cleared().save_to(node)


def start(task: TaskManager, flow: StepFlow, step_list: list[dict]) -> None:
    """Prepare the node for the flow, store the step list and run it from
    the first step."""
    if flow.prepare is not None:
        try:
            flow.prepare(task)
        except Exception as exc:
            flow.on_fail(task, '%s preparation failed: %s'
                         % (flow.kind.capitalize(), utils.describe(exc)),
                         utils.reason_of(exc))
            return
    StepState(flow.kind, steps=step_list).save_to(task.node)
    setattr(task.node, flow.step_field, {})
    run_steps(task, flow, 0)


def _wait_of(result: Any, flow: StepFlow) -> base.Wait | None:
    """What a step's return value asks for; a plugin written before
    :class:`~ironside.drivers.base.Wait` returns the flow's wait state,
    which waits for a callback."""
    if isinstance(result, base.Wait):
        return result
    if result == flow.wait_state:
        return base.Wait(poll=False)
    return None


def _stored_step(step: dict) -> dict:
    """The step as recorded in node.deploy_step: without its argsinfo."""
    return {k: v for k, v in step.items() if k != 'argsinfo'}


def run_steps(task: TaskManager, flow: StepFlow, start_index: int) -> None:
    """Run steps from ``start_index`` until one waits, fails or all end."""
    node = task.node
    state = state_of(node, flow).waiting_cleared()
    step_list = state.steps or []
    for index in range(start_index, len(step_list)):
        step = step_list[index]
        name = steps_mod.step_name(step)
        setattr(node, flow.step_field, _stored_step(step))
        state = dataclasses.replace(state.waiting_cleared(), index=index)
        state.save_to(node)
        task.record('%s step %s started' % (flow.kind.capitalize(), name),
                    flow.event_type)
        LOG.info('Node %s (%s) %s step %s started', node.uuid, node.name,
                 flow.kind, name)
        task.save()
        iface = task.driver.interfaces.get(step['interface'])
        started = time.monotonic()
        try:
            if iface is None:
                raise exception.InvalidParameterValue(
                    err='node has no %s interface' % step['interface'])
            result = flow.execute(iface, task, step)
        except Exception as exc:
            LOG.info('Node %s (%s) %s step %s failed: %s', node.uuid,
                     node.name, flow.kind, name, utils.describe(exc),
                     exc_info=not isinstance(
                         exc, exception.IronsideException))
            metrics.step_finished(flow.kind, step, 'failed',
                                  time.monotonic() - started)
            flow.on_fail(task, '%s step %s failed: %s'
                         % (flow.kind.capitalize(), name,
                            utils.describe(exc)), utils.reason_of(exc))
            return
        wait = _wait_of(result, flow)
        if wait is not None:
            task.record('%s step %s is running asynchronously'
                        % (flow.kind.capitalize(), name), flow.event_type)
            LOG.info('Node %s (%s) %s step %s is running asynchronously',
                     node.uuid, node.name, flow.kind, name)
            state = dataclasses.replace(state, polling=wait.poll,
                                        poll_interval=wait.interval)
            state.save_to(node)
            # Written as the lock goes; a poll or callback that comes
            # sooner finds the node locked and retries.
            task.process_event('wait', save=False)
            if wait.poll:
                task.conductor.schedule_poll(node.uuid, poll_interval(state))
            return
        if result is not None:
            flow.on_fail(task, '%s step %s returned %r; a step returns '
                         'None or a Wait' % (
                             flow.kind.capitalize(), name, result),
                         utils.INTERNAL_ERROR)
            return
        task.record('%s step %s finished in %.2fs'
                    % (flow.kind.capitalize(), name,
                       time.monotonic() - started), flow.event_type)
        LOG.info('Node %s (%s) %s step %s finished in %.2fs', node.uuid,
                 node.name, flow.kind, name, time.monotonic() - started)
        metrics.step_finished(flow.kind, step, 'success',
                              time.monotonic() - started)
    setattr(node, flow.step_field, {})
    state.cleared().save_to(node)
    flow.on_done(task)


def poll_interval(state: StepState) -> float:
    """Seconds until a polled step is asked again."""
    if state.poll_interval is not None:
        return state.poll_interval
    return CONF.conductor.async_step_poll_interval


def resume(task: TaskManager, flow: StepFlow) -> None:
    """Continue after the asynchronous step finished (callback or poll).

    The node is in the flow's wait state and the lock is held.
    """
    node = task.node
    state = state_of(node, flow)
    step = current_step(task, flow)
    name = steps_mod.step_name(step)
    skip = state.step_finished is not False
    index = state.index
    if index is None:
        flow.on_fail(task, 'Cannot resume %s: no step was running'
                     % flow.event_type, utils.INTERNAL_ERROR)
        return
    state = state.waiting_cleared()
    state.save_to(node)
    if skip:
        task.record('%s step %s finished' % (flow.kind.capitalize(), name),
                    flow.event_type)
        LOG.info('Node %s (%s) %s step %s finished', node.uuid, node.name,
                 flow.kind, name)
        metrics.step_finished(flow.kind, step, 'success',
                              since=node.provision_updated_at)
    # Saved with the next step's start (or the failure or the end).
    task.process_event('resume', save=False)
    if skip and state.abort_after_step:
        _abort_after_step(task, flow, name)
        return
    run_steps(task, flow, index + 1 if skip else index)


def poll(task: TaskManager, flow: StepFlow) -> bool | None:
    """Ask the driver whether the waiting step finished.

    Returns True if it did (the caller resumes), False if it still runs,
    None if the step failed (the node is failed already).
    """
    step = current_step(task, flow)
    iface = task.driver.interfaces.get(step.get('interface'))
    try:
        return bool(iface.poll_async_step(task, step))
    except Exception as exc:
        LOG.info('Node %s (%s) %s step %s failed: %s', task.node.uuid,
                 task.node.name, flow.kind, steps_mod.step_name(step),
                 utils.describe(exc))
        metrics.step_finished(flow.kind, step, 'failed',
                              since=task.node.provision_updated_at)
        flow.on_fail(task, '%s step %s failed: %s'
                     % (flow.kind.capitalize(), steps_mod.step_name(step),
                        utils.describe(exc)), utils.reason_of(exc))
        return None


def abort(task: TaskManager, flow: StepFlow) -> None:
    """Abort a waiting flow at once, or after its current step.

    At once when the flow allows it (deploy waits always may) or the step
    is abortable; otherwise after the step.
    """
    step = current_step(task, flow)
    name = steps_mod.step_name(step)
    if flow.abort_waiting_step or step.get('abortable'):
        clear_async_flags(task.node, flow)
        utils.set_failure(
            task, '%s aborted by request while step %s was running'
            % (flow.event_type.capitalize(), name), utils.ABORTED)
        flow.on_fail(task, task.node.last_error, utils.ABORTED,
                     event='abort')
        return
    state = state_of(task.node, flow)
    dataclasses.replace(state, abort_after_step=True).save_to(task.node)
    task.record('Abort requested; %s will stop after step %s'
                % (flow.event_type, name), flow.event_type)
    task.save()


def _abort_after_step(task: TaskManager, flow: StepFlow, name: str) -> None:
    state = state_of(task.node, flow)
    dataclasses.replace(state, abort_after_step=False).save_to(task.node)
    flow.on_fail(task, '%s aborted by request after step %s'
                 % (flow.event_type.capitalize(), name), utils.ABORTED)


def timed_out(task: TaskManager, flow: StepFlow, timeout: int) -> None:
    step = current_step(task, flow)
    flow.on_fail(task, 'Timeout reached while waiting for %s step %s to '
                 'finish (%ss)' % (flow.kind, steps_mod.step_name(step),
                                   timeout), utils.STEP_TIMEOUT)


def fail_step_flow(task: TaskManager, flow: StepFlow, message: str,
                   reason: str, event: str = 'fail',
                   target_state: str | None = None) -> None:
    """The common part of a flow failing: error, flags, state."""
    node = task.node
    dataclasses.replace(state_of(node, flow).waiting_cleared(),
                        abort_after_step=False).save_to(node)
    if node.last_error != message:
        utils.set_failure(task, message, reason, flow.event_type)
    if node.provision_state in (flow.working_state, flow.wait_state) and \
            task.fsm.can(event):
        task.process_event(event, target_state=target_state)
    else:
        task.save()


def wait_states() -> dict[str, StepFlow]:
    return {flow.wait_state: flow for flow in _FLOWS.values()}


def working_states() -> dict[str, StepFlow]:
    return {flow.working_state: flow for flow in _FLOWS.values()}

