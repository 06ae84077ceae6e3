"""Booting a machine into the agent's ramdisk, and what a node records of
the agent running on it.

The agent's record lives in ``driver_internal_info``: ``agent_url`` (its
callback URL), ``agent_secret_token`` (given at lookup), ``agent_version``,
``agent_verify_ca`` (its certificate), ``agent_last_heartbeat`` and the
steps it offers (``agent_cached_<kind>_steps``). A boot into the ramdisk
and a power off forget it all, as Ironic does: a new agent looks the node
up, gets a new token and heartbeats, and only then is the node's agent
known again (:func:`agent_is_up`).

With [deploy]fast_track the agent is left running after inspection and
cleaning, its record kept, and the next flow uses it without a boot
(:func:`fast_track_agent`), as Ironic's fast track.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import boot_files
from ironside.drivers.modules.agent import client

LOG = logging.getLogger(__name__)

# Everything known of a running agent; gone when it stops.
AGENT_RECORD = (client.AGENT_URL, client.AGENT_TOKEN, client.AGENT_CA,
                'agent_version', 'agent_last_heartbeat', 'agent_status',
                'agent_status_message', 'hardware_manager_version',
                'agent_cached_deploy_steps', 'agent_cached_clean_steps',
                'agent_cached_service_steps', 'agent_booted_at')


def forget_agent(node: Any) -> None:
    """The agent that ran on the node is gone (power off, reboot)."""
    info = node.driver_internal_info
    for key in AGENT_RECORD:
        info.pop(key, None)


def agent_is_up(node: Any) -> bool:
    """Whether an agent booted since the node was last booted into its
    ramdisk has heartbeated."""
    return bool((node.driver_internal_info or {}).get(client.AGENT_URL))


def heartbeat_age(node: Any) -> float | None:
    """Seconds since the node's agent last heartbeated (None: never)."""
    stamp = (node.driver_internal_info or {}).get('agent_last_heartbeat')
    if not stamp:
        return None
    try:
        seen = datetime.datetime.fromisoformat(str(stamp))
    except ValueError:
        return None
    if seen.tzinfo is None:
        seen = seen.replace(tzinfo=datetime.timezone.utc)
    now = datetime.datetime.now(datetime.timezone.utc)
    return (now - seen).total_seconds()


def fast_track_agent(task: base.Task) -> bool:
    """Whether [deploy]fast_track lets the node's running agent be used as
    it is: it heartbeated within [deploy]fast_track_timeout, it was given
    its token, and the BMC says the machine is on. A recorded agent that
    fails this is forgotten (the machine is booted again)."""
    node = task.node
    if not CONF.deploy.fast_track or not agent_is_up(node) or \
            not node.driver_internal_info.get(client.AGENT_TOKEN):
        return False
    age = heartbeat_age(node)
    if age is not None and age <= CONF.deploy.fast_track_timeout and \
            task.driver.power.get_power_state(task) == states.POWER_ON:
        LOG.info('Node %s: fast track, its agent (heartbeat %.0f s ago) '
                 'is used as it runs', node.uuid, age)
        return True
    forget_agent(node)
    return False


def check_ports(task: base.Task) -> None:
    """The agent finds its node by the MACs of the node's ports (lookup):
    a node with none cannot be reached by its agent."""
    if not any(port.get('address') for port in task.ports):
        raise exception.MissingParameterValue(
            err='Node %s has no port: the agent on the machine finds its '
                'node by the MAC address of a port (inspection with the '
                'agent inspect interface adds them)' % task.node.uuid)


def api_url() -> str:
    """The API's URL as agents reach it."""
    url: str | None = CONF.agent.api_url or CONF.api.public_endpoint
    if not url:
        raise exception.ConfigInvalid(
            error_msg='[agent]api_url is not set: the agent on a machine '
                      'needs to know where the API is')
    return url.rstrip('/')


def ramdisk_params(task: base.Task, **extra: Any) -> dict[str, Any]:
    """The agent's kernel parameters."""
    params: dict[str, Any] = {'ipa-api-url': api_url()}
    request_id = getattr(task.context, 'global_request_id', None)
    if request_id:
        params['ipa-global-request-id'] = request_id
    params.update(extra)
    return params


def power_off(task: base.Task) -> None:
    task.driver.power.set_power_state(task, states.POWER_OFF)
    task.node.power_state = states.POWER_OFF
    forget_agent(task.node)


def boot_ramdisk(task: base.Task, purpose: str = boot_files.DEPLOY,
                 **params: Any) -> None:
    """Power the machine off, point its boot at the agent's ramdisk, and
    power it on: an agent will look the node up and heartbeat."""
    power_off(task)
    task.driver.boot.prepare_ramdisk(task, ramdisk_params(task, **params),
                                     purpose=purpose)
    task.driver.power.set_power_state(task, states.POWER_ON)
    task.node.power_state = states.POWER_ON
