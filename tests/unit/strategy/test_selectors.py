"""Selectors: intersections of criteria, unions of selectors, node data."""

from __future__ import annotations

import pytest

from ironside.strategy.core.selectors import Selector
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.core.selectors import parse_label
from ironside.strategy.core.selectors import select
from ironside.strategy.core.selectors import site_node
from ironside.strategy.nodes import conductor as conductor_nodes

NODES = [
    SiteNode('u1', 'node01', 'rack01', frozenset({'control'}),
             frozenset({('ucp_control_plane', 'enabled')})),
    SiteNode('u2', 'node02', 'rack01', frozenset({'control', 'ntp'})),
    SiteNode('u3', 'node03', 'rack02', frozenset({'control'})),
    SiteNode('u4', 'node04', 'rack02', frozenset({'compute'}),
             frozenset({('ucp_control_plane', 'enabled')})),
    SiteNode('u5', 'node05', None),
]


def names(*selectors):
    return [n.name for n in select(list(selectors), NODES)]


def sel(**criteria):
    return Selector.from_dict(criteria)


def test_spec_example_union_of_intersections():
    """The spec's illustration: (names ∩ racks ∩ tags) ∪ (name ∩ label)."""
    assert names(
        sel(node_names=['node01', 'node02'], rack_names=['rack01'],
            node_tags=['control']),
        sel(node_names=['node04'],
            node_labels=[{'ucp_control_plane': 'enabled'}])) == \
        ['node01', 'node02', 'node04']


def test_selector_is_an_intersection():
    assert names(sel(node_tags=['control'], rack_names=['rack02'])) == \
        ['node03']
    assert names(sel(node_names=['node03'], rack_names=['rack01'])) == []


def test_selectors_are_a_union():
    assert names(sel(rack_names=['rack02']), sel(node_tags=['ntp'])) == \
        ['node02', 'node03', 'node04']


def test_criterion_matches_any_of_its_values():
    assert names(sel(node_tags=['ntp', 'compute'])) == ['node02', 'node04']
    assert names(sel(rack_names=['rack01', 'rack02'])) == \
        ['node01', 'node02', 'node03', 'node04']


def test_omitted_or_empty_criterion_is_ignored():
    assert names(sel(node_tags=['control'], rack_names=[], node_names=[],
                     node_labels=[])) == names(sel(node_tags=['control']))
    assert names(sel(node_tags=['control'])) == \
        ['node01', 'node02', 'node03']


def test_no_selectors_selects_all():
    assert names() == [n.name for n in NODES]


def test_empty_selector_selects_all():
    assert names(sel()) == [n.name for n in NODES]
    assert names(sel(node_names=[], node_tags=[])) == [n.name for n in NODES]
    assert names(sel(node_tags=['ntp']), sel()) == [n.name for n in NODES]


def test_selectors_that_match_nothing():
    assert names(sel(node_names=['node99'])) == []
    assert names(sel(rack_names=['rack09'])) == []


def test_labels_match_key_and_value():
    assert names(sel(node_labels=['ucp_control_plane: enabled'])) == \
        ['node01', 'node04']
    assert names(sel(node_labels=['ucp_control_plane:disabled'])) == []


def test_node_names_match_uuids():
    assert names(sel(node_names=['u3'])) == ['node03']


def test_node_without_rack_is_not_in_any_rack():
    assert 'node05' not in names(sel(rack_names=['rack01', 'rack02']))


@pytest.mark.parametrize('label, parsed', [
    ('a:b', ('a', 'b')),
    ('a: b', ('a', 'b')),
    (' a :b ', ('a', 'b')),
    ({'a': 'b'}, ('a', 'b')),
    ({'replicas': 3}, ('replicas', '3')),
])
def test_parse_label(label, parsed):
    assert parse_label(label) == parsed


def test_node_data_in_extra():
    node = site_node('u', 'n', {'rack': 'rack01',
                                'tags': ['control', 'ntp'],
                                'labels': {'zone': 'east'}})
    assert node == SiteNode('u', 'n', 'rack01', frozenset({'control', 'ntp'}),
                            frozenset({('zone', 'east')}))


def test_node_data_in_extra_as_strings():
    node = site_node('u', None, {'tags': 'control, ntp',
                                 'labels': ['zone: east', 'bad']})
    assert node.name == 'u'
    assert node.tags == {'control', 'ntp'}
    assert node.labels == {('zone', 'east')}
    assert node.rack is None


def test_node_without_extra():
    assert site_node('u', 'n', None) == SiteNode('u', 'n')


def test_ironside_nodes_resolve_from_extra(make_node):
    make_node(name='b1', extra={'rack': 'rack01', 'tags': ['compute']})
    make_node(name='a1', extra={'rack': 'rack01', 'tags': 'control',
                                'labels': {'role': 'ctl'}})
    make_node(name='c1', extra={'rack': 'rack02', 'tags': ['compute']})
    make_node()
    nodes = conductor_nodes.ConductorNodes()
    assert [n.name for n in nodes.resolve(
        [sel(rack_names=['rack01'])])] == ['a1', 'b1']
    assert [n.name for n in nodes.resolve(
        [sel(node_labels=['role: ctl']), sel(node_tags=['compute'],
                                            rack_names=['rack02'])])] == \
        ['a1', 'c1']
    assert len(nodes.resolve([])) == 4
