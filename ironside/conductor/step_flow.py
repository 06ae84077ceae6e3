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
when it is done, a :class:`~ironside.drivers.step_defs.Wait` when it goes on.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

from ironside.common import exception
from ironside.common import metrics
from ironside.common import states
from ironside.common.conf import CONF
from ironside.conductor import reserved_steps
from ironside.conductor import steps as steps_mod
from ironside.conductor import utils
from ironside.conductor.step_state import StepState
from ironside.db import models
from ironside.drivers import base
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)


class OnFail(Protocol):
    """What fails a flow: ``on_fail(task, message, reason, event)``."""

    def __call__(self, task: TaskManager, message: str, reason: str,
                 event: str = 'fail') -> None: ...


@dataclasses.dataclass(frozen=True)
class StepFlow:
    kind: str                       # step_defs.DEPLOY, CLEAN or SERVICE
    event_type: str                 # history event type
    # Called when the last step is done, with the lock held.
    on_done: Callable[[TaskManager], None]
    # Called with the lock held; event is 'abort' when a user aborted.
    on_fail: OnFail
    # Seconds a step may wait (0: for ever); read when checked.
    callback_timeout: Callable[[], int]
    # Whether a user's abort stops a waiting step at once (otherwise only
    # a step marked abortable; the others stop after the step).
    abort_waiting_step: bool = False
    # The flow's steps, computed again where the steps available change
    # (once the flow's preparation or a step that booted the agent ends).
    steps_for: Callable[[TaskManager], list[steps_mod.Step]] | None = None
    # Called before the first step (to boot a ramdisk, say), with the
    # lock held; if it raises, the flow fails before any step runs. A
    # Wait it returns holds the flow in its wait state, with no step yet,
    # until the deploy interface's poll_prepared says it is ready.
    prepare: Callable[[TaskManager], step_defs.Wait | None] | None = None

    @property
    def working_state(self) -> str:
        return step_defs.FLOW_STATES[self.kind][0]

    @property
    def wait_state(self) -> str:
        return step_defs.FLOW_STATES[self.kind][1]

    @property
    def hold_state(self) -> str:
        return HOLD_STATES[self.kind]

    @property
    def step_field(self) -> str:
        return '%s_step' % self.kind

    def execute(self, iface: base.BaseInterface, task: TaskManager,
                step: steps_mod.Step) -> step_defs.Wait | str | None:
        return iface.execute_step(task, self.kind,
                                  steps_mod.step_info(step))


_FLOWS: dict[str, StepFlow] = {}
HOLD_STATES = {step_defs.DEPLOY: states.DEPLOYHOLD,
               step_defs.CLEAN: states.CLEANHOLD,
               step_defs.SERVICE: states.SERVICEHOLD}


def register(flow: StepFlow) -> StepFlow:
    _FLOWS[flow.kind] = flow
    return flow


def flow_for(node: models.Node) -> StepFlow:
    return _FLOWS[step_defs.flow_of(node)]


def current_step(task: TaskManager, flow: StepFlow) -> steps_mod.Step:
    return dict(getattr(task.node, flow.step_field) or {})


def state_of(node: models.Node, flow: StepFlow) -> StepState:
    return StepState.of(node, flow.kind)


def clear_async_flags(node: models.Node, flow: StepFlow) -> None:
    state_of(node, flow).waiting_cleared().save_to(node)


def start(task: TaskManager, flow: StepFlow,
          step_list: list[steps_mod.Step]) -> None:
    """Prepare the node for the flow, store the step list and run it from
    the first step (or, if the preparation goes on, once it ended)."""
    setattr(task.node, flow.step_field, {})
    wait = None
    if flow.prepare is not None:
        try:
            wait = _wait_of(flow.prepare(task), flow)
        except Exception as exc:
            flow.on_fail(task, '%s preparation failed: %s'
                         % (flow.kind.capitalize(), utils.describe(exc)),
                         utils.reason_of(exc))
            return
    state = StepState(flow.kind, steps=step_list)
    if wait is None:
        state.save_to(task.node)
        run_steps(task, flow, 0)
        return
    _wait(task, flow, state, wait, 'preparation')


def _wait(task: TaskManager, flow: StepFlow, state: StepState,
          wait: step_defs.Wait, what: str) -> None:
    """Leave the flow waiting for ``what`` (a step's name)."""
    node = task.node
    task.record('%s %s is running asynchronously'
                % (flow.kind.capitalize(), what), flow.event_type)
    LOG.info('Node %s (%s) %s %s is running asynchronously', node.uuid,
             node.name, flow.kind, what)
    state = dataclasses.replace(state, polling=wait.poll,
                                poll_interval=wait.interval,
                                refresh_steps=wait.refresh_steps)
    state.save_to(node)
    # Written as the lock goes; a callback that comes sooner finds the
    # node locked and retries. The poll's interval and the watch start
    # once the node is free.
    task.process_event('wait', save=False)
    if wait.poll:
        poll_once_free(task, poll_interval(state))
    watch = wait.watch
    if watch is not None:
        conductor, node_uuid = task.conductor, node.uuid
        task.when_released(lambda: conductor.watch_step(node_uuid, watch))


def poll_once_free(task: TaskManager, delay: float) -> None:
    """Poll the task's node ``delay`` seconds after its lock is released
    (a poll while the lock is held finds the node locked and retries)."""
    conductor, node_uuid = task.conductor, task.node.uuid
    task.when_released(lambda: conductor.schedule_poll(node_uuid, delay))


def _wait_of(result: Any, flow: StepFlow) -> step_defs.Wait | None:
    """What a step's return value asks for; a plugin written before
    :class:`~ironside.drivers.step_defs.Wait` returns the flow's wait state,
    which waits for a callback."""
    if isinstance(result, step_defs.Wait):
        return result
    if result == flow.wait_state:
        return step_defs.Wait(poll=False)
    return None


def _stored_step(step: steps_mod.Step) -> steps_mod.Step:
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
            if reserved_steps.is_reserved(step):
                result = reserved_steps.execute(task, step)
            elif iface is None:
                raise exception.InvalidParameterValue(
                    err='node has no %s interface' % step['interface'])
            else:
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
        if result is reserved_steps.HOLD:
            _hold(task, flow, state, name)
            return
        wait = _wait_of(result, flow)
        if wait is not None:
            _wait(task, flow, state, wait, 'step %s' % name)
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
    interval: float = CONF.conductor.async_step_poll_interval
    return interval


def _hold(task: TaskManager, flow: StepFlow, state: StepState,
          name: str) -> None:
    """A ``hold`` step: the flow stays in its hold state until a user's
    ``unhold`` (which resumes after it) or ``abort``."""
    dataclasses.replace(state, step_finished=True).save_to(task.node)
    task.record('%s held by step %s; "unhold" goes on'
                % (flow.kind.capitalize(), name), flow.event_type)
    task.process_event('hold', save=False)


def _refreshed(task: TaskManager, flow: StepFlow, state: StepState,
               step: steps_mod.Step) -> tuple[StepState, int] | None:
    """The flow's steps computed again, and the index of ``step`` (or,
    with no step, -1: the flow starts). None if that failed (the flow is
    failed already)."""
    try:
        if flow.steps_for is None:
            raise exception.IronsideException(
                'the %s flow cannot compute its steps again' % flow.kind)
        step_list = flow.steps_for(task)
    except Exception as exc:
        flow.on_fail(task, 'Could not compute the %s steps: %s'
                     % (flow.kind, utils.describe(exc)),
                     utils.reason_of(exc))
        return None
    index = -1
    if step:
        keys = [(s.get('interface'), s.get('step')) for s in step_list]
        key = (step.get('interface'), step.get('step'))
        if key not in keys:
            flow.on_fail(task, 'Step %s is no longer among the %s steps '
                         'of the node' % (steps_mod.step_name(step),
                                          flow.kind), utils.INTERNAL_ERROR)
            return None
        index = keys.index(key)
    LOG.info('Node %s (%s) %s steps now: %s', task.node.uuid,
             task.node.name, flow.kind,
             ', '.join(steps_mod.step_name(s) for s in step_list))
    return dataclasses.replace(state, steps=step_list, index=index), index


def resume(task: TaskManager, flow: StepFlow) -> None:
    """Continue after the asynchronous step finished (callback or poll),
    or after the flow's preparation finished.

    The node is in the flow's wait state and the lock is held.
    """
    node = task.node
    state = state_of(node, flow)
    step = current_step(task, flow)
    name = steps_mod.step_name(step)
    skip = state.step_finished is not False
    index = state.index
    # A step that is run again keeps the steps it started with.
    if index is None or (state.refresh_steps and skip):
        refreshed = _refreshed(task, flow, state,
                               step if index is not None else {})
        if refreshed is None:
            return
        state, index = refreshed
        if index < 0:
            task.record('%s preparation finished'
                        % flow.kind.capitalize(), flow.event_type)
            state.waiting_cleared().save_to(node)
            task.process_event('resume', save=False)
            run_steps(task, flow, 0)
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
    preparing = state_of(task.node, flow).index is None
    try:
        if preparing:
            return bool(task.driver.deploy.poll_prepared(task, flow.kind))
        if reserved_steps.is_reserved(step):
            return True
        iface = task.driver.interfaces.get(step.get('interface') or '')
        if iface is None:
            raise exception.InvalidParameterValue(
                err='node has no %s interface' % step.get('interface'))
        return bool(iface.poll_async_step(task, steps_mod.step_info(step)))
    except Exception as exc:
        what = 'preparation' if preparing else \
            'step %s' % steps_mod.step_name(step)
        LOG.info('Node %s (%s) %s %s failed: %s', task.node.uuid,
                 task.node.name, flow.kind, what, utils.describe(exc))
        if not preparing:
            metrics.step_finished(flow.kind, step, 'failed',
                                  since=task.node.provision_updated_at)
        flow.on_fail(task, '%s %s failed: %s'
                     % (flow.kind.capitalize(), what, utils.describe(exc)),
                     utils.reason_of(exc))
        return None


def poll_and_resume(task: TaskManager, flow: StepFlow) -> None:
    """Ask whether the waiting step (or preparation) finished; go on if it
    did, ask again later if not. The lock is held."""
    done = poll(task, flow)
    if done:
        resume(task, flow)
    elif done is False:
        poll_once_free(task, poll_interval(state_of(task.node, flow)))


def abort(task: TaskManager, flow: StepFlow) -> None:
    """Abort a waiting flow at once, or after its current step.

    At once when the flow allows it (deploy waits always may) or the step
    is abortable; otherwise after the step.
    """
    step = current_step(task, flow)
    name = steps_mod.step_name(step)
    held = task.node.provision_state == flow.hold_state
    if flow.abort_waiting_step or step.get('abortable') or not step or held:
        clear_async_flags(task.node, flow)
        what = ('held after step %s' % name) if held else \
            ('while step %s was running' % name) if step else \
            'while it was being prepared'
        utils.set_failure(
            task, '%s aborted by request %s'
            % (flow.event_type.capitalize(), what), utils.ABORTED)
        flow.on_fail(task, task.node.last_error or '', utils.ABORTED,
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
    what = ('%s step %s to finish' % (flow.kind, steps_mod.step_name(step))
            if step else 'the %s preparation (booting the agent) to finish'
            % flow.kind)
    flow.on_fail(task, 'Timeout reached while waiting for %s (%ss)'
                 % (what, timeout), utils.STEP_TIMEOUT)


def fail_step_flow(task: TaskManager, flow: StepFlow, message: str,
                   reason: str, event: str = 'fail',
                   target_state: str | None = None) -> None:
    """The common part of a flow failing: error, flags, state."""
    node = task.node
    dataclasses.replace(state_of(node, flow).waiting_cleared(),
                        abort_after_step=False).save_to(node)
    if node.last_error != message:
        utils.set_failure(task, message, reason, flow.event_type)
    if node.provision_state in (flow.working_state, flow.wait_state,
                                flow.hold_state) and task.fsm.can(event):
        task.process_event(event, target_state=target_state)
    else:
        task.save()


def unhold(task: TaskManager, flow: StepFlow, verb: str = 'unhold'
           ) -> None:
    """A held flow goes on after its hold step (in a worker)."""
    task.record('%s goes on after its hold' % flow.kind.capitalize(),
                flow.event_type)
    task.process_event('unhold', callback=resume, call_args=(flow,),
                       verb=verb)


def hold_states() -> dict[str, StepFlow]:
    return {flow.hold_state: flow for flow in _FLOWS.values()}


def wait_states() -> dict[str, StepFlow]:
    return {flow.wait_state: flow for flow in _FLOWS.values()}


def working_states() -> dict[str, StepFlow]:
    return {flow.working_state: flow for flow in _FLOWS.values()}

