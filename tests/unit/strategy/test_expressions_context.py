"""The context of expressions: nodes, their status and pending flags,
the cluster status, and the recorded form."""

from __future__ import annotations

import json

import pytest

from ironside.common import states
from ironside.strategy import expressions
from ironside.strategy.expressions import context as site_context
from tests.unit.strategy import expression_sites as sites


@pytest.mark.parametrize('provision_state, deployed, status', [
    (None, False, 'discover'),
    (states.ENROLL, False, 'discover'),
    (states.MANAGEABLE, True, 'discover'),
    (states.AVAILABLE, False, 'discover'),
    (states.CLEANING, False, 'discover'),
    (states.INSPECTWAIT, False, 'discover'),
    (states.DEPLOYING, False, 'provisioning'),
    (states.DEPLOYWAIT, True, 'provisioning'),
    (states.ACTIVE, False, 'provisioned'),
    (states.ACTIVE, True, 'ready'),
    (states.RESCUE, True, 'ready'),
    (states.SERVICEWAIT, False, 'provisioned'),
    (states.DEPLOYFAIL, True, 'error'),
    (states.CLEANFAIL, False, 'error'),
    (states.ERROR, True, 'error'),
    (states.DELETING, True, 'removing'),
])
def test_node_status(provision_state, deployed, status):
    assert site_context.node_status(provision_state, deployed) == status


def nodes_of(context: expressions.SiteContext, old: bool = False) -> dict:
    state = context.old if old else context.new
    return {n.name: n for n in state.nodes}


def test_first_deploy():
    context = expressions.build_context(
        sites.DEPLOYED, sites.live(sites.DEPLOYED, 'available'), None)
    assert context.old is None
    assert context.new.cluster_status == 'new'
    for node in context.new.nodes:
        assert (node.status, node.pending_addition,
                node.pending_deletion) == ('discover', True, False)
        assert node.provision_state == 'available'
        assert node.uuid == 'uuid-' + node.name


def test_first_deploy_that_failed_part_way():
    nodes = sites.live(sites.DEPLOYED, 'available', ctl01='active',
                       ctl02='deploy failed')
    context = expressions.build_context(sites.DEPLOYED, nodes, None)
    assert context.new.cluster_status == 'partially_deployed'
    new = nodes_of(context)
    assert new['ctl01'].status == 'provisioned'
    assert new['ctl02'].status == 'error'
    assert new['ctl01'].pending_addition


def test_node_added_and_node_removed():
    target = sites.revised(add=('ctl04',), remove=('cmp02',))
    nodes = sites.live(target, ctl04='available') + [
        expressions.LiveNode('cmp02', 'uuid-cmp02', 'active')]
    context = expressions.build_context(target, nodes, sites.DEPLOYED)
    assert context.new.cluster_status == 'operational'
    new = nodes_of(context)
    assert [n.name for n in context.new.nodes] == [
        'ctl01', 'ctl02', 'ctl03', 'cmp01', 'ctl04', 'cmp02']
    assert (new['ctl04'].status, new['ctl04'].pending_addition,
            new['ctl04'].pending_deletion) == ('discover', True, False)
    assert (new['cmp02'].status, new['cmp02'].pending_addition,
            new['cmp02'].pending_deletion) == ('ready', False, True)
    assert (new['ctl01'].status, new['ctl01'].pending_addition,
            new['ctl01'].pending_deletion) == ('ready', False, False)
    old = nodes_of(context, old=True)
    assert sorted(old) == sorted(sites.CONTROLLERS + sites.COMPUTES)
    assert {(n.status, n.provision_state, n.pending_addition,
             n.pending_deletion) for n in old.values()} == {
        ('ready', 'active', False, False)}
    assert context.old.cluster_status == 'operational'


def test_node_not_enrolled():
    target = sites.revised(add=('ctl04',))
    context = expressions.build_context(target, sites.live(sites.DEPLOYED),
                                        sites.DEPLOYED)
    ctl04 = nodes_of(context)['ctl04']
    assert (ctl04.uuid, ctl04.provision_state, ctl04.status) == \
        (None, None, 'discover')


def test_node_fields_come_from_the_design():
    context = expressions.build_context(
        sites.DEPLOYED, sites.live(sites.DEPLOYED), sites.DEPLOYED)
    ctl01 = nodes_of(context)['ctl01']
    assert ctl01.as_dict() == {
        'name': 'ctl01', 'uuid': 'uuid-ctl01', 'roles': ['controller'],
        'groups': ['control-nodes'], 'rack': 'rack01', 'tags': ['control'],
        'labels': {'zone': 'a'}, 'provision_state': 'active',
        'status': 'ready', 'pending_addition': False,
        'pending_deletion': False, 'properties': {'cpus': 8},
        'network_scheme': {}}


def test_expressions_see_every_documented_field():
    evaluation = sites.unchanged()
    assert evaluation.evaluate('$.keys()') == ['nodes', 'configs',
                                               'settings', 'cluster']
    assert evaluation.evaluate('$.nodes[0].keys()') == [
        'name', 'uuid', 'roles', 'groups', 'rack', 'tags', 'labels',
        'provision_state', 'status', 'pending_addition',
        'pending_deletion', 'properties', 'network_scheme']
    assert evaluation.evaluate('$.configs') == sites.CONFIGS
    assert evaluation.evaluate('$.settings') == sites.SETTINGS
    assert evaluation.evaluate('$.cluster') == {'status': 'operational'}
    assert evaluation.evaluate("$.nodes.where($.labels.zone = 'a' and "
                               "'control-nodes' in $.groups).name") == \
        list(sites.CONTROLLERS)


def test_context_round_trips_through_json():
    target = sites.revised(add=('ctl04',), remove=('cmp02',))
    context = expressions.build_context(
        target, sites.live(target), sites.DEPLOYED)
    recorded = json.loads(json.dumps(context.as_dict()))
    assert recorded['new']['revision'] == 2
    assert expressions.SiteContext.from_dict(recorded) == context
    first = expressions.build_context(sites.DEPLOYED, [], None)
    assert expressions.SiteContext.from_dict(
        json.loads(json.dumps(first.as_dict()))) == first


def test_a_context_recorded_without_network_schemes_reads_back():
    """An action recorded before nodes had network schemes resumes."""
    context = expressions.build_context(sites.DEPLOYED, [], None)
    recorded = json.loads(json.dumps(context.as_dict()))
    for node in recorded['new']['nodes']:
        del node['network_scheme']
    assert expressions.SiteContext.from_dict(recorded) == context


def test_evaluation_on_a_recorded_context_gives_the_same_values():
    context = expressions.build_context(
        sites.revised(add=('ctl04',)), sites.live(sites.DEPLOYED),
        sites.DEPLOYED)
    again = expressions.SiteContext.from_dict(
        json.loads(json.dumps(context.as_dict())))
    text = "added($.nodes.where('controller' in $.roles).name)"
    assert expressions.Evaluation(context).evaluate(text) == \
        expressions.Evaluation(again).evaluate(text) == ['ctl04']
