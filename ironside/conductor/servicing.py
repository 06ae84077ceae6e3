"""Servicing (API 1.87): steps run on a deployed node, on request.

``active`` → ``servicing`` (the given service steps, which may wait in
``service wait``) → ``active``. A failed step leaves ``service failed``
with ``service_step`` naming it; from there the user may service again,
rescue, or abort back to ``active``. Unlike cleaning, a failure does not
put the node into maintenance: the machine keeps serving its workload,
as in Ironic.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.conductor import firmware
from ironside.conductor import step_flow
from ironside.conductor import steps
from ironside.conductor import utils
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

SERVICE_VALIDATION = ('power', 'management')


def _service_done(task: TaskManager) -> None:
    steps.keep_user_steps(task, step_defs.SERVICE, None)
    _tear_down_service(task)
    utils.clear_failure(task.node)
    firmware.cache_components(task)
    task.record('Servicing finished', 'servicing')
    task.process_event('done', save=False)  # written as the lock goes


def fail_servicing(task: TaskManager, message: str, reason: str,
                   event: str = 'fail') -> None:
    _tear_down_service(task)
    step_flow.fail_step_flow(task, SERVICE_FLOW, message, reason, event)


def _service_steps(task: TaskManager) -> list[steps.Step]:
    return steps.validate_steps(
        task, step_defs.SERVICE,
        steps.user_steps(task, step_defs.SERVICE) or [])


def _tear_down_service(task: TaskManager) -> None:
    try:
        task.driver.deploy.tear_down_service(task)
    except Exception as exc:
        LOG.warning('Tear down of servicing failed on node %s: %s',
                    task.node.uuid, exc)


SERVICE_FLOW = step_flow.register(step_flow.StepFlow(
    kind=step_defs.SERVICE, event_type='servicing',
    on_done=_service_done, on_fail=fail_servicing,
    callback_timeout=lambda: CONF.conductor.service_callback_timeout,
    abort_waiting_step=True,
    prepare=lambda task: task.driver.deploy.prepare_service(task),
    steps_for=_service_steps))


def start_servicing(task: TaskManager, service_steps: Sequence[steps.Step],
                    verb: str | None = None) -> None:
    """Check the steps against the node's, then run them in a worker."""
    task.check_transition('service', verb)
    utils.ensure_not_in_maintenance(task, 'servicing')
    if not service_steps:
        raise exception.InvalidParameterValue(
            err='Servicing needs service_steps')
    for name in SERVICE_VALIDATION:
        task.driver.interfaces[name].validate(task)
    step_list = steps.validate_steps(task, step_defs.SERVICE, service_steps)
    steps.keep_user_steps(task, step_defs.SERVICE, service_steps)
    task.record('Servicing requested with %d steps' % len(step_list),
                'servicing')
    task.process_event('service', callback=run_servicing,
                       call_args=(step_list,), target_state=states.ACTIVE,
                       verb=verb)


def run_servicing(task: TaskManager, step_list: list[steps.Step]) -> None:
    """Worker: run the service steps in the order given."""
    utils.clear_failure(task.node)
    step_flow.start(task, SERVICE_FLOW, step_list)
