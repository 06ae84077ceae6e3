"""Deploying, rebuilding and tearing down: the deploy step flow.

The flow: validate the node synchronously (a bad request changes
nothing), compute the step list (deploy templates and user steps
included), move to ``deploying`` and run the steps in a worker. After the
last step the node is ``active``; a failing step leaves it in ``deploy
failed`` with ``deploy_step`` naming the step.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.conductor import caps
from ironside.conductor import cleaning
from ironside.conductor import step_flow
from ironside.conductor import steps
from ironside.conductor import utils
from ironside.conductor.step_state import StepState
from ironside.db import allocations as allocations_db
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

# Interfaces that must validate before a deploy starts.
DEPLOY_VALIDATION = ('power', 'management', 'boot', 'deploy', 'storage')


def _deploy_done(task: TaskManager) -> None:
    utils.clear_failure(task.node)
    steps.keep_user_steps(task, step_defs.DEPLOY, None)
    task.record('Deploy finished', 'deploying')
    task.process_event('done', save=False)  # written as the lock goes


def fail_deploy(task: TaskManager, message: str, reason: str,
                event: str = 'fail') -> None:
    """Deploy failed: ``deploy failed``, with ``deploy_step`` kept."""
    try:
        task.driver.deploy.clean_up(task)
    except Exception as exc:
        LOG.warning('Clean up after the failed deploy of node %s failed: '
                    '%s', task.node.uuid, exc)
    if CONF.deploy.power_off_after_deploy_failure:
        utils.power_off_after_failure(task)
    step_flow.fail_step_flow(task, DEPLOY_FLOW, message, reason, event)


def _prepare_deploy(task: TaskManager) -> None:
    task.driver.deploy.prepare(task)
    task.node.conductor_affinity = task.conductor.conductor_id


def _deploy_steps(task: TaskManager) -> list[steps.Step]:
    return steps.deploy_steps_for(
        task, steps.user_steps(task, step_defs.DEPLOY))


DEPLOY_FLOW = step_flow.register(step_flow.StepFlow(
    kind=step_defs.DEPLOY, event_type='deploying',
    on_done=_deploy_done, on_fail=fail_deploy,
    callback_timeout=lambda: CONF.conductor.deploy_callback_timeout,
    abort_waiting_step=True, prepare=_prepare_deploy,
    steps_for=_deploy_steps))


def validate_interfaces(task: TaskManager, names: Sequence[str]) -> None:
    for name in names:
        iface = task.driver.interfaces.get(name)
        if iface is not None:
            iface.validate(task)


def start_deploy(task: TaskManager, event: str = 'deploy',
                 configdrive: Any = None,
                 deploy_steps: Sequence[steps.Step] | None = None,
                 verb: str | None = None) -> None:
    """Check everything, then move to ``deploying`` and spawn the worker.

    Raises (and changes nothing) if the node is in maintenance, an
    interface does not validate, or a requested step is invalid.
    """
    task.check_transition(event, verb)
    utils.ensure_not_in_maintenance(task, 'provisioning')
    validate_interfaces(task, DEPLOY_VALIDATION)
    step_list = steps.deploy_steps_for(task, deploy_steps)
    node = task.node
    steps.keep_user_steps(task, step_defs.DEPLOY, deploy_steps)
    if configdrive is not None:
        node.instance_info['configdrive'] = configdrive
    utils.clear_failure(node)
    node.deploy_step = {}
    task.record('%s requested with %d steps'
                % ('Rebuild' if event == 'rebuild' else 'Deploy',
                   len(step_list)), 'deploying')
    task.process_event(event, callback=_do_node_deploy,
                       call_args=(step_list,), verb=verb, cap=caps.DEPLOY)


def _do_node_deploy(task: TaskManager, step_list: list[steps.Step]) -> None:
    step_flow.start(task, DEPLOY_FLOW, step_list)


def start_tear_down(task: TaskManager, verb: str | None = None) -> None:
    task.check_transition('delete', verb)
    validate_interfaces(task, ('power',))
    task.record('Tear down requested', 'deleting')
    task.process_event('delete', callback=_do_node_tear_down, verb=verb,
                       cap=caps.TEAR_DOWN)


def _detach_vifs(task: TaskManager) -> None:
    if 'network' not in task.driver.interfaces:
        return
    network = task.driver.network
    for vif in network.vif_list(task):
        try:
            network.vif_detach(task, vif['id'])
        except Exception as exc:
            LOG.warning('Could not detach VIF %s from node %s: %s',
                        vif['id'], task.node.uuid, exc)


def _do_node_tear_down(task: TaskManager) -> None:
    node = task.node
    try:
        task.driver.deploy.tear_down(task)
        task.driver.deploy.clean_up(task)
        task.driver.boot.clean_up_instance(task)
        _detach_vifs(task)
    except Exception as exc:
        utils.fail_node(task, 'Tear down failed: %s' % utils.describe(exc),
                        utils.reason_of(exc))
        return
    # Nova never clears what it set: the server does, as Ironic does;
    # the allocation that reserved the node is gone with the instance.
    if node.allocation_id is not None:
        try:
            allocations_db.destroy(node.allocation_id)
        except exception.AllocationNotFound:
            pass
    node.instance_info = {}
    node.instance_uuid = None
    node.instance_name = None
    node.allocation_id = None
    node.deploy_step = {}
    StepState(step_defs.DEPLOY).save_to(node)
    steps.keep_user_steps(task, step_defs.DEPLOY, None)
    utils.clear_failure(node)
    task.record('Tear down finished', 'deleting')
    task.process_event('clean')
    cleaning.run_cleaning(task, None)


def start_adopt(task: TaskManager, verb: str = 'adopt') -> None:
    """manageable → adopting → active: take a machine that already runs
    its instance as deployed, without writing anything (as Ironic: the
    boot and deploy interfaces must validate)."""
    task.check_transition('adopt', verb)
    validate_interfaces(task, ('power', 'management', 'boot', 'deploy'))
    task.record('Adoption requested', 'adopting')
    task.process_event('adopt', callback=_do_adopt, verb=verb)


def _do_adopt(task: TaskManager) -> None:
    try:
        task.driver.boot.prepare_instance(task)
        task.driver.deploy.take_over(task)
    except Exception as exc:
        utils.fail_node(task, 'Adoption failed: %s' % utils.describe(exc),
                        utils.reason_of(exc))
        return
    utils.clear_failure(task.node)
    task.record('Node adopted', 'adopting')
    task.process_event('done', save=False)
