"""Power sync backoff and per-BMC concurrency."""

from __future__ import annotations

import threading
import time

from ironside.common import states
from ironside.conductor import periodics
from ironside.db import nodes as nodes_db
from tests import utils


def _failing_node(make_node):
    node = make_node(driver_info={'fake_power_fail': ['get']})
    utils.update_node(node.id, {'provision_state': states.MANAGEABLE})
    return node


def test_failing_node_is_read_less_often(conductor, make_node, conf):
    conf.set('conductor', power_state_sync_max_retries=10,
             sync_power_state_interval=60)
    node = _failing_node(make_node)
    failures = conductor.power_failures
    periodics.sync_power_states(conductor)
    assert failures.get(node.uuid) == 1
    periodics.sync_power_states(conductor)  # the first retry is not delayed
    assert failures.get(node.uuid) == 2
    periodics.sync_power_states(conductor)  # now it waits one interval
    assert failures.get(node.uuid) == 2
    assert not failures.due(node.uuid)
    assert failures.due(node.uuid, time.monotonic() + 61)


def test_backoff_is_capped(conductor, make_node, conf):
    conf.set('conductor', power_state_sync_max_retries=10,
             sync_power_state_interval=60, power_state_sync_max_backoff=90)
    node = _failing_node(make_node)
    failures = conductor.power_failures
    for _ in range(6):
        failures.failed(node.uuid)
    assert failures.due(node.uuid, time.monotonic() + 91)


def test_a_good_read_clears_the_failures(conductor, make_node, conf):
    conf.set('conductor', power_state_sync_max_retries=10)
    node = _failing_node(make_node)
    periodics.sync_power_states(conductor)
    assert conductor.power_failures.get(node.uuid) == 1
    utils.update_node(node.id, {'driver_info': {}})
    periodics.sync_power_states(conductor)
    assert conductor.power_failures.get(node.uuid) == 0
    assert conductor.power_failures.due(node.uuid)


def test_power_failure_ends_when_the_power_can_be_read(conductor,
                                                       make_node, conf):
    conf.set('conductor', power_state_sync_max_retries=1)
    node = _failing_node(make_node)
    periodics.sync_power_states(conductor)
    node = nodes_db.get_node(node.id)
    assert (node.maintenance, node.fault) == (True, 'power failure')
    periodics.sync_power_states(conductor)  # backing off: not read
    assert nodes_db.get_node(node.id).fault == 'power failure'

    utils.update_node(node.id, {'driver_info': {}})
    conductor.power_failures.succeeded(node.uuid)  # the backoff is over
    periodics.sync_power_states(conductor)
    node = nodes_db.get_node(node.id)
    assert (node.maintenance, node.fault, node.maintenance_reason,
            node.power_state) == (False, None, None, states.POWER_OFF)


def test_maintenance_set_by_hand_is_left_alone(conductor, make_node):
    node = make_node()
    utils.update_node(node.id, {
        'provision_state': states.MANAGEABLE, 'maintenance': True,
        'maintenance_reason': 'by hand', 'power_state': None})
    periodics.sync_power_states(conductor)
    node = nodes_db.get_node(node.id)
    assert (node.maintenance, node.maintenance_reason, node.power_state) \
        == (True, 'by hand', None)


def test_per_bmc_limit_caps_concurrent_reads():
    limit = periodics._PerKeyLimit(2)
    lock = threading.Lock()
    running = {'now': 0, 'peak': 0, 'other': 0}

    def _read(key):
        with limit.slot(key):
            with lock:
                running['now'] += 1
                running['peak'] = max(running['peak'], running['now'])
            time.sleep(0.05)
            with lock:
                running['now'] -= 1

    threads = [threading.Thread(target=_read, args=('bmc-a',))
               for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert running['peak'] == 2
