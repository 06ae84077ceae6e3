"""Steps the agent runs on the machine (in-band steps), in the one step
engine.

When the agent first heartbeats, the conductor asks it for its steps of
the running flow's kind (``deploy.get_deploy_steps``,
``clean.get_clean_steps``, ``service.get_service_steps``) and keeps them
in ``driver_internal_info['agent_cached_<kind>_steps']``; the deploy
interface offers them beside its own, so they are ordered by priority
with the out-of-band ones. Running one sends
``<kind>.execute_<kind>_step`` and waits: each heartbeat (and a poll
every [agent]step_poll_interval) reads the agent's last command. A
command that failed fails the step with the agent's error; one that runs
longer than [agent]step_timeout fails it too; an agent that restarted
(its command list lost the step) or stopped answering and heartbeating
fails it.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from ironside.common import exception
from ironside.common import secrets
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers.modules.agent import client
from ironside.drivers.modules.agent import ramdisk

LOG = logging.getLogger(__name__)

CACHE_KEY = 'agent_cached_%s_steps'
STARTED_KEY = 'agent_step_started_at'
VERSION_KEY = 'hardware_manager_version'
# Keys of node fields the agent is sent (secrets masked), as Ironic
# sends its node record.
_NODE_FIELDS = ('uuid', 'name', 'driver', 'properties', 'instance_info',
                'driver_info', 'driver_internal_info', 'extra',
                'instance_uuid', 'resource_class', 'boot_mode',
                'target_raid_config', 'raid_config')


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def node_record(node: Any) -> dict[str, Any]:
    """The node as the agent is sent it (secrets masked)."""
    record = {}
    for field in _NODE_FIELDS:
        value = getattr(node, field, None)
        if isinstance(value, (dict, list)):
            value = secrets.mask_secrets(value)
        record[field] = value
    info = dict(record.get('instance_info') or {})
    info.pop('configdrive', None)
    record['instance_info'] = info
    return record


def port_records(task: base.Task) -> list[dict[str, Any]]:
    return [{'uuid': port.get('uuid'), 'address': port.get('address'),
             'pxe_enabled': port.get('pxe_enabled'),
             'local_link_connection': port.get('local_link_connection'),
             'physical_network': port.get('physical_network'),
             'extra': port.get('extra')} for port in task.ports]


def refresh(task: base.Task, kind: str) -> None:
    """Ask the agent for its steps of ``kind`` and keep them."""
    node = task.node
    agent = client.AgentClient(node)
    result = agent.run('%s.get_%s_steps' % (kind, kind),
                       {'node': node_record(node),
                        'ports': port_records(task)}, wait=True)
    if result.get('command_status') != client.SUCCEEDED:
        raise exception.AgentCommandFailed(
            node=node.uuid, command='get_%s_steps' % kind,
            error=client.command_error(result))
    found = result.get('command_result') or {}
    by_manager = found.get('%s_steps' % kind)
    if not isinstance(by_manager, dict):
        raise exception.AgentAPIError(
            node=node.uuid, command='get_%s_steps' % kind, status=200,
            error='the answer has no %s_steps' % kind)
    by_interface: dict[str, list[dict[str, Any]]] = {}
    for steps in by_manager.values():
        for step in steps or ():
            if not isinstance(step, dict) or not {'interface', 'step',
                                                  'priority'} <= set(step):
                raise exception.AgentAPIError(
                    node=node.uuid, command='get_%s_steps' % kind,
                    status=200, error='a step lacks interface, step or '
                                      'priority: %r' % (step,))
            by_interface.setdefault(step['interface'], []).append(
                {key: step[key] for key in ('interface', 'step', 'priority',
                                            'argsinfo', 'abortable',
                                            'reboot_requested')
                 if key in step})
    info = node.driver_internal_info
    info[CACHE_KEY % kind] = by_interface
    info[VERSION_KEY] = found.get('hardware_manager_version')
    LOG.info('The agent of node %s offers %s steps: %s', node.uuid, kind,
             ', '.join('%s.%s (%s)' % (s['interface'], s['step'],
                                       s['priority'])
                       for steps in by_interface.values() for s in steps))


def _priority_override(kind: str, name: str) -> int | None:
    if kind != step_defs.CLEAN:
        return None
    priority: int | None = None
    if name == 'erase_devices':
        priority = CONF.deploy.erase_devices_priority
    elif name == 'erase_devices_metadata':
        priority = CONF.deploy.erase_devices_metadata_priority
    return priority


def cached_steps(node: Any, kind: str, interface: str
                 ) -> list[step_defs.StepInfo]:
    """The agent's steps of ``kind`` for ``interface``, as step records."""
    cached = (node.driver_internal_info or {}).get(CACHE_KEY % kind) or {}
    steps = []
    for step in cached.get(interface, ()):
        priority = _priority_override(kind, step['step'])
        info: step_defs.StepInfo = {
            'interface': interface, 'step': step['step'],
            'priority': step['priority'] if priority is None else priority,
            'argsinfo': step.get('argsinfo')}
        if kind in step_defs.ABORTABLE_KINDS:
            info['abortable'] = bool(step.get('abortable', False))
        steps.append(info)
    return steps


def knows_steps(node: Any, kind: str) -> bool:
    return (CACHE_KEY % kind) in (node.driver_internal_info or {})


def execute(task: base.Task, kind: str, step: dict[str, Any]
            ) -> step_defs.Wait:
    """Send an in-band step to the agent; the engine then polls it."""
    node = task.node
    agent = client.AgentClient(node)
    sent = {'interface': step['interface'], 'step': step['step'],
            'args': step.get('args') or {}}
    for key in ('priority', 'reboot_requested', 'abortable'):
        if key in step:
            sent[key] = step[key]
    params = {'step': sent, 'node': node_record(node),
              'ports': port_records(task),
              '%s_version' % kind: node.driver_internal_info.get(
                  VERSION_KEY)}
    result = agent.run('%s.execute_%s_step' % (kind, kind), params)
    node.driver_internal_info[STARTED_KEY] = _now().isoformat()
    if result.get('command_status') == client.FAILED:
        _raise_failed(node, step, result)
    command_id = result.get('id')
    return step_defs.Wait(
        poll=True, interval=CONF.agent.step_poll_interval,
        watch=agent.watcher(command_id) if command_id else None)


def _step_failed(node: Any, step: dict[str, Any], error: str
                 ) -> exception.AgentCommandFailed:
    """The agent's ``step`` failed, for ``error``."""
    return exception.AgentCommandFailed(
        node=node.uuid, command='%s.%s' % (step['interface'], step['step']),
        error=error)


def _raise_failed(node: Any, step: dict[str, Any],
                  result: dict[str, Any]) -> None:
    raise client.command_failed(
        node.uuid, '%s.%s' % (step['interface'], step['step']), result)


def _same_step(reported: Any, step: dict[str, Any]) -> bool:
    return isinstance(reported, dict) and \
        reported.get('interface') == step.get('interface') and \
        reported.get('step') == step.get('step')


def poll(task: base.Task, kind: str, step: dict[str, Any]) -> bool:
    """Whether the in-band step ended well; raises if it failed."""
    node = task.node
    _check_timeout(node, step)
    try:
        commands = client.AgentClient(node).commands()
    except exception.AgentConnectionFailed:
        if _heartbeats_stopped(node):
            raise
        LOG.warning('The agent of node %s did not answer a status read; '
                    'it heartbeats still, so the step %s.%s goes on',
                    node.uuid, step['interface'], step['step'])
        return False
    wanted = 'execute_%s_step' % kind
    mine = [c for c in commands if c.get('command_name') == wanted]
    if not mine:
        raise _step_failed(node, step, 'the agent restarted while the step '
                           'ran (it knows no such command)')
    last = mine[-1]
    status = last.get('command_status')
    if status == client.RUNNING:
        return False
    if status == client.FAILED:
        _raise_failed(node, step, last)
    if status in client.VERSION_MISMATCH:
        raise _step_failed(node, step, 'the agent\'s hardware managers '
                           'changed since the steps were read; run the '
                           'operation again')
    if status != client.SUCCEEDED:
        raise _step_failed(node, step,
                           'unknown command status %r' % status)
    reported = (last.get('command_result') or {}).get('%s_step' % kind)
    if not _same_step(reported, step):
        raise _step_failed(node, step, 'the agent reports it last ran %r, '
                           'not this step' % (reported,))
    node.driver_internal_info.pop(STARTED_KEY, None)
    return True


def _check_timeout(node: Any, step: dict[str, Any]) -> None:
    limit = CONF.agent.step_timeout
    started = (node.driver_internal_info or {}).get(STARTED_KEY)
    if not limit or not started:
        return
    elapsed = (_now() - datetime.datetime.fromisoformat(started)
               ).total_seconds()
    if elapsed > limit:
        raise exception.AgentTimeout(
            what='The agent of node %s did not finish step %s.%s within '
                 '[agent]step_timeout (%d s)' % (
                     node.uuid, step['interface'], step['step'], limit))


def _heartbeats_stopped(node: Any) -> bool:
    """Whether the agent missed the heartbeats it was told to send."""
    age = ramdisk.heartbeat_age(node)
    return age is None or age > CONF.api.ramdisk_heartbeat_timeout
