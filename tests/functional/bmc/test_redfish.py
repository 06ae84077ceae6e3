"""The redfish hardware type against sushy-tools' emulator."""

from __future__ import annotations

import functools
import http.server
import re
import threading

import pytest

from ironside.api import app as api_app
from ironside.common import exception
from ironside.common import states
from ironside.conductor import periodics
from ironside.db import deploy_templates as templates_db
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from ironside.drivers.modules.redfish import common as redfish_common
from tests import utils
from tests.functional.bmc import helpers
from tests.functional.fixtures import redfish_emulator
from tests.unit.api.conftest import ApiClient
from tests.unit.api.conftest import error_of
from tests.utils import wait_for


def test_enroll_manage_power_and_boot_device(rpc, context, redfish,
                                             make_bmc_node):
    node = make_bmc_node('redfish', redfish.driver_info(0))
    assert (node.power_interface, node.management_interface,
            node.deploy_interface, node.bios_interface) == \
        ('redfish', 'redfish', 'ramdisk', 'redfish')
    helpers.manage(rpc, context, node.uuid)
    assert helpers.node(node.uuid).power_state == states.POWER_OFF
    # Verification recorded what the BMC reports (the emulator: UEFI,
    # secure boot off), as Ironic caches it.
    managed = helpers.node(node.uuid)
    assert (managed.boot_mode, managed.secure_boot) == ('uefi', False)

    rpc.change_node_power_state(context, node.uuid, states.POWER_ON)
    helpers.wait_power(node.uuid, states.POWER_ON)
    assert redfish.state(0)['power_state'] == 'On'

    rpc.set_boot_device(context, node.uuid, 'pxe', persistent=True)
    assert redfish.state(0)['boot_device'] == 'Pxe'
    assert rpc.get_boot_device(context, node.uuid) == {
        'boot_device': 'pxe', 'persistent': True}

    rpc.change_node_power_state(context, node.uuid, states.POWER_OFF)
    helpers.wait_power(node.uuid, states.POWER_OFF)
    assert redfish.state(0)['power_state'] == 'Off'


def test_wrong_password_fails_in_the_worker_naming_the_bmc(
        rpc, context, redfish, make_bmc_node):
    """Validation does not ask the BMC (the API's 202 waits for it): a
    power action with wrong credentials is accepted and fails in its
    worker; manage goes back to enroll; a synchronous read is refused
    (400). Each names the BMC and the user, never the password."""
    node = make_bmc_node('redfish', redfish.driver_info(
        1, redfish_password='not-the-password'))
    api = ApiClient(api_app.build_app(rpc))
    rejected = 'Redfish BMC %s rejected the credentials of user "admin"' \
        % redfish.url

    response = api.put('/v1/nodes/%s/states/power' % node.uuid,
                       {'target': 'power on'})
    assert response.status_code == 202, response.text
    after = helpers.wait_power_settled(node.uuid)
    assert after.last_error == \
        'Failed to change power state to "power on": %s' % rejected
    assert redfish.state(1)['power_state'] == 'Off'

    response = api.put('/v1/nodes/%s/states/provision' % node.uuid,
                       {'target': 'manage'})
    assert response.status_code == 202, response.text
    wait_for(lambda: helpers.node(node.uuid).last_error ==
             'Failed to verify node: %s' % rejected, what='verify to fail')
    helpers.wait_state(node.uuid, states.ENROLL)

    response = api.get('/v1/nodes/%s/management/boot_device' % node.uuid)
    assert response.status_code == 400
    assert error_of(response) == rejected
    assert 'not-the-password' not in response.text
    # driver_info is complete: validation says so, as Ironic's does.
    verdict = rpc.validate_driver_interfaces(context, node.uuid)
    assert verdict['power'] == {'result': True, 'reason': None}


def test_missing_driver_info_is_named(rpc, context, redfish, make_bmc_node):
    node = make_bmc_node('redfish', {'redfish_address': redfish.url})
    verdict = rpc.validate_driver_interfaces(context, node.uuid)
    assert verdict['power'] == {
        'result': False,
        'reason': 'Node %s: driver_info is missing redfish_username'
                  % node.uuid}


def test_slow_bmc_power_timeout_is_honoured(rpc, context, redfish,
                                            make_bmc_node):
    node = make_bmc_node('redfish', redfish.driver_info(2))
    redfish.configure(2, power_state='Off', power_delay=30)
    try:
        rpc.change_node_power_state(context, node.uuid, states.POWER_ON,
                                    timeout=1)
        node = helpers.wait_power_settled(node.uuid, timeout=10)
        assert node.failure_reason == 'PowerFailure'
        assert 'did not reach power state "power on" within 1s' in \
            node.last_error
        assert redfish.url in node.last_error
        assert node.reservation is None
    finally:
        redfish.configure(2, power_state='Off', power_delay=0,
                          pending_power=None)


def _bios_template(name, settings):
    templates_db.create({'name': name, 'steps': [
        {'interface': 'bios', 'step': 'apply_configuration',
         'args': {'settings': settings}, 'priority': 90}]})


def test_deploy_applies_bios_settings_from_a_template(rpc, context, redfish,
                                                      make_bmc_node):
    _bios_template('CUSTOM_TURBO_OFF',
                   [{'name': 'ProcTurboMode', 'value': 'Disabled'}])
    node = make_bmc_node('redfish', redfish.driver_info(3))
    rpc.add_node_traits(context, node.uuid, ['CUSTOM_TURBO_OFF'])
    helpers.to_available(rpc, context, node.uuid)
    boots = redfish.state(3).get('boots', 0)

    rpc.do_node_deploy(context, node.uuid)
    helpers.wait_state(node.uuid, states.ACTIVE)

    state = redfish.state(3)
    assert state['bios']['ProcTurboMode'] == 'Disabled'
    assert state['power_state'] == 'On'
    assert state['boot_device'] == 'Hdd'
    assert state['boots'] >= boots + 2  # the BIOS reboot, then the deploy
    node = helpers.node(node.uuid)
    assert node.power_state == states.POWER_ON
    events = [h.event for h in history_db.list_for_node(node.id)]
    assert 'Deploy step bios.apply_configuration is running ' \
           'asynchronously' in events
    assert events.index('Deploy step bios.apply_configuration started') < \
        events.index('Deploy step deploy.prepare_instance_boot started')


def test_raid_clean_steps_wait_for_bmc_tasks(rpc, context, redfish,
                                             make_bmc_node):
    redfish.configure(1, task_delay=0.5)
    node = make_bmc_node('redfish', redfish.driver_info(1),
                         target_raid_config={'logical_disks': [
                             {'size_gb': 100, 'raid_level': '1',
                              'is_root_volume': True},
                             {'size_gb': 'MAX', 'raid_level': '0'}]})
    helpers.manage(rpc, context, node.uuid)
    rpc.do_node_clean(context, node.uuid, [
        {'interface': 'raid', 'step': 'create_configuration'}])
    wait_for(lambda: helpers.node(node.uuid).provision_state ==
             states.CLEANWAIT, what='clean wait')
    helpers.wait_state(node.uuid, states.MANAGEABLE)
    node = helpers.node(node.uuid)
    assert node.last_error is None
    volumes = redfish.state(1)['volumes'][redfish_emulator.STORAGE_ID]
    assert sorted(v['RAIDType'] for v in volumes) == ['RAID0', 'RAID1']
    assert sorted(d['raid_level'] for d in
                  node.raid_config['logical_disks']) == ['0', '1']
    assert 100 in [d['size_gb'] for d in node.raid_config['logical_disks']]

    rpc.do_node_clean(context, node.uuid, [
        {'interface': 'raid', 'step': 'delete_configuration'}])
    helpers.wait_state(node.uuid, states.MANAGEABLE)
    assert redfish.state(1)['volumes'][redfish_emulator.STORAGE_ID] == []
    assert helpers.node(node.uuid).raid_config == {'logical_disks': []}


def test_failed_bmc_task_fails_the_step(rpc, context, redfish,
                                        make_bmc_node):
    redfish.configure(0, task_delay=0.2, task_fail=True)
    try:
        node = make_bmc_node('redfish', redfish.driver_info(0),
                             target_raid_config={'logical_disks': [
                                 {'size_gb': 10, 'raid_level': '0'}]})
        helpers.manage(rpc, context, node.uuid)
        rpc.do_node_clean(context, node.uuid, [
            {'interface': 'raid', 'step': 'create_configuration'}])
        helpers.wait_state(node.uuid, states.CLEANFAIL)
        node = helpers.node(node.uuid)
        assert 'raid.create_configuration' in node.last_error
        assert 'Emulated controller failure' in node.last_error
        assert node.clean_step['step'] == 'create_configuration'
        assert node.reservation is None
    finally:
        redfish.configure(0, task_fail=False)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def iso_url(tmp_path):
    (tmp_path / 'boot.iso').write_bytes(b'\0' * 4096)
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield 'http://127.0.0.1:%d/boot.iso' % server.server_port
    server.shutdown()
    server.server_close()


def test_virtual_media_boot_inserts_the_instance_iso(rpc, context, redfish,
                                                     make_bmc_node,
                                                     iso_url):
    node = make_bmc_node('redfish', redfish.driver_info(2),
                         boot_interface='redfish-virtual-media',
                         instance_info={'boot_iso': iso_url})
    helpers.to_available(rpc, context, node.uuid)
    rpc.do_node_deploy(context, node.uuid)
    helpers.wait_state(node.uuid, states.ACTIVE)
    state = redfish.state(2)
    assert state['boot_device'] == 'Cd'
    image, _, inserted = state['boot_image']['Cd']
    assert inserted and image
    rpc.do_node_tear_down(context, node.uuid)
    helpers.wait_state(node.uuid, states.AVAILABLE)
    assert redfish.state(2)['power_state'] == 'Off'


def test_bmc_down_mid_step_fails_the_step_naming_it(rpc, context,
                                                    make_bmc_node):
    emulator = redfish_emulator.RedfishEmulator(systems=1,
                                                prefix='doomed').start()
    try:
        emulator.configure(0, task_delay=60)
        node = make_bmc_node('redfish', emulator.driver_info(0),
                             target_raid_config={'logical_disks': [
                                 {'size_gb': 10, 'raid_level': '0'}]})
        helpers.manage(rpc, context, node.uuid)
        rpc.do_node_clean(context, node.uuid, [
            {'interface': 'raid', 'step': 'create_configuration'}])
        wait_for(lambda: helpers.node(node.uuid).provision_state ==
                 states.CLEANWAIT, what='clean wait')
    finally:
        emulator.stop()
    helpers.wait_state(node.uuid, states.CLEANFAIL)
    node = helpers.node(node.uuid)
    # Stopped between two polls, or in the middle of one.
    assert re.search(r'BMC %s (cannot be reached|did not answer): poll RAID '
                     r'tasks: Connection (refused|reset by peer)'
                     % re.escape(emulator.url), node.last_error), \
        node.last_error
    assert node.failure_reason == 'BMCUnreachable'
    assert node.reservation is None
    assert nodes_db.get_node(node.id).clean_step['step'] == \
        'create_configuration'


def test_critical_health_faults_the_node_until_it_recovers(
        rpc, context, conductor, redfish, make_bmc_node):
    node = make_bmc_node('redfish', redfish.driver_info(1))
    helpers.manage(rpc, context, node.uuid)
    periodics.sync_power_states(conductor)
    node = helpers.node(node.uuid)
    assert node.driver_internal_info['health'] == {'health': 'ok',
                                                   'reasons': []}
    assert node.maintenance is False

    redfish.configure(1, health='Critical')
    try:
        periodics.sync_power_states(conductor)
        node = helpers.node(node.uuid)
        assert (node.maintenance, node.fault) == (True, 'hardware failure')
        assert 'hardware health as critical' in node.maintenance_reason
        events = [h.event for h in history_db.list_for_node(node.id)]
        assert node.maintenance_reason in events
    finally:
        redfish.configure(1, health='OK')
    periodics.sync_power_states(conductor)
    node = helpers.node(node.uuid)
    assert (node.maintenance, node.fault, node.maintenance_reason) == \
        (False, None, None)
    assert node.driver_internal_info['health']['health'] == 'ok'


def test_refused_connection_is_rebuilt(rpc, context, redfish,
                                       make_bmc_node):
    node = make_bmc_node('redfish', redfish.driver_info(2))
    info = redfish_common.parse_driver_info(node)
    rpc.get_boot_device(context, node.uuid)
    cached = redfish_common.CONNECTIONS.get(info)
    assert redfish_common.CONNECTIONS.get(info) is cached

    # The BMC no longer accepts the cached connection (its session
    # expired): the next action opens a new one and succeeds.
    redfish.reset_stats()
    redfish.refuse_next(1)
    rpc.set_boot_device(context, node.uuid, 'pxe', persistent=True)
    assert redfish.stats()['refused'] == 1
    assert redfish.state(2)['boot_device'] == 'Pxe'
    assert redfish_common.CONNECTIONS.get(info) is not cached


def test_password_changed_on_the_bmc_then_in_driver_info(
        rpc, context, redfish, make_bmc_node):
    node = make_bmc_node('redfish', redfish.driver_info(2))
    rpc.get_boot_device(context, node.uuid)
    redfish.set_password('n3w-secret')
    try:
        with pytest.raises(exception.InvalidParameterValue) as err:
            rpc.get_boot_device(context, node.uuid)
        assert 'rejected the credentials of user "admin"' in str(err.value)
        assert err.value.code == 400
        utils.update_node(node.id, {'driver_info': redfish.driver_info(
            2, redfish_password='n3w-secret')})
        rpc.set_boot_device(context, node.uuid, 'disk')
        assert redfish.state(2)['boot_device'] == 'Hdd'
    finally:
        redfish.set_password(redfish_emulator.PASSWORD)


def test_a_service_step_changes_the_boot_mode_on_the_bmc(rpc, context,
                                                          redfish,
                                                          make_bmc_node):
    """Servicing (1.87) on a deployed Redfish node: the emulator reports
    the boot mode the service step set, and the node is active again."""
    node = make_bmc_node('redfish', redfish.driver_info(3))
    helpers.to_available(rpc, context, node.uuid)
    rpc.do_node_deploy(context, node.uuid)
    helpers.wait_state(node.uuid, states.ACTIVE)
    redfish.configure(3, boot_mode='UEFI')

    rpc.do_node_service(context, node.uuid, [
        {'interface': 'management', 'step': 'apply_boot_mode',
         'args': {'mode': 'bios'}}])
    helpers.wait_state(node.uuid, states.ACTIVE)
    assert redfish.state(3)['boot_mode'] == 'Legacy'
    events = [h.event for h in history_db.list_for_node(node.id)]
    assert 'Service step management.apply_boot_mode started' in events


def test_a_runbook_changes_what_the_bmc_reports(rpc, context, redfish,
                                                make_bmc_node):
    """Issue 13: a runbook run by manual cleaning through the API on a
    Redfish node changes the BIOS the emulated BMC reports."""
    api = ApiClient(api_app.build_app(rpc))

    def bmc_bios():
        return redfish.state(2).get('bios', {})

    # Whatever the emulator's BIOS says now, the runbook says the opposite.
    wanted = 'Disabled' if bmc_bios().get('ProcTurboMode', 'Enabled') == \
        'Enabled' else 'Enabled'
    response = api.post('/v1/runbooks', {
        'name': 'CUSTOM_TURBO_FLIP', 'steps': [{
            'interface': 'bios', 'step': 'apply_configuration', 'order': 0,
            'args': {'settings': [{'name': 'ProcTurboMode',
                                   'value': wanted}]}}]})
    assert response.status_code == 201, response.text
    node = make_bmc_node('redfish', redfish.driver_info(2))
    helpers.manage(rpc, context, node.uuid)
    assert api.put('/v1/nodes/%s/traits/CUSTOM_TURBO_FLIP' % node.uuid
                   ).status_code == 204

    response = api.put('/v1/nodes/%s/states/provision' % node.uuid,
                       {'target': 'clean', 'runbook': 'CUSTOM_TURBO_FLIP'},
                       version='1.109')
    assert response.status_code == 202, response.text
    wait_for(lambda: bmc_bios().get('ProcTurboMode') == wanted and
             helpers.node(node.uuid).provision_state == states.MANAGEABLE,
             timeout=60,
             what='the runbook to set the BIOS and cleaning to end')
    assert helpers.node(node.uuid).last_error is None


def test_a_runbook_services_a_deployed_node_on_the_bmc(rpc, context,
                                                       redfish,
                                                       make_bmc_node):
    """Issue 13: a runbook run by servicing (1.92) through the API on a
    deployed Redfish node; its service step changes the boot mode the
    emulated BMC reports, and the node is active again."""
    api = ApiClient(api_app.build_app(rpc))
    response = api.post('/v1/runbooks', {
        'name': 'CUSTOM_LEGACY_BOOT', 'steps': [{
            'interface': 'management', 'step': 'apply_boot_mode',
            'order': 0, 'args': {'mode': 'bios'}}]})
    assert response.status_code == 201, response.text
    node = make_bmc_node('redfish', redfish.driver_info(3))
    helpers.to_available(rpc, context, node.uuid)
    rpc.do_node_deploy(context, node.uuid)
    helpers.wait_state(node.uuid, states.ACTIVE)
    redfish.configure(3, boot_mode='UEFI')
    # From 1.112 a node runs the runbooks that share one of its traits.
    for path in ('/v1/runbooks/CUSTOM_LEGACY_BOOT/traits/CUSTOM_RACK_4',
                 '/v1/nodes/%s/traits/CUSTOM_RACK_4' % node.uuid):
        response = api.put(path)
        assert response.status_code == 204, response.text

    response = api.put('/v1/nodes/%s/states/provision' % node.uuid,
                       {'target': 'service', 'runbook': 'CUSTOM_LEGACY_BOOT'})
    assert response.status_code == 202, response.text
    wait_for(lambda: redfish.state(3)['boot_mode'] == 'Legacy' and
             helpers.node(node.uuid).provision_state == states.ACTIVE,
             timeout=60,
             what='the runbook to set the boot mode and servicing to end')
    assert helpers.node(node.uuid).last_error is None
    events = [h.event for h in history_db.list_for_node(node.id)]
    assert 'Service step management.apply_boot_mode started' in events
