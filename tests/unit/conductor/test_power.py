"""Power actions and power state sync."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.conductor import periodics
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from tests import utils
from tests.utils import wait_for


def _power(node_id):
    node = nodes_db.get_node(node_id)
    return node.power_state, node.target_power_state


def test_power_on_then_show_agrees(rpc, context, make_node):
    node = make_node()
    rpc.change_node_power_state(context, node.uuid, states.POWER_ON)
    wait_for(lambda: _power(node.id) == (states.POWER_ON, None))
    rpc.change_node_power_state(context, node.uuid, states.REBOOT)
    wait_for(lambda: _power(node.id) == (states.POWER_ON, None))
    rpc.change_node_power_state(context, node.uuid, states.SOFT_POWER_OFF)
    wait_for(lambda: _power(node.id) == (states.POWER_OFF, None))


def test_target_power_state_shows_during_the_transition(rpc, context,
                                                        make_node):
    node = make_node(driver_info={'fake_power_delay': 0.3})
    rpc.change_node_power_state(context, node.uuid, states.POWER_ON)
    assert _power(node.id)[1] == states.POWER_ON
    wait_for(lambda: _power(node.id) == (states.POWER_ON, None))


def test_power_failure_is_reported_and_clears_the_target(rpc, context,
                                                         make_node):
    node = make_node(driver_info={'fake_power_fail': ['power on']})
    rpc.change_node_power_state(context, node.uuid, states.POWER_ON)
    wait_for(lambda: _power(node.id)[1] is None)
    node = nodes_db.get_node(node.id)
    assert node.power_state != states.POWER_ON
    assert 'Failed to change power state to "power on"' in node.last_error
    assert node.failure_reason == 'PowerFailure'


def test_power_wait_timeout_is_honoured(rpc, context, make_node):
    node = make_node(driver_info={'fake_power_delay': 30})
    rpc.change_node_power_state(context, node.uuid, states.POWER_ON,
                                timeout=1)
    wait_for(lambda: _power(node.id)[1] is None, timeout=5)
    assert nodes_db.get_node(node.id).failure_reason == 'PowerFailure'


def test_unknown_power_state_is_refused(rpc, context, make_node):
    node = make_node()
    with pytest.raises(exception.InvalidParameterValue,
                       match='Invalid power state warp'):
        rpc.change_node_power_state(context, node.uuid, 'warp')


def test_sync_records_the_real_state(conductor, make_node):
    node = make_node()
    utils.update_node(node.id, {'provision_state': states.MANAGEABLE,
                                   'power_state': None})
    periodics.sync_power_states(conductor)
    assert _power(node.id)[0] == states.POWER_OFF


def test_sync_puts_node_in_maintenance_after_repeated_failures(
        conductor, make_node, conf):
    conf.set('conductor', power_state_sync_max_retries=2)
    node = make_node(driver_info={'fake_power_fail': ['get']})
    utils.update_node(node.id, {'provision_state': states.MANAGEABLE})
    periodics.sync_power_states(conductor)
    assert nodes_db.get_node(node.id).maintenance is False
    periodics.sync_power_states(conductor)
    node = nodes_db.get_node(node.id)
    assert node.maintenance is True
    assert node.fault == 'power failure'
    assert 'could not be read 2 times in a row' in node.maintenance_reason


def test_sync_reaches_every_node_across_load_batches(conductor, make_node):
    nodes = [make_node() for _ in range(periodics._SYNC_BATCH + 5)]
    for node in nodes:
        utils.update_node(node.id, {'provision_state': states.MANAGEABLE,
                                       'power_state': None})
    periodics.sync_power_states(conductor)
    assert [_power(n.id)[0] for n in nodes] == \
        [states.POWER_OFF] * len(nodes)


def test_sync_records_no_drift_when_the_state_changed_meanwhile(
        conductor, make_node, monkeypatch):
    node = make_node()
    utils.update_node(node.id, {'provision_state': states.MANAGEABLE,
                                   'power_state': states.POWER_OFF})
    with conductor.acquire(conductor.admin_context, node.id,
                           shared=True) as task:
        fake_power = type(task.driver.power)
    def read_racing_a_power_on(self, task):
        # A race between the read and the save cannot be timed from
        # outside, so the read itself lets another request power on first.
        utils.update_node(task.node.id, {'power_state': states.POWER_ON})
        return states.POWER_ON

    monkeypatch.setattr(fake_power, 'get_power_state',
                        read_racing_a_power_on)
    periodics.sync_power_states(conductor)
    events = [r.event for r in history_db.list_for_node(node.id)]
    assert not [e for e in events if 'drifted' in e], events
    assert _power(node.id)[0] == states.POWER_ON
