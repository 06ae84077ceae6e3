"""Provisioning flows end to end through the conductor, on fake hardware."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from tests.utils import wait_for


def _state(node_id):
    return nodes_db.get_node(node_id).provision_state


def _wait_state(node_id, state, timeout=10):
    return wait_for(lambda: _state(node_id) == state, timeout,
                    what='node %s to reach %s (now %s)'
                    % (node_id, state, _state(node_id)))


def _to_available(rpc, context, node):
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    rpc.do_provisioning_action(context, node.uuid, 'provide')
    _wait_state(node.uuid, states.AVAILABLE)


def test_enroll_to_active_and_back(rpc, context, make_node):
    node = make_node(name='n1')
    assert node.provision_state == states.ENROLL
    assert node.power_interface == 'fake'
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.ACTIVE)
    node = nodes_db.get_node(node.uuid)
    assert node.power_state == states.POWER_ON
    assert node.deploy_step == {}
    assert node.last_error is None
    assert 'deploy_steps' not in node.driver_internal_info
    events = [h.event for h in history_db.list_for_node(node.id)]
    assert 'Deploy step deploy.write_image started' in events
    assert 'Deploy finished' in events
    rpc.do_node_tear_down(context, node.uuid)
    _wait_state(node.uuid, states.AVAILABLE)
    node = nodes_db.get_node(node.uuid)
    assert node.power_state == states.POWER_OFF
    assert node.instance_info == {}


def test_failing_step_names_the_step(rpc, context, make_node):
    node = make_node(driver_info={'fake_fail_steps': ['deploy.'
                                                      'prepare_instance_boot']})
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.DEPLOYFAIL)
    node = nodes_db.get_node(node.uuid)
    assert node.deploy_step['step'] == 'prepare_instance_boot'
    assert node.deploy_step['interface'] == 'deploy'
    assert node.driver_internal_info['deploy_step_index'] == 2
    assert 'deploy.prepare_instance_boot' in node.last_error
    assert node.failure_reason == 'StepFailed'
    assert node.target_provision_state == states.ACTIVE


def test_illegal_verb_names_state_and_verb(rpc, context, make_node):
    node = make_node()
    with pytest.raises(exception.InvalidStateRequested) as err:
        rpc.do_node_deploy(context, node.uuid)
    assert '"active"' in str(err.value)
    assert '"enroll"' in str(err.value)
    assert _state(node.uuid) == states.ENROLL
