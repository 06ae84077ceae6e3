"""openstacksdk's baremetal proxy against a real Ironside."""

from __future__ import annotations

import pytest
from openstack import exceptions as os_exc

from tests.functional.acceptance.conftest import BOTH_DEPLOYMENTS
from tests.functional.acceptance.conftest import available_node
from tests.functional.acceptance.conftest import sdk_wait_state
from tests.functional.acceptance.conftest import unique

pytestmark = [pytest.mark.functional, BOTH_DEPLOYMENTS]


def test_nodes_create_list_get_patch(sdk):
    name = unique('sdk')
    node = sdk.baremetal.create_node(driver='fake-hardware', name=name,
                                     resource_class='baremetal',
                                     driver_info={'ipmi_password': 'pw'})
    assert node.provision_state == 'enroll'
    assert node.driver_info == {'ipmi_password': '******'}
    assert name in [n.name for n in sdk.baremetal.nodes()]
    detailed = [n for n in sdk.baremetal.nodes(details=True,
                                               resource_class='baremetal')
                if n.name == name]
    assert detailed[0].id == node.id and detailed[0].driver == \
        'fake-hardware'
    fetched = sdk.baremetal.get_node(name, fields=['uuid', 'extra'])
    assert fetched.id == node.id
    patched = sdk.baremetal.patch_node(node, [
        {'op': 'add', 'path': '/extra/rack', 'value': 'r2'},
        {'op': 'add', 'path': '/properties/cpus', 'value': 8}])
    assert patched.extra == {'rack': 'r2'}
    assert patched.properties == {'cpus': 8}
    updated = sdk.baremetal.update_node(node, description='sdk node')
    assert updated.description == 'sdk node'
    with pytest.raises(os_exc.BadRequestException):
        sdk.baremetal.patch_node(node, [
            {'op': 'replace', 'path': '/no_such_field', 'value': 1}])
    assert sdk.baremetal.get_node(node.id).extra == {'rack': 'r2'}
    sdk.baremetal.delete_node(node)
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_node(node.id)


def test_pagination_follows_next(sdk):
    names = {unique('page') for _ in range(3)}
    for name in names:
        sdk.baremetal.create_node(driver='fake-hardware', name=name)
    seen = [n.name for n in sdk.baremetal.nodes(limit=1,
                                                provision_state='enroll')]
    assert names <= set(seen)
    assert len(seen) == len(set(seen))


def test_provision_states_with_wait_and_power(sdk):
    node = available_node(sdk)
    assert node.provision_state == 'available'
    node = sdk.baremetal.set_node_provision_state(
        node, 'active', config_drive={'meta_data': {'hostname': 'sdk'}},
        wait=True, timeout=60)
    assert node.provision_state == 'active'
    assert node.power_state == 'power on'
    sdk.baremetal.set_node_power_state(node, 'power off', wait=True,
                                       timeout=30)
    assert sdk.baremetal.get_node(node.id).power_state == 'power off'
    sdk.baremetal.set_node_power_state(node, 'power on', wait=True,
                                       timeout=30)
    sdk.baremetal.set_node_power_state(node, 'rebooting', wait=True,
                                       timeout=30)
    assert sdk.baremetal.get_node(node.id).power_state == 'power on'
    sdk.baremetal.set_node_provision_state(node, 'deleted')
    done = sdk.baremetal.wait_for_nodes_provision_state([node.id],
                                                        'available',
                                                        timeout=60)
    assert [n.provision_state for n in done] == ['available']


def test_wait_for_nodes_reports_failure(sdk):
    node = available_node(sdk, driver_info={
        'fake_fail_steps': ['deploy.write_image']})
    sdk.baremetal.set_node_provision_state(node, 'active')
    with pytest.raises(os_exc.ResourceFailure, match='deploy failed'):
        sdk.baremetal.wait_for_nodes_provision_state([node], 'active',
                                                     timeout=60)
    failed = sdk.baremetal.get_node(node.id)
    assert failed.provision_state == 'deploy failed'
    assert 'deploy.write_image' in failed.last_error


def test_ports_and_vifs(sdk):
    node = sdk.baremetal.create_node(driver='fake-hardware',
                                     name=unique('vifs'))
    port = sdk.baremetal.create_port(node_id=node.id,
                                     address='52:54:00:20:00:01')
    assert [p.id for p in sdk.baremetal.ports(node=node.id)] == [port.id]
    assert sdk.baremetal.get_port(port.id).address == '52:54:00:20:00:01'
    sdk.baremetal.attach_vif_to_node(node, 'vif-1')
    assert sdk.baremetal.list_node_vifs(node) == ['vif-1']
    port = sdk.baremetal.get_port(port.id)
    assert port.internal_info == {'tenant_vif_port_id': 'vif-1'}
    with pytest.raises(os_exc.ConflictException):
        sdk.baremetal.attach_vif_to_node(node, 'vif-1',
                                         retry_on_conflict=False)
    sdk.baremetal.detach_vif_from_node(node, 'vif-1')
    assert sdk.baremetal.list_node_vifs(node) == []
    sdk.baremetal.delete_port(port)
    assert list(sdk.baremetal.ports(node=node.id)) == []


def test_allocations(sdk):
    node = available_node(sdk, name=unique('alloc'))
    sdk.baremetal.add_node_trait(node, 'CUSTOM_FAST')
    allocation = sdk.baremetal.create_allocation(
        resource_class='baremetal', traits=['CUSTOM_FAST'],
        candidate_nodes=[node.id], name=unique('a'))
    allocation = sdk.baremetal.wait_for_allocation(allocation, timeout=30)
    assert allocation.state == 'active'
    assert allocation.node_id == node.id
    node = sdk.baremetal.get_node(node.id)
    assert node.allocation_id == allocation.id
    assert node.instance_id == allocation.id
    assert node.instance_info['traits'] == ['CUSTOM_FAST']
    assert sdk.baremetal.get_allocation(allocation.name).id == allocation.id
    assert allocation.id in [a.id for a in sdk.baremetal.allocations(
        node=node.id)]
    updated = sdk.baremetal.update_allocation(allocation,
                                              extra={'owner': 'sdk'})
    assert updated.extra == {'owner': 'sdk'}
    sdk.baremetal.delete_allocation(allocation)
    assert sdk.baremetal.get_node(node.id).allocation_id is None
    failed = sdk.baremetal.create_allocation(resource_class='no-such-class')
    failed = sdk.baremetal.wait_for_allocation(failed, timeout=30,
                                               ignore_error=True)
    assert failed.state == 'error'
    assert failed.last_error


def test_volume_connectors_and_targets(sdk):
    node = sdk.baremetal.create_node(driver='fake-hardware',
                                     name=unique('vol'))
    sdk.baremetal.set_node_power_state(node, 'power off', wait=True,
                                       timeout=30)
    iqn = 'iqn.2026-11.org.example:%s' % node.name
    connector = sdk.baremetal.create_volume_connector(
        node_id=node.id, type='iqn', connector_id=iqn)
    assert connector.connector_id == iqn
    assert [c.id for c in sdk.baremetal.volume_connectors(
        node=node.id)] == [connector.id]
    assert sdk.baremetal.get_volume_connector(connector.id).type == 'iqn'
    updated = sdk.baremetal.update_volume_connector(connector,
                                                    extra={'rack': '7'})
    assert updated.extra == {'rack': '7'}
    patched = sdk.baremetal.patch_volume_connector(connector, [
        {'op': 'replace', 'path': '/connector_id', 'value': iqn + '-b'}])
    assert patched.connector_id == iqn + '-b'
    # (A duplicate connector's 409 is checked through the CLI: the SDK
    # retries a 409 for 15 s before it raises.)
    target = sdk.baremetal.create_volume_target(
        node_id=node.id, volume_type='iscsi', boot_index=0,
        volume_id='vol-%s' % node.name, properties={'target_lun': 0})
    assert target.boot_index == 0
    assert [t.id for t in sdk.baremetal.volume_targets(
        node=node.id, details=True)] == [target.id]
    target = sdk.baremetal.patch_volume_target(target, [
        {'op': 'replace', 'path': '/boot_index', 'value': 1}])
    assert sdk.baremetal.get_volume_target(target.id).boot_index == 1
    sdk.baremetal.delete_volume_target(target)
    sdk.baremetal.delete_volume_connector(connector)
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_volume_connector(connector.id)
    assert list(sdk.baremetal.volume_targets(node=node.id)) == []


def test_runbooks(sdk):
    name = unique('CUSTOM_RB').upper().replace('-', '_')
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [{'name': 'SMT', 'value': 'off'}]},
              'order': 0}]
    runbook = sdk.baremetal.create_runbook(name=name, steps=steps)
    assert runbook.steps == steps
    assert runbook.public is False
    assert name in [r.name for r in sdk.baremetal.runbooks()]
    assert sdk.baremetal.get_runbook(name).id == runbook.id
    updated = sdk.baremetal.update_runbook(runbook, extra={'team': 'hw'})
    assert updated.extra == {'team': 'hw'}
    patched = sdk.baremetal.patch_runbook(runbook, [
        {'op': 'replace', 'path': '/description', 'value': 'SMT off'}])
    assert patched.description == 'SMT off'
    # Run it by manual cleaning on a node that carries its name.
    node = available_node(sdk)
    sdk.baremetal.set_node_provision_state(node, 'manage')
    sdk_wait_state(sdk, node.id, 'manageable')
    sdk.baremetal.add_node_trait(node, name)
    # The proxy's set_node_provision_state does not pass runbook on.
    sdk.baremetal.get_node(node.id).set_provision_state(
        sdk.baremetal, 'clean', runbook=name)
    node = sdk_wait_state(sdk, node.id, 'manageable')
    assert node.last_error is None
    assert node.driver_internal_info['bios_settings'] == {'SMT': 'off'}
    sdk.baremetal.delete_runbook(runbook)
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_runbook(runbook.id)


def test_inspection_rules_and_inventory(sdk):
    actions = [{'op': 'set-attribute',
                'args': {'path': '/properties/vendor',
                         'value': '{inventory[system_vendor][manufacturer]}'}}]
    rule = sdk.baremetal.create_inspection_rule(
        description='vendor', priority=5, actions=actions)
    assert (rule.priority, rule.phase, rule.sensitive) == (5, 'main', False)
    assert rule.actions == actions
    assert rule.id in [r.id for r in sdk.baremetal.inspection_rules()]
    assert sdk.baremetal.get_inspection_rule(rule.id).description == \
        'vendor'
    updated = sdk.baremetal.update_inspection_rule(rule, priority=7)
    assert updated.priority == 7
    patched = sdk.baremetal.patch_inspection_rule(rule, [
        {'op': 'replace', 'path': '/sensitive', 'value': True}])
    assert patched.sensitive is True and patched.actions is None
    node = available_node(sdk)
    sdk.baremetal.set_node_provision_state(node, 'manage')
    sdk_wait_state(sdk, node.id, 'manageable')
    sdk.baremetal.set_node_provision_state(node, 'inspect')
    node = sdk_wait_state(sdk, node.id, 'manageable')
    assert node.last_error is None
    assert node.properties['vendor'] == 'Ironside'
    inventory = sdk.baremetal.get_node_inventory(node)
    assert inventory['inventory']['cpu']['count'] == 2
    sdk.baremetal.delete_inspection_rule(rule)
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_inspection_rule(rule.id)


def test_chassis_port_groups_and_ports(sdk):
    chassis = sdk.baremetal.create_chassis(description='rack 1',
                                           extra={'row': 'a'})
    assert chassis.id in [c.id for c in sdk.baremetal.chassis()]
    assert sdk.baremetal.get_chassis(chassis.id).extra == {'row': 'a'}
    chassis = sdk.baremetal.update_chassis(chassis, description='rack 2')
    assert sdk.baremetal.get_chassis(chassis.id).description == 'rack 2'
    chassis = sdk.baremetal.patch_chassis(chassis, [
        {'op': 'add', 'path': '/extra/aisle', 'value': '3'}])
    assert chassis.extra == {'row': 'a', 'aisle': '3'}
    node = sdk.baremetal.create_node(driver='fake-hardware',
                                     name=unique('grp'),
                                     chassis_id=chassis.id)
    assert node.chassis_id == chassis.id
    group = sdk.baremetal.create_port_group(
        node_id=node.id, name=unique('bond'), address='52:54:00:30:00:01',
        mode='active-backup')
    assert [g.id for g in sdk.baremetal.port_groups(node=node.id)] == [
        group.id]
    group = sdk.baremetal.update_port_group(group, extra={'switch': 's1'})
    assert sdk.baremetal.get_port_group(group.name).extra == {
        'switch': 's1'}
    port = sdk.baremetal.create_port(node_id=node.id,
                                     address='52:54:00:30:00:02',
                                     port_group_id=group.id)
    assert port.port_group_id == group.id
    sdk.baremetal.update_port(port, extra={'cable': 'c7'})
    assert sdk.baremetal.get_port(port.id).extra == {'cable': 'c7'}
    sdk.baremetal.patch_port(port, [
        {'op': 'replace', 'path': '/address',
         'value': '52:54:00:30:00:03'}])
    assert sdk.baremetal.get_port(port.id).address == '52:54:00:30:00:03'
    with pytest.raises(os_exc.BadRequestException, match='contains nodes'):
        sdk.baremetal.delete_chassis(chassis)
    sdk.baremetal.delete_port(port)
    sdk.baremetal.delete_port_group(group)
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_port_group(group.id)
    sdk.baremetal.delete_node(node)
    sdk.baremetal.delete_chassis(chassis)
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_chassis(chassis.id)


def test_deploy_templates(sdk):
    name = unique('CUSTOM_TPL').upper().replace('-', '_')
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [{'name': 'SMT', 'value': 'on'}]},
              'priority': 150}]
    template = sdk.baremetal.create_deploy_template(name=name, steps=steps)
    assert template.steps == steps
    assert name in [t.name for t in sdk.baremetal.deploy_templates()]
    assert sdk.baremetal.get_deploy_template(name).id == template.id
    sdk.baremetal.update_deploy_template(template, extra={'team': 'hw'})
    assert sdk.baremetal.get_deploy_template(template.id).extra == {
        'team': 'hw'}
    patched = sdk.baremetal.patch_deploy_template(template, [
        {'op': 'replace', 'path': '/name', 'value': name + '_B'}])
    assert patched.name == name + '_B'
    # A node whose instance asks for the template's trait runs its step.
    node = available_node(sdk)
    sdk.baremetal.update_node(node, instance_info={'traits': [name + '_B']})
    sdk.baremetal.set_node_provision_state(node, 'active')
    node = sdk_wait_state(sdk, node.id, 'active')
    assert node.driver_internal_info['bios_settings'] == {'SMT': 'on'}
    sdk.baremetal.delete_deploy_template(template)
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_deploy_template(template.id)


def test_service_retire_raid_firmware_and_vmedia(sdk, ironside):
    """The verbs of API 1.61-1.93 through the proxy: servicing, retiring,
    the target RAID configuration, the firmware read and virtual media."""
    node = available_node(sdk)
    with pytest.raises(os_exc.ConflictException, match='available'):
        sdk.baremetal.update_node(node, retry_on_conflict=False,
                                  is_retired=True)
    sdk.baremetal.set_node_provision_state(node, 'active')
    node = sdk_wait_state(sdk, node.id, 'active')
    steps = [{'interface': 'management', 'step': 'apply_boot_mode',
              'args': {'mode': 'bios'}}]
    # The proxy's set_node_provision_state does not pass service_steps on.
    node.set_provision_state(sdk.baremetal, 'service', service_steps=steps)
    node = sdk_wait_state(sdk, node.id, 'active', until=lambda n: n.
                          driver_internal_info.get('fake_boot_mode') ==
                          'bios')
    assert node.last_error is None and node.service_step == {}
    node = sdk.baremetal.update_node(node, is_retired=True,
                                     retired_reason='end of life')
    assert (node.is_retired, node.retired_reason) == (True, 'end of life')
    # Torn down and cleaned, a retired node ends in manageable.
    sdk.baremetal.set_node_provision_state(node, 'deleted')
    sdk_wait_state(sdk, node.id, 'manageable')
    with pytest.raises(os_exc.BadRequestException, match='retired'):
        sdk.baremetal.set_node_provision_state(node, 'provide')
    node = sdk.baremetal.update_node(node, is_retired=False)
    assert (node.is_retired, node.retired_reason) == (False, None)
    raid = {'logical_disks': [
        {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True},
        {'size_gb': 'MAX', 'raid_level': 'JBOD'}]}
    response = sdk.baremetal.put('/nodes/%s/states/raid' % node.id,
                                 json=raid, microversion='1.115')
    assert response.status_code == 204, response.text
    assert sdk.baremetal.get_node(node.id).target_raid_config == raid
    # Read from the node when it was cleaned.
    firmware = sdk.baremetal.list_node_firmware(node)
    assert {c['component'] for c in firmware['firmware']} == {'bios',
                                                              'bmc'}
    sdk.baremetal.attach_vmedia_to_node(node, 'cdrom',
                                        'http://images/boot.iso')
    status, media = ironside.api('GET', '/v1/nodes/%s/vmedia' % node.id)
    assert status == 200, media
    assert {'device_type': 'cdrom', 'image': 'http://images/boot.iso',
            'inserted': True} in media['vmedia']
    sdk.baremetal.detach_vmedia_from_node(node)
    status, media = ironside.api('GET', '/v1/nodes/%s/vmedia' % node.id)
    assert not [m for m in media['vmedia'] if m['inserted']], media
