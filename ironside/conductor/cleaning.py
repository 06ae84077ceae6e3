"""Cleaning: automated (on provide and after tear down) and manual.

Automated cleaning runs every clean step with a priority above 0 and
ends in ``available``; manual cleaning runs the steps the user gave and
ends in ``manageable``. A failed clean step leaves ``clean failed`` with
``clean_step`` naming the step, and puts the node into maintenance with
fault ``clean failure``, as Ironic does, so that nothing deploys onto a
half-cleaned machine; an abort by request leaves ``clean failed`` only.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ironside.common import states
from ironside.common.conf import CONF
from ironside.conductor import caps
from ironside.conductor import firmware
from ironside.conductor import retirement
from ironside.conductor import step_flow
from ironside.conductor import steps
from ironside.conductor import utils
from ironside.db import models
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

CLEAN_VALIDATION = ('power', 'management')


def _manual(node: models.Node) -> bool:
    return node.target_provision_state == states.MANAGEABLE


def _tear_down_cleaning(task: TaskManager) -> None:
    try:
        task.driver.deploy.tear_down_cleaning(task)
    except Exception as exc:
        LOG.warning('Tear down of cleaning failed on node %s: %s',
                    task.node.uuid, exc)


def _clean_done(task: TaskManager) -> None:
    manual = _manual(task.node)
    steps.keep_user_steps(task, step_defs.CLEAN, None)
    _tear_down_cleaning(task)
    firmware.cache_components(task)
    utils.clear_failure(task.node)
    task.record('Cleaning finished', 'cleaning')
    # Written as the lock goes.
    task.process_event(retirement.cleaned_event(task.node, manual),
                       save=False)


def fail_cleaning(task: TaskManager, message: str, reason: str,
                  event: str = 'fail') -> None:
    node = task.node
    manual = _manual(node)
    _tear_down_cleaning(task)
    # A failed step may have left the machine half-cleaned; an abort by
    # request did not, and Ironic leaves that node out of maintenance.
    if node.clean_step and reason != utils.ABORTED:
        node.maintenance = True
        node.fault = utils.CLEAN_FAILURE
        node.maintenance_reason = node.maintenance_reason or message
    step_flow.fail_step_flow(
        task, CLEAN_FLOW, message, reason, event,
        target_state=states.MANAGEABLE if manual else None)


def _clean_steps(task: TaskManager) -> list[steps.Step]:
    if _manual(task.node):
        return steps.manual_clean_steps_for(
            task, steps.user_steps(task, step_defs.CLEAN) or [])
    return steps.automated_clean_steps_for(task)


CLEAN_FLOW = step_flow.register(step_flow.StepFlow(
    kind=step_defs.CLEAN, event_type='cleaning',
    on_done=_clean_done, on_fail=fail_cleaning,
    callback_timeout=lambda: CONF.conductor.clean_callback_timeout,
    prepare=lambda task: task.driver.deploy.prepare_cleaning(task),
    steps_for=_clean_steps))


def automated_clean_enabled(node: models.Node) -> bool:
    if node.automated_clean is not None:
        return bool(node.automated_clean)
    enabled: bool = CONF.conductor.automated_clean
    return enabled


def _validate(task: TaskManager, cleans: bool) -> None:
    utils.ensure_not_in_maintenance(task, 'cleaning')
    for name in CLEAN_VALIDATION:
        task.driver.interfaces[name].validate(task)
    if cleans and task.driver.deploy.needs_ramdisk:
        # Cleaning boots the agent: refuse now what would fail then.
        task.driver.boot.validate_ramdisk(task)
        task.driver.deploy.validate_agent(task)


def start_provide(task: TaskManager, verb: str | None = None) -> None:
    """manageable → cleaning (automated) → available."""
    task.check_transition('provide', verb)
    retirement.check_provide(task.node)
    _validate(task, automated_clean_enabled(task.node))
    task.process_event('provide', callback=run_cleaning, call_args=(None,),
                       verb=verb)


def start_manual_clean(task: TaskManager, clean_steps: Sequence[steps.Step],
                       verb: str | None = None) -> None:
    """manageable → cleaning (the given steps) → manageable."""
    task.check_transition('clean', verb)
    _validate(task, True)
    step_list = steps.manual_clean_steps_for(task, clean_steps)
    steps.keep_user_steps(task, step_defs.CLEAN, clean_steps)
    task.record('Manual cleaning requested with %d steps' % len(step_list),
                'cleaning')
    task.process_event('clean', callback=run_cleaning,
                       call_args=(step_list,),
                       target_state=states.MANAGEABLE, verb=verb,
                       cap=caps.CLEAN)


def run_cleaning(task: TaskManager, step_list: list[steps.Step] | None
                 ) -> None:
    """Worker: clean with ``step_list``, or automatically if None."""
    node = task.node
    utils.clear_failure(node)
    node.clean_step = {}
    if step_list is None:
        steps.keep_user_steps(task, step_defs.CLEAN, None)
        if not automated_clean_enabled(node):
            task.record('Automated cleaning is disabled', 'cleaning')
            task.process_event(retirement.cleaned_event(node, False),
                               save=False)
            return
        step_list = steps.automated_clean_steps_for(task)
    firmware.cache_components(task)
    step_flow.start(task, CLEAN_FLOW, step_list)
