"""Power actions, verification of new nodes, and power state sync."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING
from typing import Any
from typing import TypedDict

from ironside.common import exception
from ironside.common import metrics
from ironside.common import states
from ironside.common.conf import CONF
from ironside.conductor import boot_settings
from ironside.conductor import utils
from ironside.db import history as history_db
from ironside.drivers.modules.agent import ramdisk as agent_ramdisk

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

# What a node's power state is once each requested action succeeded.
RESULTING_STATE = {
    states.POWER_ON: states.POWER_ON,
    states.POWER_OFF: states.POWER_OFF,
    states.SOFT_POWER_OFF: states.POWER_OFF,
    states.REBOOT: states.POWER_ON,
    states.SOFT_REBOOT: states.POWER_ON,
}


def start_power_action(task: TaskManager, new_state: str,
                       timeout: int | None = None) -> None:
    """Validate, record the target, and hand the action to a worker."""
    if new_state not in RESULTING_STATE:
        raise exception.InvalidParameterValue(
            err='Invalid power state %s; valid ones are %s'
                % (new_state, ', '.join(sorted(RESULTING_STATE))))
    if task.node.target_power_state:
        raise exception.Conflict(
            'Node %s is already being powered to %s; wait for it'
            % (task.node.uuid, task.node.target_power_state))
    power = task.driver.power
    power.validate(task)
    supported = power.get_supported_power_states(task)
    if new_state not in supported:
        raise exception.InvalidParameterValue(
            err='Power state %s is not supported by the %s power interface '
                'of node %s' % (new_state, task.node.power_interface,
                                task.node.uuid))
    task.node.target_power_state = RESULTING_STATE[new_state]
    task.node.last_error = None
    task.save()

    def _restore(task: TaskManager) -> None:
        task.node.target_power_state = None
        task.save()

    task.spawn_after(do_power_action, new_state, timeout)
    task.on_spawn_error(_restore)


def do_power_action(task: TaskManager, new_state: str,
                    timeout: int | None = None) -> None:
    """Worker: perform a power action; record the outcome on the node."""
    node = task.node
    power = task.driver.power
    timeout = timeout or CONF.conductor.power_state_change_timeout
    try:
        if new_state in (states.REBOOT, states.SOFT_REBOOT):
            power.reboot(task, timeout=timeout)
        else:
            power.set_power_state(task, new_state, timeout=timeout)
    except Exception as exc:
        node.target_power_state = None
        utils.set_failure(task, 'Failed to change power state to "%s": %s'
                          % (new_state, utils.describe(exc)),
                          utils.reason_of(exc), event_type='power')
        task.save()
        return
    node.power_state = RESULTING_STATE[new_state]
    node.target_power_state = None
    if new_state != states.POWER_ON:
        # An agent that ran is gone; one that boots looks the node up
        # afresh and is given a new token (as Ironic wipes it).
        agent_ramdisk.forget_agent(node)
    task.record('Power state changed to %s' % node.power_state, 'power')
    task.save()


def start_verify(task: TaskManager, verb: str | None = None) -> None:
    """enroll → verifying → manageable, checking the BMC credentials.

    The power interface validates driver_info and the credentials before
    the node moves, so wrong ones are refused (400) and the node stays as
    it was; reading the power state then happens in a worker.
    """
    task.check_transition('manage', verb)
    task.driver.power.validate(task)
    task.process_event('manage', callback=_do_verify, verb=verb)


def _do_verify(task: TaskManager) -> None:
    node = task.node
    try:
        task.driver.management.validate(task)
        node.power_state = task.driver.power.get_power_state(task)
    except Exception as exc:
        utils.fail_node(task, 'Failed to verify node: %s'
                        % utils.describe(exc), utils.reason_of(exc))
        return
    boot_settings.cache_boot_mode(task)
    utils.clear_failure(node)
    task.record('Node verified', 'verifying')
    task.process_event('done', save=False)  # written as the lock goes


class SyncFailures:
    """Consecutive failed power reads per node, and when to read again.

    After the n-th failure in a row a node is not read again for
    ``interval * (2 ** (n - 1) - 1)`` seconds (capped by
    [conductor]power_state_sync_max_backoff): the first retry is at the
    next sync, later ones further apart, so a dead BMC is not hammered.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._next_read: dict[str, float] = {}

    def get(self, node_uuid: str, default: int = 0) -> int:
        return self._counts.get(node_uuid, default)

    def due(self, node_uuid: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        return self._next_read.get(node_uuid, 0.0) <= now

    def failed(self, node_uuid: str) -> int:
        with self._lock:
            count = self._counts.get(node_uuid, 0) + 1
            self._counts[node_uuid] = count
            interval = CONF.conductor.sync_power_state_interval
            backoff = min(interval * (2 ** min(count - 1, 20) - 1),
                          CONF.conductor.power_state_sync_max_backoff)
            self._next_read[node_uuid] = time.monotonic() + backoff
            return count

    def succeeded(self, node_uuid: str) -> None:
        with self._lock:
            self._counts.pop(node_uuid, None)
            self._next_read.pop(node_uuid, None)


def sync_power_state(task: TaskManager, failures: SyncFailures) -> None:
    """Read the real power state of one node and reconcile the record.

    ``failures`` counts consecutive failed reads per node across sync
    runs; after [conductor]power_state_sync_max_retries the node goes
    into maintenance with fault "power failure", as Ironic does, and
    out of it again at the first read that succeeds. The hardware health
    is read too (see sync_health).
    """
    node = task.node
    try:
        real = task.driver.power.get_power_state(task)
    except Exception as exc:
        count = failures.failed(node.uuid)
        metrics.power_sync_failed()
        LOG.warning('Power state read of node %s failed (%d in a row): %s',
                    node.uuid, count, exc)
        if count >= CONF.conductor.power_state_sync_max_retries and \
                not node.maintenance:
            task.upgrade_lock('power failure maintenance')
            task.node.maintenance = True
            task.node.fault = utils.POWER_FAILURE
            task.node.maintenance_reason = (
                'Power state of the node could not be read %d times in a '
                'row: %s' % (count, utils.describe(exc)))
            utils.set_failure(task, task.node.maintenance_reason,
                              utils.reason_of(exc), event_type='power')
            task.save()
        return
    failures.succeeded(node.uuid)
    if CONF.conductor.sync_hardware_health:
        sync_health(task)
    node = task.node
    if node.maintenance:
        if node.fault == utils.POWER_FAILURE:
            task.upgrade_lock('power failure recovery')
            _end_fault(task, 'Power state can be read again')
            task.node.power_state = real
            task.save()
        return
    if real == node.power_state:
        return
    task.upgrade_lock('power state sync')
    node = task.node
    if real == node.power_state:
        return  # changed by someone else since the read
    if node.power_state is None or not CONF.conductor.\
            force_power_state_during_sync:
        previous = node.power_state
        node.power_state = real
        if previous is not None:
            task.record('Power state drifted from %s to %s; recorded the '
                        'real state' % (previous, real), 'power')
        task.save()
        return
    LOG.info('Power state of node %s is %s, forcing it back to %s',
             node.uuid, real, node.power_state)
    try:
        task.driver.power.set_power_state(task, node.power_state)
        task.record('Power state drifted to %s; forced back to %s'
                    % (real, node.power_state), 'power')
    except Exception as exc:
        utils.set_failure(task, 'Failed to force power state %s: %s'
                          % (node.power_state, utils.describe(exc)),
                          utils.reason_of(exc), event_type='power')
    task.save()


# Faults the power sync sets and, once the cause is gone, clears itself.
RECOVERABLE_FAULTS = (utils.POWER_FAILURE, utils.HARDWARE_FAILURE)
CRITICAL_HEALTH = ('critical', 'failed')
HEALTH_KEY = 'health'


class Health(TypedDict):
    health: str         # ok, warning, critical, failed or unknown
    reasons: list[Any]  # what the BMC says of it


def read_health(task: TaskManager) -> Health | None:
    """{'health': ok|warning|critical|failed|unknown, 'reasons': [...]},
    or None when the node's management interface cannot tell."""
    get_health = getattr(task.driver.management, 'get_health', None)
    if get_health is None:
        return None
    try:
        reading = get_health(task)
    except Exception as exc:
        LOG.info('Health of node %s could not be read: %s', task.node.uuid,
                 exc)
        return None
    return {'health': reading['health'],
            'reasons': list(reading.get('reasons') or [])}


def sync_health(task: TaskManager) -> None:
    """Record the health the BMC reports; fault the node while critical.

    The reading goes to driver_internal_info['health'] when it changes
    (so a steady fleet costs no writes). A critical health puts a node
    that is not in maintenance into maintenance with fault "hardware
    failure"; a later reading that is not critical takes it out again,
    as the power failure recovery does.
    """
    reading = read_health(task)
    if reading is None:
        return
    node = task.node
    critical = reading['health'] in CRITICAL_HEALTH
    raise_fault = critical and not node.maintenance
    clear_fault = (not critical and node.maintenance and
                   node.fault == utils.HARDWARE_FAILURE)
    changed = (node.driver_internal_info or {}).get(HEALTH_KEY) != reading
    if not (changed or raise_fault or clear_fault):
        return
    task.upgrade_lock('hardware health')
    node = task.node
    node.driver_internal_info = dict(node.driver_internal_info or {},
                                     **{HEALTH_KEY: reading})
    if raise_fault:
        node.maintenance = True
        node.fault = utils.HARDWARE_FAILURE
        node.maintenance_reason = (
            'The BMC reports the hardware health as %s: %s'
            % (reading['health'], '; '.join(reading['reasons']) or
               'no reason given'))
        task.record(node.maintenance_reason, 'health',
                    severity=history_db.ERROR)
    elif clear_fault:
        _end_fault(task, 'Hardware health is %s again' % reading['health'])
    task.save()


def _end_fault(task: TaskManager, why: str) -> None:
    """Take a node out of the maintenance a fault put it into."""
    node = task.node
    task.record('%s; fault "%s" cleared and maintenance ended'
                % (why, node.fault), 'maintenance')
    node.maintenance = False
    node.fault = None
    node.maintenance_reason = None
