"""Which steps run, in which order: collection, overrides, validation."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.conductor import steps
from ironside.db import deploy_templates as templates_db
from ironside.db import nodes as nodes_db
from ironside.drivers import base
from ironside.drivers import step_defs
from tests import utils


def _names(step_list):
    return [steps.step_name(s) for s in step_list]


@pytest.fixture
def task(conductor, make_node, context):
    node = make_node()
    with conductor.acquire(context, node.uuid, purpose='test') as task:
        yield task


def test_fake_deploy_steps_in_priority_order(task):
    assert _names(steps.deploy_steps_for(task)) == [
        'deploy.deploy', 'deploy.write_image',
        'deploy.prepare_instance_boot', 'deploy.boot_instance']


def test_priority_zero_steps_are_dropped(task):
    found = steps.driver_steps(task, steps.DEPLOY)
    assert found[('bios', 'apply_configuration')]['priority'] == 0
    assert 'bios.apply_configuration' not in \
        _names(steps.deploy_steps_for(task))


def test_equal_priorities_follow_ironics_interface_order():
    unordered = [{'interface': i, 'step': 's', 'priority': 10}
                 for i in ('raid', 'boot', 'deploy', 'vendor', 'bios',
                           'management', 'power', 'firmware')]
    ordered = [s['interface'] for s in steps.sorted_steps(unordered)]
    assert ordered == ['vendor', 'power', 'management', 'firmware',
                       'deploy', 'bios', 'raid', 'boot']


def test_user_step_enables_and_orders_a_priority_zero_step(task):
    result = steps.deploy_steps_for(task, [
        {'interface': 'bios', 'step': 'apply_configuration', 'priority': 90,
         'args': {'settings': [{'name': 'A', 'value': '1'}]}}])
    assert _names(result)[:2] == ['deploy.deploy', 'bios.apply_configuration']
    assert result[1]['args'] == {'settings': [{'name': 'A', 'value': '1'}]}
    assert 'argsinfo' in result[1]


def test_user_step_with_priority_zero_disables_a_driver_step(task):
    result = steps.deploy_steps_for(task, [
        {'interface': 'deploy', 'step': 'boot_instance', 'priority': 0}])
    assert 'deploy.boot_instance' not in _names(result)


def test_template_matched_by_node_trait(task):
    templates_db.create({'name': 'CUSTOM_BIOS', 'steps': [
        {'interface': 'bios', 'step': 'apply_configuration', 'priority': 65,
         'args': {'settings': [{'name': 'B', 'value': '2'}]}}]})
    assert 'bios.apply_configuration' not in \
        _names(steps.deploy_steps_for(task))
    nodes_db.set_node_traits(task.node.id, ['CUSTOM_BIOS'])
    task.node = nodes_db.get_node(task.node.id)
    assert _names(steps.deploy_steps_for(task)) == [
        'deploy.deploy', 'deploy.write_image', 'bios.apply_configuration',
        'deploy.prepare_instance_boot', 'deploy.boot_instance']


def test_instance_traits_select_templates_over_node_traits(task):
    templates_db.create({'name': 'CUSTOM_A', 'steps': [
        {'interface': 'raid', 'step': 'apply_configuration', 'priority': 50,
         'args': {'raid_config': {}}}]})
    templates_db.create({'name': 'CUSTOM_B', 'steps': [
        {'interface': 'bios', 'step': 'factory_reset', 'priority': 50}]})
    nodes_db.set_node_traits(task.node.id, ['CUSTOM_A', 'CUSTOM_B'])
    task.node = nodes_db.get_node(task.node.id)
    task.node.instance_info['traits'] = ['CUSTOM_B']
    names = _names(steps.deploy_steps_for(task))
    assert 'bios.factory_reset' in names
    assert 'raid.apply_configuration' not in names


def test_user_step_overrides_template_step(task):
    templates_db.create({'name': 'CUSTOM_BIOS', 'steps': [
        {'interface': 'bios', 'step': 'factory_reset', 'priority': 65}]})
    nodes_db.set_node_traits(task.node.id, ['CUSTOM_BIOS'])
    task.node = nodes_db.get_node(task.node.id)
    result = steps.deploy_steps_for(task, [
        {'interface': 'bios', 'step': 'factory_reset', 'priority': 99}])
    assert _names(result)[1] == 'bios.factory_reset'


def test_same_step_in_two_templates_is_refused(task):
    for name in ('CUSTOM_ONE', 'CUSTOM_TWO'):
        templates_db.create({'name': name, 'steps': [
            {'interface': 'bios', 'step': 'factory_reset', 'priority': 5}]})
    nodes_db.set_node_traits(task.node.id, ['CUSTOM_ONE', 'CUSTOM_TWO'])
    task.node = nodes_db.get_node(task.node.id)
    with pytest.raises(exception.InvalidParameterValue,
                       match='bios.factory_reset is in deploy templates '
                             'CUSTOM_ONE and CUSTOM_TWO'):
        steps.deploy_steps_for(task)


@pytest.mark.parametrize('step, message', [
    ({'interface': 'deploy', 'step': 'no_such_step', 'priority': 1},
     'has no deploy step deploy.no_such_step'),
    ({'interface': 'warp', 'step': 'engage', 'priority': 1},
     'Step warp.engage: unknown interface "warp"'),
    ({'interface': 'bios', 'step': 'apply_configuration', 'priority': 1,
      'args': {'settings': [], 'colour': 'red'}},
     'Step bios.apply_configuration does not take argument\\(s\\) colour'),
    ({'interface': 'bios', 'step': 'apply_configuration', 'priority': 1},
     'Step bios.apply_configuration is missing required argument\\(s\\) '
     'settings'),
    ({'interface': 'deploy', 'step': 'deploy', 'priority': -1},
     'Step deploy.deploy: priority must be a non-negative integer'),
    ({'step': 'deploy'}, 'needs "interface" and "step"'),
])
def test_invalid_user_steps_name_the_step(task, step, message):
    with pytest.raises(exception.InvalidParameterValue, match=message):
        steps.deploy_steps_for(task, [step])


def test_manual_clean_keeps_the_users_order(task):
    result = steps.manual_clean_steps_for(task, [
        {'interface': 'raid', 'step': 'delete_configuration'},
        {'interface': 'deploy', 'step': 'erase_devices_metadata'}])
    assert _names(result) == ['raid.delete_configuration',
                              'deploy.erase_devices_metadata']
    assert result[1]['priority'] == 99


def test_automated_clean_runs_positive_priorities_only(task):
    assert _names(steps.automated_clean_steps_for(task)) == [
        'deploy.erase_devices_metadata']


def test_invalid_deploy_steps_refused_before_anything_starts(
        rpc, context, make_node, conductor):
    node = make_node()
    utils.update_node(node.id, {'provision_state': states.AVAILABLE})
    with pytest.raises(exception.InvalidParameterValue,
                       match='bios.apply_configuration is missing'):
        rpc.do_node_deploy(context, node.uuid, deploy_steps=[
            {'interface': 'bios', 'step': 'apply_configuration',
             'priority': 70}])
    node = nodes_db.get_node(node.uuid)
    assert node.provision_state == states.AVAILABLE
    assert node.reservation is None
    assert node.deploy_step == {}


class TestDecorators:
    def test_negative_priority_refused_at_import(self):
        with pytest.raises(exception.InvalidParameterValue,
                           match='priority of step f'):
            @step_defs.deploy_step(priority=-1)
            def f(self, task):
                pass

    def test_argsinfo_needs_description(self):
        with pytest.raises(exception.InvalidParameterValue,
                           match='needs a "description"'):
            @step_defs.clean_step(priority=1,
                                  argsinfo={'x': {'required': True}})
            def f(self, task, x):
                pass

    def test_argsinfo_must_name_real_arguments(self):
        with pytest.raises(exception.InvalidParameterValue,
                           match='does not accept argument y'):
            @step_defs.deploy_step(priority=1, argsinfo={
                'y': {'description': 'why'}})
            def f(self, task, x=None):
                pass

    def test_steps_are_collected_from_decorated_methods(self):
        class Iface(base.VendorInterface):
            def get_properties(self):
                return {}

            def validate(self, task):
                pass

            @step_defs.deploy_step(priority=5)
            @step_defs.clean_step(priority=7, abortable=True)
            def both(self, task):
                pass

        iface = Iface()
        assert iface.get_deploy_steps(None) == [
            {'interface': 'vendor', 'step': 'both', 'priority': 5,
             'argsinfo': None}]
        assert iface.get_clean_steps(None) == [
            {'interface': 'vendor', 'step': 'both', 'priority': 7,
             'argsinfo': None, 'abortable': True}]
