"""Redfish inspection against sushy-tools' emulator, with inspection
rules applied to what the BMC reports."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.conductor import inspection
from ironside.conductor import task_manager
from ironside.db import inspection_rules as rules_db
from ironside.db import nodes as nodes_db
from ironside.drivers import factory
from ironside.drivers.modules.redfish import inspect as redfish_inspect
from tests.functional.bmc import helpers
from tests.functional.fixtures import redfish_emulator

RULE = {'phase': 'main', 'priority': 0, 'sensitive': False,
        'description': 'vendor and disks',
        'conditions': [{'op': 'eq', 'args': {'values': [
            '{inventory[cpu][architecture]}', 'x86_64']}}],
        'actions': [
            {'op': 'set-attribute', 'args': {
                'path': '/extra/first_disk_bytes',
                'value': '{inventory[disks][0][size]}'}},
            {'op': 'add-trait', 'args': {'name': 'CUSTOM_REDFISH'}}]}


def test_redfish_inspection_reads_the_bmc_and_rules_apply(
        conductor, context, redfish, make_bmc_node):
    node = make_bmc_node('redfish', redfish.driver_info(0))
    redfish.configure(0, cpus=8, memory_gib=32)
    rules_db.create(dict(RULE))
    with task_manager.acquire(context, node.uuid, conductor) as task:
        found = redfish_inspect.RedfishInspect().inspect_hardware(task)
        inspection.apply_rules(task, found['inventory'],
                               found['plugin_data'])
        task.save()
    inventory = found['inventory']
    disks = inventory['disks']
    assert len(disks) == 4
    assert {d['size'] for d in disks} == {redfish_emulator.DRIVE_BYTES}
    assert inventory['cpu']['architecture'] == 'x86_64'
    assert inventory['cpu']['count'] == 8
    assert inventory['cpu']['model_name'] == 'Emulated CPU'
    assert inventory['interfaces'] == [{
        'name': '52:54:00:00:00:00', 'mac_address': '52:54:00:00:00:00'}]
    assert inventory['system_vendor']['system_uuid'] == \
        redfish.systems[0]['uuid']
    stored = nodes_db.get_node(node.uuid)
    assert stored.properties['memory_mb'] == 32 * 1024
    assert stored.properties['cpus'] == 8
    assert stored.properties['capabilities'] == 'boot_mode:uefi'
    assert stored.properties['local_gb'] == \
        redfish_emulator.DRIVE_BYTES // 1024 ** 3 - 1
    assert stored.properties['cpu_arch'] == 'x86_64'
    assert stored.extra['first_disk_bytes'] == str(
        redfish_emulator.DRIVE_BYTES)
    assert 'CUSTOM_REDFISH' in nodes_db.get_node_traits(stored.id)


def test_an_unreachable_bmc_fails_the_inspection(
        conductor, context, make_bmc_node):
    node = make_bmc_node('redfish', {
        'redfish_address': 'http://127.0.0.1:9',
        'redfish_username': 'admin', 'redfish_password': 'x',
        'redfish_system_id': '/redfish/v1/Systems/none'})
    with task_manager.acquire(context, node.uuid, conductor) as task:
        with pytest.raises(exception.BMCConnectionFailed):
            redfish_inspect.RedfishInspect().inspect_hardware(task)


@pytest.mark.skipif(
    'redfish' not in factory.DriverFactory().interfaces['inspect'],
    reason='the redfish inspect entry point is not installed')
def test_the_inspect_verb_on_a_redfish_node(rpc, context, redfish,
                                            make_bmc_node):
    node = make_bmc_node('redfish', redfish.driver_info(1))
    assert node.inspect_interface == 'redfish'
    helpers.manage(rpc, context, node.uuid)
    rules_db.create(dict(RULE))
    rpc.do_provisioning_action(context, node.uuid, 'inspect')
    helpers.wait_state(node.uuid, 'manageable')
    stored = nodes_db.get_node(node.uuid)
    assert stored.last_error is None
    assert stored.properties['cpu_arch'] == 'x86_64'
    assert rules_db.get_inventory(stored.id, node.uuid)['inventory'][
        'disks']
