"""What the agent on a machine asks of the conductor: its token at
lookup, heartbeats, and the inventory it collected.

A heartbeat is checked at once (its token, its callback URL, the node's
state), so a bad one is refused and changes nothing; it is then recorded
and acted on in a worker: a flow waiting for the agent (to boot, or to
finish an in-band step) is polled at once, so no flow waits for a timer
once the agent said something; a rescue waiting for the agent is
finished.
"""

from __future__ import annotations

import datetime
import hmac
import logging
import secrets
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.conductor import inspection
from ironside.conductor import rescue
from ironside.conductor import step_flow
from ironside.db import models
from ironside.drivers.modules.agent import client

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

# States in which the agent's lookup is answered (with restrict_lookup)
# and its heartbeats are taken.
AGENT_STATES = frozenset((
    states.DEPLOYING, states.DEPLOYWAIT, states.DEPLOYHOLD,
    states.CLEANING, states.CLEANWAIT, states.CLEANHOLD,
    states.INSPECTING, states.INSPECTWAIT,
    states.RESCUING, states.RESCUEWAIT,
    states.SERVICING, states.SERVICEWAIT, states.SERVICEHOLD))


def agent_states() -> frozenset[str]:
    """States in which a node's agent may look it up and heartbeat."""
    if CONF.deploy.fast_track:
        return AGENT_STATES | states.FAST_TRACK_STATES
    return AGENT_STATES

MASKED_TOKEN = '******'


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def give_token(task: TaskManager, seen_state: str | None = None) -> str:
    """The agent's token: made and kept at the first lookup; every later
    lookup gets ``******`` (an agent that lost its token cannot get it
    again, as in Ironic).

    ``seen_state`` is the state the lookup was answered for: a node that
    moved on meanwhile (its inspection ended and its cleaning booted a new
    agent, say) keeps its token for the agent of its new state, not for
    the one of the old, whose lookup arrived late.
    """
    node = task.node
    if CONF.api.restrict_lookup and \
            node.provision_state not in agent_states():
        raise exception.NodeNotFound(
            'Node %s is in state "%s", in which no agent should run'
            % (node.uuid, node.provision_state))
    if seen_state is not None and node.provision_state != seen_state:
        raise exception.NodeNotFound(
            'Node %s moved from "%s" to "%s" while its agent looked it up'
            % (node.uuid, seen_state, node.provision_state))
    info = node.driver_internal_info
    if info.get(client.AGENT_TOKEN):
        return MASKED_TOKEN
    token = secrets.token_urlsafe(32)
    info[client.AGENT_TOKEN] = token
    task.record('Agent looked the node up and was given its token',
                'provisioning')
    task.save()
    return token


def check_heartbeat(node: models.Node, fields: dict[str, Any]) -> None:
    """Refuse a heartbeat that must not change anything."""
    callback_url = fields['callback_url']
    agent_token = fields.get('agent_token')
    if fields.get('agent_version') is None and \
            fields.get('agent_status') is None:
        raise exception.InvalidParameterValue(
            err='The agent sent no version; it is too old for this API')
    token = (node.driver_internal_info or {}).get(client.AGENT_TOKEN)
    if not token or not agent_token or \
            not hmac.compare_digest(str(token), str(agent_token)):
        raise exception.InvalidParameterValue(
            err='Invalid or missing agent token received.')
    if CONF.agent.require_tls and not callback_url.startswith('https://'):
        raise exception.InvalidParameterValue(
            err='TLS is required by configuration ([agent]require_tls): '
                'the callback URL must be https')
    if node.provision_state not in agent_states():
        raise exception.InvalidStateRequested(
            'Node %s is in state "%s", which takes no heartbeat'
            % (node.uuid, node.provision_state), code=409)


def record_heartbeat(task: TaskManager, fields: dict[str, Any]) -> None:
    """Write what the heartbeat said into the node's agent record."""
    node = task.node
    info = node.driver_internal_info
    known = info.get(client.AGENT_URL)
    info[client.AGENT_URL] = fields['callback_url']
    for key in ('agent_version', 'agent_status', 'agent_status_message'):
        if fields.get(key) is not None:
            info[key] = fields[key]
    if fields.get('agent_verify_ca'):
        info[client.AGENT_CA] = fields['agent_verify_ca']
    info['agent_last_heartbeat'] = _now()
    if node.provision_state in states.WAIT_STATES:
        # A heartbeating agent keeps its flow from timing out.
        node.provision_updated_at = models.utcnow()
    if not known:
        task.record('Agent heartbeated from %s (version %s)'
                    % (fields['callback_url'], fields.get('agent_version')),
                    'provisioning')


def process_heartbeat(task: TaskManager, fields: dict[str, Any]) -> None:
    """Worker, lock held: record the heartbeat, then move on what waits
    for the agent."""
    node = task.node
    try:
        check_heartbeat(node, fields)
    except exception.IronsideException as exc:
        LOG.info('Heartbeat of node %s dropped: %s', node.uuid, exc.message)
        return
    record_heartbeat(task, fields)
    task.save()
    if node.maintenance:
        LOG.info('Node %s is in maintenance: its heartbeat is only '
                 'recorded', node.uuid)
        return
    flow = step_flow.wait_states().get(node.provision_state or '')
    if flow is not None:
        if step_flow.state_of(node, flow).polling:
            step_flow.poll_and_resume(task, flow)
    elif node.provision_state == states.RESCUEWAIT:
        rescue.poll_and_finish(task)


def start_continue_inspection(task: TaskManager, inventory: dict[str, Any],
                              plugin_data: dict[str, Any]) -> None:
    """The agent sent the inventory: finish the inspection in a worker."""
    if task.node.provision_state != states.INSPECTWAIT:
        raise exception.NodeNotFound(
            'Node %s is in state "%s", not "inspect wait"'
            % (task.node.uuid, task.node.provision_state))
    task.spawn_after(inspection.continue_inspection, inventory, plugin_data)


def take_heartbeat(manager: Any, context: Any, node_id: str,
                   fields: dict[str, Any]) -> None:
    """Check a heartbeat now (refused: 4xx, nothing changed), act on it
    in a worker (202)."""
    with manager.acquire(context, node_id, shared=True,
                         purpose='agent heartbeat') as task:
        check_heartbeat(task.node, fields)
        node_uuid = task.node.uuid

    def _work() -> None:
        try:
            with manager.acquire(context, node_uuid, patient=True,
                                 purpose='agent heartbeat') as task:
                process_heartbeat(task, fields)
        except exception.NodeNotFound:
            pass

    manager.spawn_worker(_work)
