"""The ipmi hardware type against pyghmi BMC servers, with ipmitool as a
second opinion."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.conductor import periodics
from ironside.drivers.modules.ipmi import sessions as ipmi_sessions
from tests import utils
from tests.functional.bmc import helpers
from tests.utils import wait_for


def ipmitool(bmc, *args) -> str:
    """Debian's ipmitool against a fixture BMC (cipher suite 3)."""
    if shutil.which('ipmitool') is None:
        pytest.fail('ipmitool is missing; run tools/install-system-deps.sh')
    return subprocess.run(
        ['ipmitool', '-I', 'lanplus', '-C', '3', '-H', bmc.address,
         '-p', str(bmc.port), '-U', bmc.username, '-P', bmc.password]
        + list(args), check=True, capture_output=True, text=True,
        timeout=30).stdout


def test_power_and_boot_device_agree_with_ipmitool(rpc, context, ipmi,
                                                   make_bmc_node):
    bmc = ipmi.bmcs[0]
    node = make_bmc_node('ipmi', bmc.driver_info())
    assert (node.power_interface, node.management_interface,
            node.deploy_interface, node.boot_interface) == \
        ('ipmitool', 'ipmitool', 'ramdisk', 'pxe')
    helpers.manage(rpc, context, node.uuid)
    assert helpers.node(node.uuid).power_state == states.POWER_OFF
    assert 'Chassis Power is off' in ipmitool(bmc, 'chassis', 'power',
                                              'status')

    rpc.change_node_power_state(context, node.uuid, states.POWER_ON)
    helpers.wait_power(node.uuid, states.POWER_ON)
    assert 'Chassis Power is on' in ipmitool(bmc, 'chassis', 'power',
                                             'status')

    rpc.set_boot_device(context, node.uuid, 'pxe', persistent=True)
    assert rpc.get_boot_device(context, node.uuid) == {
        'boot_device': 'pxe', 'persistent': True}
    bootparam = ipmitool(bmc, 'chassis', 'bootparam', 'get', '5')
    assert 'Force PXE' in bootparam
    assert 'Options apply to all future boots' in bootparam

    ipmitool(bmc, 'chassis', 'bootdev', 'disk')
    assert rpc.get_boot_device(context, node.uuid) == {
        'boot_device': 'disk', 'persistent': False}

    ipmitool(bmc, 'chassis', 'power', 'off')
    rpc.change_node_power_state(context, node.uuid, states.REBOOT)
    helpers.wait_power(node.uuid, states.POWER_ON)
    assert ipmi.state(bmc.name)['power'] == 'on'
    rpc.change_node_power_state(context, node.uuid, states.SOFT_POWER_OFF)
    helpers.wait_power(node.uuid, states.POWER_OFF)
    assert 'Chassis Power is off' in ipmitool(bmc, 'chassis', 'power',
                                              'status')


def test_wrong_password_is_refused_at_validation(rpc, context, ipmi,
                                                 make_bmc_node):
    bmc = ipmi.bmcs[1]
    node = make_bmc_node('ipmi', bmc.driver_info(ipmi_password='wrong!'))
    with pytest.raises(exception.InvalidParameterValue) as err:
        rpc.change_node_power_state(context, node.uuid, states.POWER_ON)
    assert err.value.code == 400
    assert 'BMC 127.0.0.1:%d rejected the credentials of user "admin"' \
        % bmc.port in str(err.value)
    assert 'wrong!' not in str(err.value)
    after = helpers.node(node.uuid)
    assert (after.target_power_state, after.last_error,
            after.reservation) == (None, None, None)
    assert ipmi.state(bmc.name)['power_commands'] == 0


def test_bad_driver_info_is_named(rpc, context, make_bmc_node):
    node = make_bmc_node('ipmi', {'ipmi_address': '127.0.0.1',
                                  'ipmi_port': 'sixtwothree'})
    verdict = rpc.validate_driver_interfaces(context, node.uuid)
    assert verdict['management']['result'] is False
    assert "driver_info ipmi_port must be a port number (1-65535), not " \
           "'sixtwothree'" in verdict['management']['reason']


def test_slow_bmc_power_timeout_is_honoured(rpc, context, ipmi,
                                            make_bmc_node):
    bmc = ipmi.bmcs[2]
    ipmi.configure(bmc.name, power='off', power_delay=30)
    try:
        node = make_bmc_node('ipmi', bmc.driver_info())
        rpc.change_node_power_state(context, node.uuid, states.POWER_ON,
                                    timeout=1)
        node = helpers.wait_power_settled(node.uuid, timeout=10)
        assert 'BMC 127.0.0.1:%d did not reach power state "power on" ' \
               'within 1s' % bmc.port in node.last_error
        assert node.failure_reason == 'PowerFailure'
        assert node.reservation is None
    finally:
        ipmi.configure(bmc.name, power='off', power_delay=0)


def test_deploy_sets_boot_device_and_power_cycles(rpc, context, ipmi,
                                                  make_bmc_node):
    bmc = ipmi.bmcs[2]
    ipmi.configure(bmc.name, power='on')
    node = make_bmc_node('ipmi', bmc.driver_info())
    helpers.to_available(rpc, context, node.uuid)
    commands = ipmi.state(bmc.name)['power_commands']
    rpc.do_node_deploy(context, node.uuid)
    helpers.wait_state(node.uuid, states.ACTIVE)
    state = ipmi.state(bmc.name)
    assert (state['power'], state['boot_device'], state['persistent']) == \
        ('on', 'hd', True)
    assert state['power_commands'] == commands + 2  # off, then on
    rpc.do_node_tear_down(context, node.uuid)
    helpers.wait_state(node.uuid, states.AVAILABLE)
    assert ipmi.state(bmc.name)['power'] == 'off'


def test_bmc_reset_clean_step(rpc, context, ipmi, make_bmc_node):
    bmc = ipmi.bmcs[0]
    node = make_bmc_node('ipmi', bmc.driver_info())
    helpers.manage(rpc, context, node.uuid)
    resets = ipmi.state(bmc.name)['cold_resets']
    rpc.do_node_clean(context, node.uuid, [
        {'interface': 'management', 'step': 'reset_bmc'}])
    helpers.wait_state(node.uuid, states.MANAGEABLE)
    assert helpers.node(node.uuid).last_error is None
    # pyghmi sends the reset once and does not wait for the BMC to act on
    # it (a resetting BMC may never answer), so the count may lag.
    wait_for(lambda: ipmi.state(bmc.name)['cold_resets'] == resets + 1,
             what='the BMC to count the cold reset')
    assert rpc.get_boot_device(context, node.uuid)['boot_device'] in (
        'pxe', 'disk', None)


def test_bmc_down_mid_step_fails_it_naming_the_bmc(rpc, context, ipmi,
                                                   make_bmc_node):
    """pyghmi itself gives up on a silent BMC after ~25 s; the node's
    retry budget (1 s here) allows no second attempt."""
    bmc = ipmi.bmcs[3]
    ipmi.configure(bmc.name, power='on', power_delay=120)
    node = make_bmc_node('ipmi', bmc.driver_info())
    helpers.to_available(rpc, context, node.uuid)
    # The 1 s budget is for the silence only: a login on a loaded machine
    # may take longer than that.
    utils.update_node(node.uuid, {'driver_info': bmc.driver_info(
        ipmi_retry_timeout=1)})
    rpc.do_node_deploy(context, node.uuid)
    wait_for(lambda: ipmi.state(bmc.name)['pending'] == 'off',
             what='the power off to be pending')
    ipmi.configure(bmc.name, silent=True)
    try:
        helpers.wait_state(node.uuid, states.DEPLOYFAIL, timeout=90)
    finally:
        ipmi.configure(bmc.name, silent=False, power_delay=0)
    node = helpers.node(node.uuid)
    assert node.deploy_step['step'] == 'deploy'
    assert 'BMC 127.0.0.1:%d did not answer' % bmc.port in node.last_error
    assert node.failure_reason == 'BMCUnreachable'
    assert node.reservation is None
    # The BMC is back: the session process that met the silence was
    # ended with the call, and the next call opens a new session.
    utils.update_node(node.uuid, {'driver_info': bmc.driver_info()})
    rpc.change_node_power_state(context, node.uuid, states.POWER_OFF)
    helpers.wait_power(node.uuid, states.POWER_OFF)


def test_critical_sensor_faults_the_node_until_it_recovers(
        rpc, context, conductor, ipmi, make_bmc_node):
    bmc = ipmi.bmcs[1]
    node = make_bmc_node('ipmi', bmc.driver_info())
    helpers.manage(rpc, context, node.uuid)
    periodics.sync_power_states(conductor)
    node = helpers.node(node.uuid)
    assert node.driver_internal_info['health'] == {'health': 'ok',
                                                   'reasons': []}
    assert (node.maintenance, node.fault) == (False, None)

    ipmi.configure(bmc.name, psu_failed=True)
    try:
        periodics.sync_power_states(conductor)
        node = helpers.node(node.uuid)
        assert (node.maintenance, node.fault) == (True, 'hardware failure')
        assert node.maintenance_reason == (
            'The BMC reports the hardware health as critical: PSU1: '
            'Present, Failure')
        assert node.driver_internal_info['health']['health'] == 'critical'
    finally:
        ipmi.configure(bmc.name, psu_failed=False)
    periodics.sync_power_states(conductor)
    node = helpers.node(node.uuid)
    assert (node.maintenance, node.fault, node.maintenance_reason) == \
        (False, None, None)
    assert node.driver_internal_info['health']['health'] == 'ok'


def test_one_session_per_bmc_reused_and_logged_out(rpc, context, ipmi,
                                                   make_bmc_node):
    # A BMC no other test talks to: a logout is sent without waiting for
    # its answer, so another test's session ending could be counted late.
    bmc = ipmi.bmcs[4]
    before = ipmi.state(bmc.name)
    node = make_bmc_node('ipmi', bmc.driver_info())
    helpers.manage(rpc, context, node.uuid)
    rpc.change_node_power_state(context, node.uuid, states.POWER_ON)
    helpers.wait_power(node.uuid, states.POWER_ON)
    rpc.set_boot_device(context, node.uuid, 'pxe')
    assert rpc.get_boot_device(context, node.uuid)['boot_device'] == 'pxe'
    after = ipmi.state(bmc.name)
    assert after['sessions_opened'] == before['sessions_opened'] + 1

    ipmi_sessions.SESSIONS.close_all()
    wait_for(lambda: ipmi.state(bmc.name)['sessions_closed'] ==
             before['sessions_closed'] + 1, what='the session to end')
    # The next action opens a new session.
    rpc.change_node_power_state(context, node.uuid, states.POWER_OFF)
    helpers.wait_power(node.uuid, states.POWER_OFF)
    assert ipmi.state(bmc.name)['sessions_opened'] == \
        before['sessions_opened'] + 2
