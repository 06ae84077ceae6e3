"""``openstack baremetal`` (python-ironicclient) against a real Ironside,
authenticated by the real Keystone (see conftest)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.functional.acceptance.conftest import BOTH_DEPLOYMENTS
from tests.functional.acceptance.conftest import unique
from tests.functional.acceptance.conftest import wait_state
from tests.functional.fixtures.clients import InProcessCli

pytestmark = [pytest.mark.functional, BOTH_DEPLOYMENTS]


def _node(cli, **extra) -> dict:
    name = unique('cli')
    args = ['node', 'create', '--driver', 'fake-hardware', '--name', name,
            '--resource-class', 'baremetal', '--property', 'cpus=2',
            '--property', 'memory_mb=4096', '-f', 'json']
    for key, value in extra.items():
        args[-2:-2] = ['--%s' % key.replace('_', '-'), value]
    return cli(*args)


def _available(cli, ironside) -> str:
    name = _node(cli)['name']
    cli('node', 'manage', name)
    wait_state(ironside, name, 'manageable')
    cli('node', 'provide', name)
    wait_state(ironside, name, 'available')
    return name


def test_node_create_list_show_set_unset_delete(cli):
    node = _node(cli, extra='rack=r1')
    name = node['name']
    assert node['provision_state'] == 'enroll'
    assert node['properties'] == {'cpus': 2, 'memory_mb': 4096}
    assert node['extra'] == {'rack': 'r1'}
    listed = cli('node', 'list', '-f', 'json')
    mine = [n for n in listed if n['name'] == name]
    assert mine == [{'uuid': node['uuid'], 'name': name,
                     'instance_uuid': None, 'power_state': None,
                     'provision_state': 'enroll', 'maintenance': False}]
    long = cli('node', 'list', '--long', '--provision-state', 'enroll',
               '-f', 'json')
    assert name in [n['name'] for n in long]
    assert all(n['provision_state'] == 'enroll' for n in long)
    assert all('driver_internal_info' in n for n in long)
    limited = cli('node', 'list', '--limit', '1', '--fields', 'uuid',
                  'name', '-f', 'json')
    assert len(limited) == 1 and set(limited[0]) == {'uuid', 'name'}
    cli('node', 'set', name, '--property', 'local_gb=40', '--driver-info',
        'ipmi_password=secret', '--description', 'rack one')
    shown = cli('node', 'show', name, '-f', 'json')
    assert shown['properties']['local_gb'] == 40
    assert shown['driver_info']['ipmi_password'] == '******'
    assert shown['description'] == 'rack one'
    fields = cli('node', 'show', name, '--fields', 'uuid', 'properties',
                 '-f', 'json')
    assert set(fields) == {'uuid', 'properties'}
    cli('node', 'unset', name, '--property', 'local_gb', '--extra', 'rack',
        '--description')
    shown = cli('node', 'show', name, '-f', 'json')
    assert 'local_gb' not in shown['properties']
    assert shown['extra'] == {}
    assert shown['description'] is None
    cli('node', 'delete', name)
    failure = cli('node', 'show', name, check=False)
    assert failure.code == 1
    assert 'could not be found' in failure.stderr


def test_lifecycle_deploy_rebuild_undeploy_and_wait(cli, ironside):
    name = _node(cli)['name']
    cli('node', 'manage', name, '--wait', '30')
    assert cli('node', 'show', name, '-f', 'json')['provision_state'] == \
        'manageable'
    cli('node', 'provide', name)
    wait_state(ironside, name, 'available')
    cli('node', 'deploy', name, '--config-drive',
        json.dumps({'meta_data': {'hostname': 'h1'}}))
    node = wait_state(ironside, name, 'active')
    assert node['power_state'] == 'power on'
    shown = cli('node', 'show', name, '-f', 'json')
    assert shown['instance_info'].get('configdrive', '******') == '******'
    assert 'hostname' not in json.dumps(shown)
    cli('node', 'rebuild', name)
    wait_state(ironside, name, 'active')
    cli('node', 'undeploy', name)
    node = wait_state(ironside, name, 'available')
    assert node['instance_info'] == {}
    history = cli('node', 'history', 'list', name, '-f', 'json')
    assert any('Tear down finished' in h['event'] for h in history)
    event = cli('node', 'history', 'get', name, history[0]['uuid'],
                '-f', 'json')
    assert event['event'] == history[0]['event']


def test_abort_deploy_and_clean(cli, ironside):
    name = _available(cli, ironside)
    cli('node', 'set', name, '--driver-info', 'fake_async_callback=true')
    cli('node', 'deploy', name)
    wait_state(ironside, name, 'wait call-back')
    cli('node', 'abort', name)
    node = wait_state(ironside, name, 'deploy failed')
    assert node['failure_reason'] == 'Aborted'
    cli('node', 'undeploy', name)
    wait_state(ironside, name, 'available')
    cli('node', 'manage', name)
    wait_state(ironside, name, 'manageable')
    steps = [{'interface': 'deploy', 'step': 'erase_devices'}]
    cli('node', 'clean', name, '--clean-steps', json.dumps(steps))
    wait_state(ironside, name, 'clean wait')
    cli('node', 'abort', name)
    node = cli('node', 'show', name, '-f', 'json')
    assert node['provision_state'] == 'clean failed'
    assert node['maintenance'] is False
    assert node['fault'] is None


def test_clean_with_steps(cli, ironside):
    name = _available(cli, ironside)
    cli('node', 'manage', name)
    wait_state(ironside, name, 'manageable')
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [{'name': 'SMT', 'value': 'off'}]}},
             {'interface': 'deploy', 'step': 'erase_devices_metadata'}]
    cli('node', 'clean', name, '--clean-steps', json.dumps(steps))
    wait_state(ironside, name, 'manageable')
    node = cli('node', 'show', name, '-f', 'json')
    assert node['provision_state'] == 'manageable'
    assert node['clean_step'] == {}
    assert cli('node', 'bios', 'setting', 'show', name, 'SMT',
               '-f', 'json')['value'] == 'off'
    bad = cli('node', 'clean', name, '--clean-steps',
              json.dumps([{'interface': 'deploy', 'step': 'nope'}]),
              check=False)
    assert bad.code == 1


def test_service_with_steps(cli, ironside):
    """``openstack baremetal node service`` (API 1.87) on a deployed node,
    with steps and with a runbook; a bad step is refused and the node
    stays active."""
    name = _available(cli, ironside)
    # (The CLI's --wait polls every 10 s; wait_state asks more often. The
    # API moves the node out of active before it answers.)
    cli('node', 'deploy', name)
    wait_state(ironside, name, 'active')
    steps = [{'interface': 'management', 'step': 'apply_boot_mode',
              'args': {'mode': 'bios'}}]
    cli('node', 'service', name, '--service-steps', json.dumps(steps))
    wait_state(ironside, name, 'active')
    node = cli('node', 'show', name, '-f', 'json')
    assert node['provision_state'] == 'active'
    assert node['last_error'] is None
    assert node['driver_internal_info']['fake_boot_mode'] == 'bios'
    bad = cli('node', 'service', name, '--service-steps',
              json.dumps([{'interface': 'deploy', 'step': 'nope'}]),
              check=False)
    assert bad.code == 1
    assert cli('node', 'show', name, '-f', 'json')['provision_state'] == \
        'active'
    # A runbook services it too (1.92), on a node that shares its trait.
    runbook = unique('CUSTOM_RB').upper().replace('-', '_')
    steps[0]['args'] = {'mode': 'uefi'}
    cli('runbook', 'create', '--name', runbook, '--steps',
        json.dumps([dict(steps[0], order=0)]))
    cli('runbook', 'trait', 'add', runbook, 'CUSTOM_SERVICED')
    cli('node', 'add', 'trait', name, 'CUSTOM_SERVICED')
    cli('node', 'service', name, '--runbook', runbook)
    wait_state(ironside, name, 'active')
    node = cli('node', 'show', name, '-f', 'json')
    assert (node['provision_state'], node['last_error']) == ('active', None)
    assert node['driver_internal_info']['fake_boot_mode'] == 'uefi'
    cli('runbook', 'delete', runbook)


def test_power_boot_device_maintenance(cli, ironside):
    name = _node(cli)['name']
    cli('node', 'manage', name)
    wait_state(ironside, name, 'manageable')
    cli('node', 'power', 'on', name)
    assert cli('node', 'show', name, '-f', 'json')['power_state'] == \
        'power on'
    cli('node', 'reboot', name)
    assert cli('node', 'show', name, '-f', 'json')['power_state'] == \
        'power on'
    cli('node', 'power', 'off', name)
    assert cli('node', 'show', name, '-f', 'json')['power_state'] == \
        'power off'
    supported = cli('node', 'boot', 'device', 'show', name, '--supported',
                    '-f', 'json')
    assert 'pxe' in supported['supported_boot_devices'].split(', ')
    cli('node', 'boot', 'device', 'set', name, 'pxe', '--persistent')
    assert cli('node', 'boot', 'device', 'show', name, '-f', 'json') == \
        {'boot_device': 'pxe', 'persistent': True}
    cli('node', 'maintenance', 'set', name, '--reason', 'fan')
    node = cli('node', 'show', name, '-f', 'json')
    assert (node['maintenance'], node['maintenance_reason']) == (True, 'fan')
    cli('node', 'maintenance', 'unset', name)
    node = cli('node', 'show', name, '-f', 'json')
    assert (node['maintenance'], node['maintenance_reason']) == (False, None)


def test_traits(cli):
    name = _node(cli)['name']
    cli('node', 'add', 'trait', name, 'CUSTOM_GPU', 'HW_CPU_X86_AVX2')
    traits = cli('node', 'trait', 'list', name, '-f', 'json')
    assert sorted(t['traits'] for t in traits) == ['CUSTOM_GPU',
                                                  'HW_CPU_X86_AVX2']
    cli('node', 'remove', 'trait', name, 'CUSTOM_GPU')
    assert [t['traits'] for t in cli('node', 'trait', 'list', name,
                                    '-f', 'json')] == ['HW_CPU_X86_AVX2']
    bad = cli('node', 'add', 'trait', name, 'lower_case', check=False)
    assert bad.code == 1
    cli('node', 'remove', 'trait', name, '--all')
    assert cli('node', 'trait', 'list', name, '-f', 'json') == []


def test_node_children_list(cli):
    parent = _node(cli)
    child = _node(cli, parent_node=parent['name'])
    assert child['parent_node'] == parent['uuid']
    shown = cli('node', 'children', 'list', parent['name'], '-f', 'json')
    assert shown == {'children': [child['uuid']]}


def test_ports_portgroups_and_vifs(cli):
    node = _node(cli)
    name = node['name']
    group = cli('port', 'group', 'create', '--node', node['uuid'],
                '--name', unique('bond'), '--address', '52:54:00:10:00:01',
                '-f', 'json')
    port = cli('port', 'create', '52:54:00:10:00:02', '--node',
               node['uuid'], '--port-group', group['name'], '-f', 'json')
    assert port['portgroup_uuid'] == group['uuid']
    lone = cli('port', 'create', '52:54:00:10:00:03', '--node',
               node['uuid'], '-f', 'json')
    ports = cli('port', 'list', '--node', name, '-f', 'json')
    assert sorted(p['uuid'] for p in ports) == sorted([port['uuid'],
                                                       lone['uuid']])
    assert cli('port', 'show', lone['uuid'], '-f', 'json')['address'] == \
        '52:54:00:10:00:03'
    groups = cli('port', 'group', 'list', '--node', name, '-f', 'json')
    assert [g['uuid'] for g in groups] == [group['uuid']]
    assert cli('port', 'group', 'show', group['name'], '-f', 'json')[
        'uuid'] == group['uuid']
    cli('node', 'vif', 'attach', name, 'vif-a')
    cli('node', 'vif', 'attach', name, 'vif-b')
    assert sorted(v['id'] for v in cli('node', 'vif', 'list', name,
                                       '-f', 'json')) == ['vif-a', 'vif-b']
    assert cli('port', 'group', 'show', group['uuid'], '-f', 'json')[
        'internal_info'] == {'tenant_vif_port_id': 'vif-a'}
    assert cli('port', 'show', lone['uuid'], '-f', 'json')[
        'internal_info'] == {'tenant_vif_port_id': 'vif-b'}
    full = cli('node', 'vif', 'attach', name, 'vif-c', check=False)
    assert 'not enough free physical ports' in full.stderr
    cli('node', 'vif', 'detach', name, 'vif-a')
    assert [v['id'] for v in cli('node', 'vif', 'list', name,
                                 '-f', 'json')] == ['vif-b']
    cli('port', 'delete', port['uuid'], lone['uuid'])
    cli('port', 'group', 'delete', group['name'])
    assert cli('port', 'list', '--node', name, '-f', 'json') == []


def test_drivers_conductors_allocations_templates(cli, ironside):
    drivers = cli('driver', 'list', '-f', 'json')
    assert 'fake-hardware' in [d['name'] for d in drivers]
    conductors = cli('conductor', 'list', '-f', 'json')
    assert [c['alive'] for c in conductors] == [True]
    name = _available(cli, ironside)
    allocation = cli('allocation', 'create', '--resource-class', 'baremetal',
                     '--candidate-node', name, '--name', unique('alloc'),
                     '--wait', '30', '-f', 'json')
    assert allocation['state'] == 'active'
    node = cli('node', 'show', name, '-f', 'json')
    assert node['allocation_uuid'] == allocation['uuid']
    assert node['instance_uuid'] == allocation['uuid']
    cli('allocation', 'delete', allocation['uuid'])
    assert cli('node', 'show', name, '-f', 'json')['instance_uuid'] is None
    allocation = cli('allocation', 'create', '--resource-class', 'baremetal',
                     '--candidate-node', name, '--name', unique('alloc'),
                     '--wait', '30', '-f', 'json')
    listed = cli('allocation', 'list', '--node', name, '-f', 'json')
    assert [_column(a) for a in listed] == [allocation['uuid']]
    cli('allocation', 'set', allocation['uuid'], '--extra', 'team=hw')
    assert cli('allocation', 'show', allocation['name'], '-f', 'json')[
        'extra'] == {'team': 'hw'}
    cli('allocation', 'unset', allocation['uuid'], '--extra', 'team')
    assert cli('allocation', 'show', allocation['uuid'], '-f', 'json')[
        'extra'] == {}
    cli('allocation', 'delete', allocation['uuid'])
    assert cli('allocation', 'show', allocation['uuid'],
               check=False).code == 1
    template = unique('CUSTOM_TPL').upper().replace('-', '_')
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [{'name': 'SMT', 'value': 'on'}]},
              'priority': 150}]
    created = cli('deploy', 'template', 'create', template, '--steps',
                  json.dumps(steps), '-f', 'json')
    assert created['steps'] == steps
    listed = cli('deploy', 'template', 'list', '-f', 'json')
    assert template in [t['name'] for t in listed]
    cli('deploy', 'template', 'set', template, '--extra', 'team=hw',
        '--name', template + '_B')
    shown = cli('deploy', 'template', 'show', template + '_B', '-f', 'json')
    assert (shown['uuid'], shown['extra']) == (created['uuid'],
                                               {'team': 'hw'})
    cli('deploy', 'template', 'unset', created['uuid'], '--extra', 'team')
    assert cli('deploy', 'template', 'show', created['uuid'], '-f',
               'json')['extra'] == {}
    cli('deploy', 'template', 'delete', created['uuid'])
    assert cli('deploy', 'template', 'show', created['uuid'],
               check=False).code == 1


def _column(row: dict, column: str = 'uuid') -> Any:
    """A column of a list's row (the UUID unless named), whatever its
    label's case."""
    return next(v for k, v in row.items() if k.lower() == column)


def test_volume_connectors_and_targets(cli, ironside):
    node = _node(cli)
    name = node['name']
    cli('node', 'power', 'off', name)
    iqn = 'iqn.2026-11.org.example:%s' % name
    # As Ironic, a connector or target names its node by UUID.
    connector = cli('volume', 'connector', 'create', '--node',
                    node['uuid'], '--type', 'iqn', '--connector-id', iqn,
                    '-f', 'json')
    assert connector['connector_id'] == iqn
    listed = cli('volume', 'connector', 'list', '--node', name, '-f', 'json')
    assert [_column(c) for c in listed] == [connector['uuid']], listed
    cli('volume', 'connector', 'set', connector['uuid'], '--extra',
        'rack=r7')
    shown = cli('volume', 'connector', 'show', connector['uuid'],
                '-f', 'json')
    assert shown['extra'] == {'rack': 'r7'}
    duplicate = cli('volume', 'connector', 'create', '--node', node['uuid'],
                    '--type', 'iqn', '--connector-id', iqn, check=False)
    assert duplicate.code == 1
    assert 'already exists' in duplicate.stderr
    target = cli('volume', 'target', 'create', '--node', node['uuid'],
                 '--type',
                 'iscsi', '--boot-index', '0', '--volume-id', 'v-' + name,
                 '--property', 'target_lun=0', '-f', 'json')
    assert target['boot_index'] == 0
    cli('volume', 'target', 'set', target['uuid'], '--boot-index', '1')
    assert cli('volume', 'target', 'show', target['uuid'], '-f', 'json')[
        'boot_index'] == 1
    assert [_column(t) for t in cli('volume', 'target', 'list', '--node',
                                  name, '-f', 'json')] == [target['uuid']]
    cli('volume', 'target', 'delete', target['uuid'])
    cli('volume', 'connector', 'delete', connector['uuid'])
    missing = cli('volume', 'connector', 'show', connector['uuid'],
                  check=False)
    assert missing.code == 1
    assert 'could not be found' in missing.stderr


def test_runbooks(cli, ironside):
    name = unique('CUSTOM_RB').upper().replace('-', '_')
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [{'name': 'SMT', 'value': 'off'}]},
              'order': 0}]
    created = cli('runbook', 'create', '--name', name, '--steps',
                  json.dumps(steps), '--description', 'SMT off',
                  '-f', 'json')
    assert created['steps'] == steps
    assert created['description'] == 'SMT off'
    listed = cli('runbook', 'list', '-f', 'json')
    assert name in [r.get('Name', r.get('name')) for r in listed], listed
    cli('runbook', 'set', name, '--extra', 'team=hw')
    shown = cli('runbook', 'show', name, '-f', 'json')
    assert shown['extra'] == {'team': 'hw'}
    cli('runbook', 'trait', 'add', name, 'CUSTOM_RACK_9')
    assert cli('runbook', 'show', name, '-f', 'json')['traits'] == [
        'CUSTOM_RACK_9']
    node = _available(cli, ironside)
    cli('node', 'manage', node)
    wait_state(ironside, node, 'manageable')
    cli('node', 'add', 'trait', node, 'CUSTOM_RACK_9')
    cli('node', 'clean', node, '--runbook', name)
    wait_state(ironside, node, 'manageable')
    assert cli('node', 'bios', 'setting', 'show', node, 'SMT',
               '-f', 'json')['value'] == 'off'
    cli('runbook', 'delete', name)
    assert cli('runbook', 'show', name, check=False).code == 1


def test_inspection_rules_and_inspect(cli, ironside, tmp_path):
    conditions = [{'op': 'ge-not-an-op', 'args': {}}]
    refused = cli('inspection', 'rule', 'create', '--actions', '[]',
                  '--conditions', json.dumps(conditions), check=False)
    assert refused.code == 1
    actions = [{'op': 'set-attribute',
                'args': {'path': '/extra/cores',
                         'value': '{inventory[cpu][count]}'}},
               {'op': 'add-trait', 'args': {'name': 'CUSTOM_INSPECTED'}}]
    conditions = [{'op': 'eq', 'args': {
        'values': ['{inventory[cpu][architecture]}', 'x86_64']}}]
    rule = cli('inspection', 'rule', 'create', '--description', 'cores',
               '--priority', '50', '--actions', json.dumps(actions),
               '--conditions', json.dumps(conditions), '-f', 'json')
    assert rule['priority'] == 50 and rule['actions'] == actions
    listed = cli('inspection', 'rule', 'list', '-f', 'json')
    assert rule['uuid'] in [r.get('UUID', r.get('uuid')) for r in listed]
    cli('inspection', 'rule', 'set', rule['uuid'], '--priority', '60',
        '--description', 'cores and trait')
    shown = cli('inspection', 'rule', 'show', rule['uuid'], '-f', 'json')
    assert (shown['priority'], shown['description']) == (
        60, 'cores and trait')
    secret = cli('inspection', 'rule', 'create', '--sensitive', 'true',
                 '--actions', json.dumps(actions[1:]), '-f', 'json')
    assert secret['sensitive'] is True and secret['actions'] is None
    name = _node(cli)['name']
    cli('node', 'manage', name)
    wait_state(ironside, name, 'manageable')
    cli('node', 'inspect', name, '--wait', '30')
    node = cli('node', 'show', name, '-f', 'json')
    assert node['extra'] == {'cores': '2'}
    assert 'CUSTOM_INSPECTED' in json.dumps(
        cli('node', 'trait', 'list', name, '-f', 'json'))
    saved = tmp_path / 'inventory.json'
    cli('node', 'inventory', 'save', name, '--file', str(saved))
    assert json.loads(saved.read_text())['inventory']['memory'][
        'physical_mb'] == 4096
    cli('inspection', 'rule', 'delete', rule['uuid'], secret['uuid'])
    missing = cli('inspection', 'rule', 'show', rule['uuid'], check=False)
    assert missing.code == 1


def test_chassis_and_port_updates(cli):
    chassis = cli('chassis', 'create', '--description', 'rack 1', '--extra',
                  'row=a', '-f', 'json')
    assert chassis['extra'] == {'row': 'a'}
    listed = cli('chassis', 'list', '-f', 'json')
    assert chassis['uuid'] in [_column(c) for c in listed]
    cli('chassis', 'set', chassis['uuid'], '--description', 'rack 2',
        '--extra', 'aisle=a3')
    cli('chassis', 'unset', chassis['uuid'], '--extra', 'row')
    shown = cli('chassis', 'show', chassis['uuid'], '-f', 'json')
    assert (shown['description'], shown['extra']) == ('rack 2',
                                                      {'aisle': 'a3'})
    node = _node(cli, chassis_uuid=chassis['uuid'])
    assert node['chassis_uuid'] == chassis['uuid']
    group = cli('port', 'group', 'create', '--node', node['uuid'],
                '--address', '52:54:00:40:00:01', '-f', 'json')
    cli('port', 'group', 'set', group['uuid'], '--name', unique('bond'),
        '--extra', 'switch=s1')
    shown = cli('port', 'group', 'show', group['uuid'], '-f', 'json')
    assert shown['extra'] == {'switch': 's1'} and shown['name']
    port = cli('port', 'create', '52:54:00:40:00:02', '--node',
               node['uuid'], '-f', 'json')
    cli('port', 'set', port['uuid'], '--extra', 'cable=c7',
        '--port-group', group['uuid'])
    shown = cli('port', 'show', port['uuid'], '-f', 'json')
    assert (shown['extra'], shown['portgroup_uuid']) == (
        {'cable': 'c7'}, group['uuid'])
    cli('port', 'unset', port['uuid'], '--extra', 'cable', '--port-group')
    shown = cli('port', 'show', port['uuid'], '-f', 'json')
    assert (shown['extra'], shown['portgroup_uuid']) == ({}, None)
    refused = cli('chassis', 'delete', chassis['uuid'], check=False)
    assert refused.code == 1 and 'contains nodes' in refused.stderr
    cli('port', 'delete', port['uuid'])
    cli('port', 'group', 'delete', group['uuid'])
    cli('node', 'delete', node['uuid'])
    cli('chassis', 'delete', chassis['uuid'])
    assert cli('chassis', 'show', chassis['uuid'], check=False).code == 1


def test_retire_raid_and_firmware(cli, ironside):
    """Retirement (1.61) as Ironic: provide refused while retired, the
    reason cleared with the flag; the target
    RAID configuration (JBOD included) and the firmware read when the
    node was cleaned. (python-ironicclient has no virtual media command;
    test_openstacksdk attaches it through the SDK.)"""
    name = _available(cli, ironside)
    # (Retiring an available node is refused with a 409, which the CLI
    # retries for 10 s: test_openstacksdk checks that refusal.)
    cli('node', 'manage', name)
    wait_state(ironside, name, 'manageable')
    cli('node', 'set', name, '--retired', '--retired-reason', 'old')
    node = cli('node', 'show', name, '-f', 'json')
    assert (node['retired'], node['retired_reason']) == (True, 'old')
    refused = cli('node', 'provide', name, check=False)
    assert refused.code == 1 and 'retired' in refused.stderr
    cli('node', 'unset', name, '--retired')
    node = cli('node', 'show', name, '-f', 'json')
    assert (node['retired'], node['retired_reason']) == (False, None)
    raid = {'logical_disks': [
        {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True},
        {'size_gb': 'MAX', 'raid_level': 'JBOD'}]}
    cli('node', 'set', name, '--target-raid-config', json.dumps(raid))
    assert cli('node', 'show', name, '-f', 'json')[
        'target_raid_config'] == raid
    cli('node', 'unset', name, '--target-raid-config')
    assert cli('node', 'show', name, '-f', 'json')[
        'target_raid_config'] == {}
    properties = cli('driver', 'raid', 'property', 'list', 'fake-hardware',
                     '-f', 'json')
    assert 'raid_level' in [_column(p, 'property') for p in properties]
    firmware = cli('node', 'firmware', 'list', name, '-f', 'json')
    assert {_column(c, 'component') for c in firmware} == {'bios', 'bmc'}


def test_project_personas(ironside, keystone):
    """Ironic 39's defaults for the project personas, with Keystone's
    tokens, on this deployment (under the split one, ironside-api
    validates the tokens and applies the policy): a project admin's node
    is its project's, which its readers see and other projects do not;
    a project member creates nothing; a system reader deletes nothing."""
    def as_user(user: str) -> InProcessCli:
        return InProcessCli(ironside.endpoint,
                            auth=keystone.client_env(user))

    project_admin = as_user('project-admin')
    node = project_admin('node', 'create', '--driver', 'fake-hardware',
                         '--name', unique('owned'), '-f', 'json')
    assert node['owner'] == keystone.projects['tenant']
    assert [n['uuid'] for n in as_user('project-reader')(
        'node', 'list', '-f', 'json')] == [node['uuid']]
    assert node['uuid'] not in [n['uuid'] for n in as_user('other-admin')(
        'node', 'list', '-f', 'json')]
    refused = as_user('project-member')('node', 'create', '--driver',
                                        'fake-hardware', check=False)
    assert 'HTTP 403' in refused.stderr
    refused = as_user('system-reader')('node', 'delete', node['uuid'],
                                       check=False)
    assert 'HTTP 403' in refused.stderr
    project_admin('node', 'delete', node['uuid'])
