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


def _node(node_id):
    return nodes_db.get_node(node_id)


def test_step_and_index_recorded_as_the_deploy_moves(rpc, context,
                                                     make_node):
    node = make_node(driver_info={'fake_step_delay': 0.4})
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    seen = []

    def _observe():
        current = _node(node.uuid)
        index = current.driver_internal_info.get('deploy_step_index')
        entry = (index, current.deploy_step.get('step'),
                 current.provision_state)
        if index is not None and (not seen or seen[-1] != entry):
            seen.append(entry)
        return current.provision_state == states.ACTIVE

    wait_for(_observe, timeout=10, interval=0.02)
    expected = [(0, 'deploy'), (1, 'write_image'),
                (2, 'prepare_instance_boot'), (3, 'boot_instance')]
    observed = list(dict.fromkeys((i, s) for i, s, _ in seen))
    # Every step takes 0.4 s, so a 20 ms poll sees each of them, in order.
    assert observed == expected
    assert (1, 'write_image', states.DEPLOYWAIT) in seen


def test_async_step_waits_for_a_callback(rpc, context, make_node):
    node = make_node(driver_info={'fake_async_callback': True})
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.DEPLOYWAIT)
    # The worker lets the lock go just after it saved the wait state.
    wait_for(lambda: _node(node.uuid).reservation is None)
    waiting = _node(node.uuid)
    assert waiting.provision_state == states.DEPLOYWAIT
    assert waiting.deploy_step['step'] == 'write_image'
    assert waiting.target_provision_state == states.ACTIVE
    rpc.continue_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.ACTIVE)


def test_async_clean_step_waits_for_a_callback(rpc, context, make_node):
    """continue_node_clean resumes the clean flow as continue_node_deploy
    does the deploy flow (one manager method for every flow)."""
    node = make_node(driver_info={'fake_async_callback': True})
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    rpc.do_node_clean(context, node.uuid, [
        {'interface': 'deploy', 'step': 'erase_devices'}])
    _wait_state(node.uuid, states.CLEANWAIT)
    wait_for(lambda: _node(node.uuid).reservation is None)
    with pytest.raises(exception.InvalidStateRequested,
                       match='continue deploying'):
        rpc.continue_node_deploy(context, node.uuid)
    rpc.continue_node_clean(context, node.uuid)
    _wait_state(node.uuid, states.MANAGEABLE)
    assert _node(node.uuid).last_error is None


@pytest.mark.parametrize('verb, flow', [('deploy', 'deploying'),
                                        ('clean', 'cleaning'),
                                        ('service', 'servicing')])
def test_continue_refused_unless_waiting(rpc, context, make_node, verb,
                                         flow):
    node = make_node()
    with pytest.raises(exception.InvalidStateRequested,
                       match='continue %s' % flow):
        getattr(rpc, 'continue_node_%s' % verb)(context, node.uuid)


def test_abort_while_waiting_for_deploy_step(rpc, context, make_node):
    node = make_node(driver_info={'fake_async_callback': True})
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.DEPLOYWAIT)
    rpc.do_provisioning_action(context, node.uuid, 'abort')
    node = _node(node.uuid)
    assert node.provision_state == states.DEPLOYFAIL
    assert node.failure_reason == 'Aborted'
    assert 'deploy.write_image' in node.last_error
    assert node.deploy_step['step'] == 'write_image'


def test_abort_of_abortable_clean_step_is_immediate(rpc, context,
                                                    make_node):
    node = make_node(driver_info={'fake_step_delays':
                                  {'deploy.erase_devices': 60}})
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    rpc.do_node_clean(context, node.uuid, [
        {'interface': 'deploy', 'step': 'erase_devices'}])
    _wait_state(node.uuid, states.CLEANWAIT)
    rpc.do_provisioning_action(context, node.uuid, 'abort')
    node = _node(node.uuid)
    assert node.provision_state == states.CLEANFAIL
    assert node.target_provision_state == states.MANAGEABLE
    assert node.failure_reason == 'Aborted'
    # As Ironic: an abort by request is no fault of the machine.
    assert node.maintenance is False
    assert node.fault is None


def test_abort_of_unabortable_clean_step_waits_for_it(rpc, context,
                                                      make_node):
    node = make_node(driver_info={'fake_step_delays':
                                  {'raid.create_configuration': 0.5}})
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    rpc.do_node_clean(context, node.uuid, [
        {'interface': 'raid', 'step': 'create_configuration'},
        {'interface': 'deploy', 'step': 'erase_devices_metadata'}])
    _wait_state(node.uuid, states.CLEANWAIT)
    rpc.do_provisioning_action(context, node.uuid, 'abort')
    assert _state(node.uuid) == states.CLEANWAIT
    _wait_state(node.uuid, states.CLEANFAIL)
    node = _node(node.uuid)
    assert 'after step raid.create_configuration' in node.last_error
    assert node.clean_step['step'] == 'create_configuration'
    assert node.maintenance is False


def test_wait_timeout_names_the_step(rpc, context, make_node, conductor,
                                     conf):
    from ironside.conductor import periodics

    node = make_node(driver_info={'fake_async_callback': True})
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.DEPLOYWAIT)
    conf.set('conductor', deploy_callback_timeout=1)
    wait_for(lambda: (periodics.check_wait_timeouts(conductor),
                      _state(node.uuid) == states.DEPLOYFAIL)[1],
             timeout=5, interval=0.1)
    node = _node(node.uuid)
    assert node.failure_reason == 'StepTimeout'
    assert 'deploy step deploy.write_image' in node.last_error


def test_manual_clean_returns_to_manageable(rpc, context, make_node):
    node = make_node()
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    rpc.do_node_clean(context, node.uuid, [
        {'interface': 'bios', 'step': 'apply_configuration',
         'args': {'settings': [{'name': 'HT', 'value': 'off'}]}}])
    _wait_state(node.uuid, states.MANAGEABLE)
    node = _node(node.uuid)
    assert node.driver_internal_info['bios_settings'] == {'HT': 'off'}
    assert node.clean_step == {}


def test_invalid_clean_steps_leave_node_manageable(rpc, context, make_node):
    node = make_node()
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    with pytest.raises(exception.InvalidParameterValue,
                       match='no clean step deploy.nope'):
        rpc.do_node_clean(context, node.uuid, [
            {'interface': 'deploy', 'step': 'nope'}])
    assert _state(node.uuid) == states.MANAGEABLE


def test_clean_failure_sets_maintenance_and_fault(rpc, context, make_node):
    node = make_node(driver_info={
        'fake_fail_steps': 'deploy.erase_devices_metadata'})
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    rpc.do_provisioning_action(context, node.uuid, 'provide')
    _wait_state(node.uuid, states.CLEANFAIL)
    node = _node(node.uuid)
    assert node.maintenance is True
    assert node.fault == 'clean failure'
    assert node.clean_step['step'] == 'erase_devices_metadata'
    assert 'deploy.erase_devices_metadata' in node.last_error
    assert node.target_provision_state == states.AVAILABLE


def test_automated_clean_can_be_turned_off(rpc, context, make_node, conf):
    conf.set('conductor', automated_clean=False)
    node = make_node(driver_info={
        'fake_fail_steps': 'deploy.erase_devices_metadata'})
    _to_available(rpc, context, node)
    events = [h.event for h in history_db.list_for_node(node.id)]
    assert 'Automated cleaning is disabled' in events


def test_node_automated_clean_overrides_the_option(rpc, context,
                                                   make_node, conf):
    conf.set('conductor', automated_clean=False)
    node = make_node(automated_clean=True)
    _to_available(rpc, context, node)
    events = [h.event for h in history_db.list_for_node(node.id)]
    assert 'Clean step deploy.erase_devices_metadata started' in events


def test_verification_failure_returns_to_enroll(rpc, context, make_node):
    node = make_node(driver_info={'fake_validate_fail': ['management']})
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.ENROLL)
    node = _node(node.uuid)
    assert 'fake management validation failure' in node.last_error
    assert node.failure_reason == 'InvalidInput'


def test_manage_refuses_power_credentials_at_once(rpc, context, make_node):
    node = make_node(driver_info={'fake_validate_fail': ['power']})
    with pytest.raises(exception.InvalidParameterValue,
                       match='fake power validation failure'):
        rpc.do_provisioning_action(context, node.uuid, 'manage')
    node = _node(node.uuid)
    assert (node.provision_state, node.target_provision_state,
            node.last_error, node.reservation) == \
        (states.ENROLL, None, None, None)


def test_rebuild_runs_the_deploy_steps_again(rpc, context, make_node):
    node = make_node()
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.ACTIVE)
    rpc.do_node_deploy(context, node.uuid, rebuild=True)
    _wait_state(node.uuid, states.ACTIVE)
    events = [h.event for h in history_db.list_for_node(node.id)]
    assert events.count('Deploy finished') == 2
    assert 'Rebuild requested with 4 steps' in events


def test_history_records_step_start_end_and_failure(rpc, context,
                                                    make_node):
    node = make_node(driver_info={'fake_fail_steps': ['deploy.deploy']})
    _to_available(rpc, context, node)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.DEPLOYFAIL)
    records = history_db.list_for_node(node.id)
    started = [r for r in records if r.event == 'Deploy step deploy.deploy '
               'started']
    failed = [r for r in records if r.severity == 'ERROR']
    assert started and failed
    assert failed[-1].event.startswith('Deploy step deploy.deploy failed')
    assert failed[-1].event_type == 'deploying'
    assert failed[-1].created_at >= started[0].created_at
    assert failed[-1].conductor == 'test-conductor'
    finished = [r for r in history_db.list_for_node(node.id)
                if r.event.startswith('Clean step deploy.erase_devices_'
                                      'metadata finished in')]
    assert finished


def test_deploy_in_maintenance_is_refused(rpc, context, make_node):
    node = make_node()
    _to_available(rpc, context, node)
    rpc.update_node(context, node.uuid, {'maintenance': True,
                                         'maintenance_reason': 'broken fan'})
    with pytest.raises(exception.NodeInMaintenance):
        rpc.do_node_deploy(context, node.uuid)
    assert _state(node.uuid) == states.AVAILABLE


def test_a_flow_whose_preparation_fails_runs_no_step(conductor, context,
                                                     make_node):
    """step_flow.start prepares the node first (the deploy and clean
    flows' ramdisk); a failed preparation fails the flow with the reason
    and runs no step."""
    import dataclasses

    from ironside.conductor import deployments
    from ironside.conductor import step_flow

    failures = []

    def prepare(task):
        raise exception.InvalidParameterValue(err='no deploy ramdisk')

    def on_fail(task, message, reason, event='fail'):
        failures.append(message)

    flow = dataclasses.replace(deployments.DEPLOY_FLOW, prepare=prepare,
                               on_fail=on_fail)
    node = make_node()
    with conductor.acquire(context, node.uuid) as task:
        step_flow.start(task, flow, [{'interface': 'deploy',
                                      'step': 'write_image', 'args': {}}])
    assert failures == ['Deploy preparation failed: no deploy ramdisk']
    node = _node(node.uuid)
    assert not node.deploy_step
    assert 'deploy_steps' not in node.driver_internal_info


def test_verification_records_the_boot_mode_the_bmc_reports(
        rpc, context, make_node):
    node = make_node(driver_internal_info={'fake_boot_mode': 'uefi',
                                           'fake_secure_boot': True})
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    node = _node(node.uuid)
    assert (node.boot_mode, node.secure_boot) == ('uefi', True)


def test_a_boot_mode_read_that_fails_does_not_fail_verification(
        rpc, context, make_node, monkeypatch):
    # The fake BMC always answers: the failing read is patched in.
    from ironside.drivers.modules import fake

    def _broken(self, task):
        raise exception.IronsideException('BMC answered garbage')
    monkeypatch.setattr(fake.FakeManagement, 'get_boot_mode', _broken)
    node = make_node(boot_mode='bios')
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    node = _node(node.uuid)
    assert (node.boot_mode, node.last_error) == ('bios', None)
