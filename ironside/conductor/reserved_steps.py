"""Steps the conductor itself runs, whatever the interface named: Ironic's
reserved step names, which a user or a deploy template may put between
the drivers' steps.

``power_on``, ``power_off``, ``reboot``
    A power action through the node's power interface.
``hold``
    The flow stops in its hold state (``deploy hold``, ``clean hold``,
    ``service hold``) until the user's ``unhold`` goes on after it, or
    ``abort`` ends the flow.
``wait``
    With ``args: {"seconds": N}``, the flow waits N seconds (at most
    [conductor]max_wait_step_seconds); without, it waits for a
    ``continue`` callback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

POWER_STEPS = {'power_on': states.POWER_ON, 'power_off': states.POWER_OFF,
               'reboot': states.REBOOT}
NAMES = frozenset(POWER_STEPS) | {'hold', 'wait'}

# What a hold step returns to the engine.
HOLD = object()


def is_reserved(step: dict[str, Any]) -> bool:
    return step.get('step') in NAMES


def check(step: dict[str, Any]) -> dict[str, Any]:
    """A reserved step as a user gave it, checked; its arguments."""
    args = step.get('args') or {}
    if not isinstance(args, dict):
        raise exception.InvalidParameterValue(
            err='Step %s: "args" must be an object' % step.get('step'))
    allowed = {'seconds'} if step['step'] == 'wait' else set()
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise exception.InvalidParameterValue(
            err='Step %s does not take argument(s) %s'
                % (step['step'], ', '.join(unknown)))
    if 'seconds' in args:
        seconds = args['seconds']
        if isinstance(seconds, bool) or not isinstance(seconds, int) or \
                seconds < 0:
            raise exception.InvalidParameterValue(
                err='Step wait: "seconds" must be a non-negative integer')
    return dict(args)


def execute(task: TaskManager, step: dict[str, Any]) -> object:
    """Run a reserved step: None when done, a Wait, or HOLD."""
    name = step['step']
    if name in POWER_STEPS:
        target = POWER_STEPS[name]
        power = task.driver.power
        if target == states.REBOOT:
            power.reboot(task)
        else:
            power.set_power_state(task, target)
        task.node.power_state = states.POWER_OFF \
            if target == states.POWER_OFF else states.POWER_ON
        return None
    if name == 'hold':
        return HOLD
    seconds = (step.get('args') or {}).get('seconds')
    if seconds is None:
        return step_defs.await_callback(task)
    return step_defs.poll_later(
        task, min(seconds, CONF.conductor.max_wait_step_seconds))
