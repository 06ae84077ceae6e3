"""The helpers of computed fields over nodes, configs and settings, and
the spec's examples verbatim."""

from __future__ import annotations

import dataclasses
import json

import pytest
import yaml

from ironside.strategy import expressions
from tests.unit.strategy import expression_sites as sites

SPEC_CONTROLLERS = (
    "changed($.nodes.where($.status = 'ready' and 'controller' in $.roles)) "
    "and changed($.nodes.where($.status = 'discover' and 'controller' in "
    "$.roles and $.pending_addition = true))")
SPEC_STRATEGY = ("switch($.cluster.status = 'operational' => 'one_by_one', "
                 "true => 'parallel')")
READY_CONTROLLERS = \
    "$.nodes.where($.status = 'ready' and 'controller' in $.roles)"
NEW_CONTROLLERS = ("$.nodes.where($.status = 'discover' and 'controller' "
                   "in $.roles and $.pending_addition = true)")


# The spec's examples, verbatim

def test_spec_controllers_on_first_deploy():
    assert sites.first_deploy().evaluate(SPEC_CONTROLLERS) is True


def test_spec_controllers_unchanged_site():
    assert sites.unchanged().evaluate(SPEC_CONTROLLERS) is False


def test_spec_controllers_when_a_controller_is_added():
    """Adding ctl04 changes the controllers waiting for addition, not the
    ready ones (ctl01-03 are ready before and after), so the spec's
    conjunction is false; either term alone says what changed."""
    evaluation = sites.controller_added()
    assert evaluation.evaluate('changed(%s)' % NEW_CONTROLLERS) is True
    assert evaluation.evaluate('changed(%s)' % READY_CONTROLLERS) is False
    assert evaluation.evaluate(SPEC_CONTROLLERS) is False
    assert evaluation.evaluate(
        "changed($.nodes.where('controller' in $.roles))") is True
    assert evaluation.evaluate('new(%s).name' % NEW_CONTROLLERS) == \
        ['ctl04']


def test_spec_controllers_ignore_a_removed_compute():
    evaluation = sites.compute_removed()
    assert evaluation.evaluate(SPEC_CONTROLLERS) is False
    assert evaluation.evaluate(
        "changed($.nodes.where('controller' in $.roles))") is False
    assert evaluation.evaluate(
        "changed($.nodes.where('compute' in $.roles and "
        "not $.pending_deletion))") is True


@pytest.mark.parametrize('scenario, expected', [
    (sites.first_deploy, True), (sites.unchanged, False),
    (sites.nova_changed, True), (sites.controller_added, False)])
def test_spec_changed_configs_nova(scenario, expected):
    assert scenario().evaluate('changed($.configs.nova)') is expected


def test_spec_new_and_old_config_values():
    evaluation = sites.nova_changed()
    assert evaluation.evaluate(
        'new($.configs.nova.parameter.value) = false') is True
    assert evaluation.evaluate(
        'old($.configs.nova.parameter.value) = true') is True
    assert sites.unchanged().evaluate(
        'new($.configs.nova.parameter.value) = false') is False


def test_spec_new_settings_value():
    settings = dict(sites.SETTINGS,
                    additional_components={'murano': {'value': True}})
    evaluation = sites.evaluation(sites.revised(settings=settings),
                                  sites.DEPLOYED)
    assert evaluation.evaluate(
        'new($.settings.additional_components.murano.value) = true') is True
    assert evaluation.evaluate('changed($.settings)') is True
    assert sites.unchanged().evaluate('changed($.settings)') is False


@pytest.mark.parametrize('scenario, strategy', [
    (sites.first_deploy, 'parallel'), (sites.unchanged, 'one_by_one'),
    (sites.controller_added, 'one_by_one')])
def test_spec_strategy_by_cluster_status(scenario, strategy):
    evaluation = scenario()
    task = {'id': 'mysql', 'strategy': {'type': {'yaql_exp': SPEC_STRATEGY}}}
    assert evaluation.resolve(task, 'mysql') == {
        'id': 'mysql', 'strategy': {'type': strategy}}


def test_spec_cluster_status_values():
    text = "$.cluster.status in ['operational', 'new', 'partially_deployed']"
    assert sites.first_deploy().evaluate(text) is True
    assert sites.first_deploy().evaluate('$.cluster.status') == 'new'
    assert sites.unchanged().evaluate('$.cluster.status') == 'operational'


# changed / new / old over nodes

def test_old_is_undefined_without_an_old_state():
    evaluation = sites.first_deploy()
    assert evaluation.evaluate('isUndef(old($.nodes))') is True
    assert evaluation.evaluate('old($.nodes)') is None
    assert evaluation.evaluate('changed($.nodes)') is True
    assert evaluation.evaluate('old($.nodes) = null') is False
    assert evaluation.evaluate("old($.nodes) or 'none'") == 'none'


def test_new_is_the_new_state():
    evaluation = sites.controller_added()
    assert evaluation.evaluate('new($.nodes.name)') == \
        evaluation.evaluate('$.nodes.name')
    assert 'ctl04' in evaluation.evaluate('new($.nodes.name)')
    assert 'ctl04' not in evaluation.evaluate('old($.nodes.name)')


def test_an_added_node_is_pending_addition():
    evaluation = sites.controller_added()
    assert evaluation.evaluate(
        '$.nodes.where($.pending_addition).name') == ['ctl04']
    assert evaluation.evaluate("$.nodes.where($.name = 'ctl04').first()"
                               ".status") == 'discover'
    assert evaluation.evaluate('added($.nodes.name)') == ['ctl04']
    assert evaluation.evaluate('deleted($.nodes.name)') == []
    assert evaluation.evaluate("changed($.nodes.where('compute' in "
                               "$.roles))") is False


def test_a_removed_node_stays_listed_pending_deletion():
    evaluation = sites.compute_removed()
    assert evaluation.evaluate(
        '$.nodes.where($.pending_deletion).name') == ['cmp02']
    assert evaluation.evaluate(
        "$.nodes.where($.name = 'cmp02').first().status") == 'ready'
    assert evaluation.evaluate('deleted($.nodes.where(not '
                               '$.pending_deletion).name)') == ['cmp02']
    assert evaluation.evaluate('changed($.nodes.len())') is False
    assert evaluation.evaluate(
        'changed($.nodes.where(not $.pending_deletion).len())') is True


def test_unchanged_site_changes_nothing():
    evaluation = sites.unchanged()
    for text in ('$.nodes', '$.configs', '$.settings', '$.cluster',
                 "$.nodes.where('controller' in $.roles)"):
        assert evaluation.evaluate('changed(%s)' % text) is False, text
    assert evaluation.evaluate('added($.nodes.name)') == []
    assert evaluation.evaluate('added($.configs)') == {}


def test_a_node_that_failed_shows_as_changed():
    nodes = sites.live(sites.DEPLOYED, cmp01='deploy failed')
    evaluation = sites.evaluation(sites.DEPLOYED, sites.DEPLOYED, nodes)
    assert evaluation.evaluate(
        "$.nodes.where($.status = 'error').name") == ['cmp01']
    assert evaluation.evaluate("changed($.nodes.where('compute' in "
                               "$.roles))") is True


def test_helpers_inside_a_lambda_read_the_whole_state():
    evaluation = sites.controller_added()
    assert evaluation.evaluate(
        '$.nodes.where(changed($.nodes.len())).len()') == 6


# configs and settings

def test_added_and_deleted_configs():
    configs = {'nova': {'parameter': {'value': True}, 'workers': 8,
                        'debug': True},
               'glance': {'stores': ['file']}}
    evaluation = sites.evaluation(sites.revised(configs=configs),
                                  sites.DEPLOYED)
    assert evaluation.evaluate('added($.configs)') == {
        'nova': {'debug': True}, 'glance': {'stores': ['file']}}
    assert evaluation.evaluate('deleted($.configs)') == {
        'keystone': {'token_ttl': 3600}}
    assert evaluation.evaluate('changedAny($.configs.nova, '
                               '$.configs.glance)') is True
    assert evaluation.evaluate('changedAll($.configs.nova, '
                               '$.settings)') is False
    assert evaluation.evaluate('isUndef(old($.configs.glance))') is True
    assert evaluation.evaluate('changed($.configs.glance)') is True


def test_added_on_first_deploy_is_everything_deleted_nothing():
    evaluation = sites.first_deploy()
    assert evaluation.evaluate('added($.configs.keystone)') == \
        {'token_ttl': 3600}
    assert evaluation.evaluate('deleted($.configs.keystone)') is None


def test_added_and_deleted_of_scalars_and_lists():
    settings = dict(sites.SETTINGS, ntp=['pool.ntp.org', 'ntp.example'])
    evaluation = sites.evaluation(sites.revised(settings=settings),
                                  sites.DEPLOYED)
    assert evaluation.evaluate('added($.settings.ntp)') == ['ntp.example']
    assert evaluation.evaluate('deleted($.settings.ntp)') == []
    assert evaluation.evaluate('added($.configs.nova.workers)') is None
    assert sites.nova_changed().evaluate(
        'added($.configs.nova.parameter.value)') is False
    assert sites.nova_changed().evaluate(
        'deleted($.configs.nova.parameter.value)') is True


def test_old_new_and_changed_over_settings():
    settings = dict(sites.SETTINGS,
                    additional_components={'murano': {'value': True}})
    evaluation = sites.evaluation(sites.revised(settings=settings),
                                  sites.DEPLOYED)
    murano = '$.settings.additional_components.murano.value'
    assert evaluation.evaluate('old(%s)' % murano) is False
    assert evaluation.evaluate('new(%s)' % murano) is True
    assert evaluation.evaluate('changed(%s)' % murano) is True
    assert evaluation.evaluate('old($.settings)') == sites.SETTINGS
    # What the revision did not touch reads the same in both states.
    for key in sites.SETTINGS:
        if key != 'additional_components':
            assert evaluation.evaluate('changed($.settings.%s)' % key) \
                is False, key
    assert evaluation.evaluate('isUndef(old($.settings.nowhere))') is True


def test_settings_on_a_first_deploy():
    """No old state: old() is undefined, changed() true, added() the
    whole new value, deleted() null, new() the settings."""
    evaluation = sites.first_deploy()
    assert evaluation.evaluate('isUndef(old($.settings))') is True
    assert evaluation.evaluate('old($.settings)') is None
    assert evaluation.evaluate('new($.settings)') == sites.SETTINGS
    assert evaluation.evaluate('changed($.settings)') is True
    assert evaluation.evaluate(
        'changed($.settings.additional_components.murano.value)') is True
    assert evaluation.evaluate('added($.settings)') == sites.SETTINGS
    assert evaluation.evaluate('deleted($.settings)') is None


def test_changed_all_and_any_over_settings():
    evaluation = sites.nova_changed()
    assert evaluation.evaluate('changedAny($.settings, $.configs.nova)')
    assert not evaluation.evaluate('changedAll($.settings, $.configs.nova)')
    assert not evaluation.evaluate('changedAny($.settings, $.cluster)')


def test_to_json_and_to_yaml():
    evaluation = sites.unchanged()
    text = evaluation.evaluate('toJson($.configs.nova)')
    assert json.loads(text) == sites.CONFIGS['nova']
    assert text == '{"parameter":{"value":true},"workers":8}'
    assert yaml.safe_load(evaluation.evaluate('toYaml($.settings)')) == \
        sites.SETTINGS
    assert sites.first_deploy().evaluate('toJson(old($.configs))') == 'null'
    assert evaluation.evaluate(
        "toJson($.nodes.where('controller' in $.roles).name)") == \
        '["ctl01","ctl02","ctl03"]'


# Per-node fields

def test_per_node_old_and_new():
    evaluation = sites.controller_added()
    assert evaluation.evaluate('changed($node)', node='ctl04') is True
    assert evaluation.evaluate('old($node)', node='ctl04') is None
    assert evaluation.evaluate('isUndef(old($node.roles))',
                               node='ctl04') is True
    assert evaluation.evaluate('changed($node)', node='ctl01') is False
    assert evaluation.evaluate('old($node.status)', node='ctl01') == \
        'ready'
    assert evaluation.evaluate('$node.pending_addition',
                               node='ctl04') is True


def test_per_node_node_changes():
    moved = expressions.DesignNode(name='cmp01', roles=('compute', 'storage'),
                                   rack='rack03')
    target = sites.revised(remove=('cmp01',))
    target = dataclasses.replace(target, nodes=target.nodes + (moved,))
    evaluation = sites.evaluation(target, sites.DEPLOYED)
    assert evaluation.evaluate('changed($node.roles)', node='cmp01') is True
    assert evaluation.evaluate('changed($node.roles)', node='cmp02') is False
    assert evaluation.evaluate('added($node.roles)', node='cmp01') == \
        ['storage']
    assert evaluation.evaluate(
        "changed($.nodes.where($.rack = 'rack02').name)") is True


def test_per_node_helpers_of_a_removed_node():
    """cmp02, removed from the design, is still listed (pending
    deletion) and computed per node: its old record is the deployed one;
    its new one says it is going."""
    evaluation = sites.compute_removed()
    assert evaluation.evaluate('$node.pending_deletion',
                               node='cmp02') is True
    assert evaluation.evaluate('old($node.pending_deletion)',
                               node='cmp02') is False
    assert evaluation.evaluate('new($node.pending_deletion)',
                               node='cmp02') is True
    assert evaluation.evaluate('changed($node)', node='cmp02') is True
    assert evaluation.evaluate('changed($node.roles)',
                               node='cmp02') is False
    assert evaluation.evaluate('old($node.roles)', node='cmp02') == \
        ['compute']
    assert evaluation.evaluate('old($node.status)', node='cmp02') == \
        'ready'
    # The node that stays is unchanged.
    assert evaluation.evaluate('changed($node)', node='cmp01') is False


def test_node_is_null_outside_per_node_fields():
    assert sites.unchanged().evaluate('$node') is None


def test_per_node_values_of_nodes_alike_but_one_new():
    """spare2 reads as spare does (no rack), but has no old record: a
    value computed once for nodes alike must not hide that."""
    spare = expressions.DesignNode(name='spare')
    deployed = dataclasses.replace(
        sites.DEPLOYED, nodes=sites.DEPLOYED.nodes + (spare,))
    target = dataclasses.replace(
        deployed, nodes=deployed.nodes + (
            expressions.DesignNode(name='spare2'),))
    evaluation = sites.evaluation(target, deployed)
    for text in ('changed($node.rack)', 'isUndef(old($node.rack))'):
        assert evaluation.evaluate(text, node='spare') is False, text
        assert evaluation.evaluate(text, node='spare2') is True, text
