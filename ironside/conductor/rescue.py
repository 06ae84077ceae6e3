"""Rescue and unrescue: a deployed node booted into a rescue system.

``active`` → ``rescuing`` → (the rescue interface boots the agent's
ramdisk: ``rescue wait``; its heartbeat finishes the rescue with the
user's ``rescue_password``) → ``rescue``. ``unrescue``: ``rescue`` →
``unrescuing`` → ``active``, booting the instance again. A failure
leaves ``rescue failed`` / ``unrescue failed`` with the reason, the node
powered off; the user may rescue or unrescue again, or tear it down.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ironside.common import exception
from ironside.conductor import utils
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

# Where the user's password waits for the agent (hashed; never shown).
PASSWORD_KEY = 'rescue_password'


def start_rescue(task: TaskManager, rescue_password: str | None,
                 verb: str = 'rescue') -> None:
    task.check_transition('rescue', verb)
    utils.ensure_not_in_maintenance(task, 'rescuing')
    if not rescue_password or not rescue_password.strip():
        raise exception.MissingParameterValue(
            err='A non-empty rescue_password is required to rescue node %s'
                % task.node.uuid)
    task.driver.rescue.validate(task)
    task.driver.power.validate(task)
    task.node.instance_info[PASSWORD_KEY] = rescue_password
    task.record('Rescue requested', 'rescuing')
    task.process_event('rescue', callback=_do_rescue, verb=verb)


def _do_rescue(task: TaskManager) -> None:
    utils.clear_failure(task.node)
    try:
        wait = task.driver.rescue.rescue(task)
    except Exception as exc:
        fail_rescue(task, 'Rescue failed: %s' % utils.describe(exc),
                    utils.reason_of(exc))
        return
    if isinstance(wait, step_defs.Wait):
        task.record('Rescue waits for the agent', 'rescuing')
        task.process_event('wait', save=False)
        return
    _rescued(task)


def poll_and_finish(task: TaskManager) -> None:
    """The agent of a node in rescue wait heartbeated: finish if it is
    ready."""
    try:
        done = task.driver.rescue.poll_rescue(task)
    except Exception as exc:
        fail_rescue(task, 'Rescue failed: %s' % utils.describe(exc),
                    utils.reason_of(exc))
        return
    if done:
        task.process_event('resume', save=False)
        _rescued(task)


def _rescued(task: TaskManager) -> None:
    task.node.instance_info.pop(PASSWORD_KEY, None)
    task.record('Node rescued', 'rescuing')
    task.process_event('done', save=False)


def fail_rescue(task: TaskManager, message: str, reason: str,
                event: str = 'fail') -> None:
    node = task.node
    node.instance_info.pop(PASSWORD_KEY, None)
    try:
        task.driver.rescue.clean_up(task)
    except Exception as exc:
        LOG.warning('Clean up after the failed rescue of node %s failed: '
                    '%s', node.uuid, exc)
    utils.power_off_after_failure(task)
    utils.set_failure(task, message, reason, 'rescuing')
    if task.fsm.can(event):
        task.process_event(event)
    else:
        task.save()


def rescue_wait_timed_out(task: TaskManager, timeout: int) -> None:
    fail_rescue(task, 'Timeout reached while waiting for the rescue '
                'ramdisk (%ss, [conductor]rescue_callback_timeout)'
                % timeout, utils.STEP_TIMEOUT)


def start_unrescue(task: TaskManager, verb: str = 'unrescue') -> None:
    task.check_transition('unrescue', verb)
    utils.ensure_not_in_maintenance(task, 'unrescuing')
    task.driver.rescue.validate(task)
    task.record('Unrescue requested', 'unrescuing')
    task.process_event('unrescue', callback=_do_unrescue, verb=verb)


def _do_unrescue(task: TaskManager) -> None:
    try:
        task.driver.rescue.unrescue(task)
    except Exception as exc:
        utils.power_off_after_failure(task)
        utils.fail_node(task, 'Unrescue failed: %s' % utils.describe(exc),
                        utils.reason_of(exc))
        return
    utils.clear_failure(task.node)
    task.record('Node unrescued', 'unrescuing')
    task.process_event('done', save=False)

