"""/v1/nodes/{node}/states: provision verbs, power, RAID and console."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of
from tests.utils import wait_for


def _provision(api, node, body, **kwargs):
    return api.put('/v1/nodes/%s/states/provision' % node['uuid'], body,
                   **kwargs)


def _state(node):
    return nodes_db.get_node(node['uuid']).provision_state


def test_states_document(api, create_node):
    node = create_node()
    body = api.get('/v1/nodes/%s/states' % node['uuid']).json
    assert body['provision_state'] == 'enroll'
    assert set(body) == {'console_enabled', 'last_error', 'power_state',
                         'provision_state', 'target_power_state',
                         'target_provision_state', 'provision_updated_at',
                         'raid_config', 'target_raid_config', 'boot_mode',
                         'secure_boot'}
    body = api.get('/v1/nodes/%s/states' % node['uuid'],
                   version='1.11').json
    assert 'raid_config' not in body and 'boot_mode' not in body


def test_manage_provide_deploy_undeploy(api, create_node):
    node = create_node()
    response = _provision(api, node, {'target': 'manage'})
    assert response.status_code == 202
    assert response.content == b''
    assert response.headers['location'].endswith(
        '/v1/nodes/%s/states' % node['uuid'])
    wait_for(lambda: _state(node) == 'manageable')
    assert _provision(api, node, {'target': 'provide'}).status_code == 202
    wait_for(lambda: _state(node) == 'available')
    response = _provision(api, node, {'target': 'active',
                                      'configdrive': 'H4sIAAAA'})
    assert response.status_code == 202, response.text
    wait_for(lambda: _state(node) == 'active')
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['instance_info']['configdrive'] == '******'
    assert shown['power_state'] == 'power on'
    assert _provision(api, node, {'target': 'rebuild'}).status_code == 202
    wait_for(lambda: _state(node) == 'active')
    assert _provision(api, node, {'target': 'deleted'}).status_code == 202
    wait_for(lambda: _state(node) == 'available')
    assert nodes_db.get_node(node['uuid']).instance_info == {}


def test_deploy_steps_and_dict_configdrive(api, available_node):
    node = available_node()
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [{'name': 'HT', 'value': 'off'}]},
              'priority': '150'}]
    response = _provision(api, node, {
        'target': 'active', 'deploy_steps': steps,
        'configdrive': {'meta_data': {'k': 'v'}, 'user_data': 'x'}})
    assert response.status_code == 202, response.text
    wait_for(lambda: _state(node) == 'active')
    bios = api.get('/v1/nodes/%s/bios' % node['uuid']).json['bios']
    assert [(s['name'], s['value']) for s in bios] == [('HT', 'off')]


@pytest.mark.parametrize('body,version,status,message', [
    ({'target': 'manage'}, '1.3', 406, 'Request not acceptable.'),
    ({'target': 'provide'}, '1.3', 406, 'Request not acceptable.'),
    ({'target': 'deploy'}, '1.72', 406, 'Request not acceptable.'),
    ({'target': 'active', 'deploy_steps': [
        {'interface': 'deploy', 'step': 'deploy', 'args': {},
         'priority': 1}]}, '1.68', 406, 'Request not acceptable.'),
    ({'target': 'active', 'configdrive': {'meta_data': {}}}, '1.55', 400,
     'Providing a JSON object for configdrive is only supported starting '
     'with API version 1.56'),
    ({'target': 'active', 'configdrive': {'vendor_data': {}}}, '1.58', 400,
     'Providing vendor_data in configdrive is only supported'),
    ({'target': 'manage', 'configdrive': 'abc'}, '1.34', 400,
     'Adding a config drive is only supported when setting provision '
     'state to active, deploy'),
    ({'target': 'active', 'configdrive': 'not base64!'}, '1.115', 400,
     'Invalid configdrive format: it is neither a JSON, nor a URL, nor a '
     'base64 string'),
    ({'target': 'active', 'configdrive': {'colour': 'red'}}, '1.115', 400,
     'Schema error for configdrive'),
    ({'target': 'active', 'configdrive': 7}, '1.115', 400,
     'Expected types NoneType, dict, str for configdrive: 7'),
    ({'target': 'active', 'deploy_steps': [{'interface': 'deploy'}]},
     '1.115', 400, "Invalid deploy_steps: Schema error for deploy_steps: "
                   "'step' is a required property"),
    ({'target': 'active', 'deploy_steps': [
        {'interface': 'deploy', 'step': 'nope', 'args': {},
         'priority': 1}]}, '1.115', 400, 'has no deploy step deploy.nope'),
    ({'target': 'active', 'deploy_steps': [
        {'interface': 'bios', 'step': 'apply_configuration', 'args': {},
         'priority': 1}]}, '1.115', 400,
     'Step bios.apply_configuration is missing required argument(s) '
     'settings'),
    ({'target': 'manage', 'deploy_steps': [
        {'interface': 'deploy', 'step': 'deploy', 'args': {},
         'priority': 1}]}, '1.115', 400,
     '"deploy_steps" is only valid when setting target provision state to '
     'active or rebuild'),
    ({'target': 'active', 'clean_steps': [{'interface': 'deploy',
                                           'step': 'x'}]}, '1.115', 400,
     '"clean_steps" is only valid when setting target provision state to '
     'clean'),
    ({'target': 'active', 'rescue_password': 'x'}, '1.115', 400,
     '"rescue_password" is only valid when setting target provision state '
     'to rescue'),
    ({'target': 'active', 'disable_ramdisk': True}, '1.115', 400,
     'disable_ramdisk is supported only with manual cleaning or servicing'),
    ({'target': 'active', 'runbook': 'r1'}, '1.91', 406,
     'Request not acceptable.'),
    ({'target': 'active', 'runbook': 'r1'}, '1.115', 404,
     'Runbook with name or uuid r1 could not be found.'),
    ({'target': 'active', 'colour': 'red'}, '1.115', 400,
     'Unexpected arguments: colour'),
    ({}, '1.115', 400, 'Missing mandatory parameter: target'),
    ({'target': 'fly'}, '1.115', 400,
     'The requested action "fly" can not be performed on node'),
    ({'target': 'provide'}, '1.115', 400,
     'The requested action "provide" can not be performed on node'),
])
def test_provision_refusals(api, available_node, body, version, status,
                            message):
    node = available_node()
    response = _provision(api, node, body, version=version)
    assert response.status_code == status
    assert message in error_of(response)
    assert _state(node) == 'available'


def test_transition_in_progress_is_409(api, available_node):
    node = available_node()
    utils.update_node(node['uuid'], {'provision_state': 'deploying',
                                        'reservation': 'other-host'})
    response = _provision(api, node, {'target': 'active'})
    assert response.status_code == 409
    assert error_of(response) == (
        'Node %s is locked by host other-host, please retry after the '
        'current operation is completed.' % node['uuid'])


def test_deploy_in_maintenance_is_400(api, available_node):
    node = available_node()
    api.put('/v1/nodes/%s/maintenance' % node['uuid'], {'reason': 'r'})
    response = _provision(api, node, {'target': 'active'})
    assert response.status_code == 400
    assert error_of(response) == (
        "The provisioning operation can't be performed on node %s because "
        "it's in maintenance mode." % node['uuid'])


def test_manual_clean(api, create_node):
    node = create_node()
    _provision(api, node, {'target': 'manage'})
    wait_for(lambda: _state(node) == 'manageable')
    response = _provision(api, node, {'target': 'clean'})
    assert response.status_code == 400
    assert error_of(response) == ('"clean_steps" is required when setting '
                                  'target provision state to clean')
    response = _provision(api, node, {'target': 'clean', 'clean_steps': [
        {'interface': 'raid', 'step': 'create_configuration'}]},
        version='1.14')
    assert response.status_code == 406
    response = _provision(api, node, {'target': 'clean', 'clean_steps': [
        {'interface': 'raid', 'step': 'create_configuration'}],
        'disable_ramdisk': True})
    assert response.status_code == 202, response.text
    wait_for(lambda: _state(node) == 'manageable')


def test_abort_a_waiting_deploy_needs_1_110(api, available_node):
    node = available_node(driver_info={'fake_step_delays': {
        'deploy.write_image': 30}})
    assert _provision(api, node, {'target': 'active'}).status_code == 202
    wait_for(lambda: _state(node) == 'wait call-back')
    response = _provision(api, node, {'target': 'abort'}, version='1.109')
    assert response.status_code == 406
    response = _provision(api, node, {'target': 'abort'})
    assert response.status_code == 202
    wait_for(lambda: _state(node) == 'deploy failed')
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['failure_reason'] == 'Aborted'
    assert 'write_image' in shown['last_error']


def _wait_state(node, state):
    wait_for(lambda: nodes_db.get_node(node['uuid']).provision_state ==
             state, what='node to reach %s' % state)


def test_rescue_and_unrescue(api, available_node):
    node = available_node(rescue_interface='fake')
    utils.update_node(node['uuid'], {'provision_state': 'active'})
    missing = _provision(api, node, {'target': 'rescue'})
    assert missing.status_code == 400
    assert 'rescue_password' in error_of(missing)
    assert _provision(api, node, {'target': 'rescue',
                                  'rescue_password': '  '}
                      ).status_code == 400
    assert _provision(api, node, {'target': 'rescue',
                                  'rescue_password': 'p4ss'},
                      version='1.37').status_code == 406
    response = _provision(api, node, {'target': 'rescue',
                                      'rescue_password': 'p4ss'})
    assert response.status_code == 202, response.text
    _wait_state(node, 'rescue')
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert 'p4ss' not in str(shown)
    assert _provision(api, node, {'target': 'unrescue'}
                      ).status_code == 202
    _wait_state(node, 'active')


def test_adopt(api, create_node):
    node = create_node()
    utils.update_node(node['uuid'], {'provision_state': 'manageable'})
    assert _provision(api, node, {'target': 'adopt'}, version='1.16'
                      ).status_code == 406
    assert _provision(api, node, {'target': 'adopt'}).status_code == 202
    _wait_state(node, 'active')


def _held(api, available_node):
    """A node whose deploy is held by a hold step."""
    node = available_node()
    hold = [{'interface': 'deploy', 'step': 'hold', 'priority': 70,
             'args': {}}]
    response = _provision(api, node, {'target': 'active',
                                      'deploy_steps': hold})
    assert response.status_code == 202, response.text
    _wait_state(node, 'deploy hold')
    return node


def test_hold_step_and_unhold(api, available_node):
    node = _held(api, available_node)
    assert nodes_db.get_node(node['uuid']).deploy_step['step'] == 'hold'
    assert _provision(api, node, {'target': 'unhold'}, version='1.84'
                      ).status_code == 406
    assert _provision(api, node, {'target': 'unhold'}).status_code == 202
    _wait_state(node, 'active')


def test_abort_a_held_deploy(api, available_node):
    node = _held(api, available_node)
    assert _provision(api, node, {'target': 'abort'}).status_code == 202
    _wait_state(node, 'deploy failed')
    failed = nodes_db.get_node(node['uuid'])
    assert failed.failure_reason == 'Aborted'
    assert 'held after step deploy.hold' in failed.last_error


def test_wait_step_with_seconds(api, available_node):
    node = available_node()
    wait = [{'interface': 'deploy', 'step': 'wait', 'priority': 70,
             'args': {'seconds': 1}}]
    assert _provision(api, node, {'target': 'active',
                                  'deploy_steps': wait}).status_code == 202
    _wait_state(node, 'active')
    bad = [{'interface': 'deploy', 'step': 'wait', 'priority': 70,
            'args': {'seconds': 'soon'}}]
    node2 = available_node()
    assert _provision(api, node2, {'target': 'active',
                                   'deploy_steps': bad}).status_code == 400


# Power

def _power(api, node, body, **kwargs):
    return api.put('/v1/nodes/%s/states/power' % node['uuid'], body,
                   **kwargs)


def _powered(node, state: str) -> bool:
    """The node reached ``state`` and its worker gave the lock back (the
    worker saves the state, then releases the node: a request sent in
    between finds it locked)."""
    found = nodes_db.get_node(node['uuid'])
    return found.power_state == state and found.reservation is None


def test_power_actions(api, create_node):
    node = create_node()
    response = _power(api, node, {'target': 'power on'})
    assert response.status_code == 202
    wait_for(lambda: _powered(node, 'power on'))
    assert _power(api, node, {'target': 'soft power off',
                              'timeout': 10}).status_code == 202
    wait_for(lambda: _powered(node, 'power off'))
    assert _power(api, node, {'target': 'rebooting'}).status_code == 202
    wait_for(lambda: _powered(node, 'power on'))


def test_power_target_is_shown_while_it_changes(api, create_node):
    node = create_node(driver_info={'fake_power_delay': 1})
    assert _power(api, node, {'target': 'power on'}).status_code == 202
    assert api.get('/v1/nodes/%s' % node['uuid']).json[
        'target_power_state'] == 'power on'
    response = _power(api, node, {'target': 'power off'})
    assert response.status_code == 409
    wait_for(lambda: api.get('/v1/nodes/%s' % node['uuid']).json[
        'target_power_state'] is None)


@pytest.mark.parametrize('body,version,status,message', [
    ({'target': 'soft power off'}, '1.26', 406, 'Request not acceptable.'),
    ({'target': 'power on', 'timeout': 5}, '1.26', 406,
     'Request not acceptable.'),
    ({'target': 'power on', 'timeout': 0}, '1.115', 400,
     'timeout has to be positive integer'),
    ({'target': 'power on', 'timeout': 'soon'}, '1.115', 400,
     'Expected an integer for timeout: soon'),
    ({'target': 'sleep'}, '1.115', 400,
     'The requested action "sleep" can not be performed on node'),
    ({}, '1.115', 400, 'Missing mandatory parameter: target'),
])
def test_power_refusals(api, create_node, body, version, status, message):
    node = create_node()
    response = _power(api, node, body, version=version)
    assert response.status_code == status
    assert error_of(response).startswith(message)


def test_power_off_refused_when_disabled(api, create_node):
    node = create_node(disable_power_off=True)
    response = _power(api, node, {'target': 'power off'})
    assert response.status_code == 409
    assert error_of(response) == \
        'Failed to set node power state to power off.'


# RAID and console

def test_target_raid_config(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/states/raid' % node['uuid']
    config = {'logical_disks': [{'size_gb': 100, 'raid_level': '1'}]}
    response = api.put(path, config)
    assert response.status_code == 204
    assert api.get('/v1/nodes/%s' % node['uuid']).json[
        'target_raid_config'] == config
    assert api.put(path, config, version='1.11').status_code == 406
    response = api.put(path, {'logical_disks': [{'size_gb': 1}]})
    assert response.status_code == 400
    assert "'raid_level' is a required property" in error_of(response)
    other = create_node(raid_interface='no-raid')
    response = api.put('/v1/nodes/%s/states/raid' % other['uuid'], config)
    assert response.status_code == 404
    assert error_of(response) == ('Driver fake-hardware does not support '
                                  'raid (disabled or not implemented).')


def test_console(api, create_node):
    node = create_node()
    path = '/v1/nodes/%s/states/console' % node['uuid']
    assert api.get(path).json == {'console_enabled': False,
                                  'console_info': None}
    response = api.put(path, {'enabled': 'true'})
    assert response.status_code == 202
    assert api.get(path).json == {
        'console_enabled': True,
        'console_info': {'type': 'socat', 'url': 'tcp://127.0.0.1:1'}}
    assert api.put(path, {'enabled': False}).status_code == 202
    assert api.get(path).json['console_enabled'] is False
    response = api.put(path, {})
    assert error_of(response) == 'Missing mandatory parameter: enabled'
    other = create_node(console_interface='no-console')
    response = api.put('/v1/nodes/%s/states/console' % other['uuid'],
                       {'enabled': True})
    assert response.status_code == 400
    assert 'does not support console' in error_of(response)
