"""Fuel's vocabulary: what an expression written for Fuel means here."""

from __future__ import annotations

import dataclasses

import pytest

from ironside.common import exception
from ironside.strategy import expressions
from ironside.strategy.expressions import engine as expression_engine
from ironside.strategy.expressions import memo
from tests.unit.strategy import expression_sites as sites

# ctl01 is also a cinder node, cmp01 also a ceph-osd; cmp02 labelled.
ROLES = {'ctl01': ('controller', 'cinder'), 'cmp01': ('compute', 'ceph-osd')}


def multi_role() -> expressions.Evaluation:
    design = dataclasses.replace(sites.DEPLOYED, nodes=tuple(
        dataclasses.replace(
            n, roles=ROLES.get(n.name, n.roles),
            labels=dict(n.labels, testing=None) if n.name == 'cmp02'
            else n.labels)
        for n in sites.DEPLOYED.nodes),
        configs=dict(sites.CONFIGS, roles={'items': [
            {'role': 'compute', 'roles': ['x']}, {'role': 'cinder'}]}))
    return sites.evaluation(design, design)


def names(text: str, evaluation=None) -> list[str]:
    return (evaluation or multi_role()).evaluate(text)


def refusal(text: str, evaluation=None) -> str:
    with pytest.raises(exception.ExpressionFailed) as raised:
        (evaluation or multi_role()).evaluate(text)
    return raised.value.error.message


@pytest.mark.parametrize('text, expected', [
    # Fuel lists a node once per role: a node with several is found by
    # each of them.
    ("$.nodes.where($.role = 'compute').name", ['cmp01', 'cmp02']),
    ("$.nodes.where($.role = 'ceph-osd').name", ['cmp01']),
    ("$.nodes.where('cinder' = $.role).name", ['ctl01']),
    ("$.nodes.where($.role != 'compute').name", ['ctl01', 'ctl02', 'ctl03']),
    ("$.nodes.where($.role in ['cinder', 'ceph-osd']).name",
     ['ctl01', 'cmp01']),
    ("$.nodes.where($.role = 'compute' and $.role = 'ceph-osd').name",
     ['cmp01']),
    ("$.nodes.where($.role = 'nosuch').name", []),
    ("$.nodes.any($.role = 'cinder')", True),
    ("$.nodes.all($.role != 'nosuch')", True),
    ("$.nodes.select($.role = 'controller')",
     [True, True, True, False, False]),
    # Still node records after where, orderBy, ..., and in a state.
    ("$.nodes.where($.rack = 'rack02').select($.role = 'ceph-osd')",
     [True, False]),
    ("$.nodes.orderBy($.name).take(2).where($.role = 'compute').name",
     ['cmp01', 'cmp02']),
    ("new($.nodes).where($.role = 'cinder').name", ['ctl01']),
    ("old($.nodes).where($.role = 'cinder').name", ['ctl01']),
    # Labels: the keys of the node's labels.
    ("$.nodes.where($.label = 'testing').name", ['cmp02']),
    ("$.nodes.where($.label != 'testing').name",
     ['ctl01', 'ctl02', 'ctl03', 'cmp01']),
    ("$.nodes.where($.label in ['testing', 'zone']).len()", 5),
    # Ironside's own forms are unchanged.
    ("$.nodes.where('cinder' in $.roles).name", ['ctl01']),
    ("$.nodes.where($.labels.get('zone') = 'a').len()", 5),
])
def test_role_and_label_of_nodes(text, expected):
    assert names(text) == expected


def test_role_and_label_of_the_node_a_task_runs_on():
    evaluation = multi_role()
    text = "$node.role = 'cinder'"
    assert evaluation.evaluate(text, 'ctl01') is True
    assert evaluation.evaluate(text, 'ctl02') is False
    assert evaluation.evaluate("$node.role in [compute]", 'cmp01') is True
    assert evaluation.evaluate("$node.label = 'testing'", 'cmp02') is True
    assert evaluation.evaluate("$node.label = 'testing'", 'cmp01') is False


def test_a_role_key_elsewhere_is_yaqls():
    """Only node records are read with Fuel's ``role``: a configuration
    document's ``role`` key is a key."""
    assert names("$.configs.roles.items.where($.role = 'compute').len()") \
        == 1
    assert names("$.configs.roles.items.where($.role = 'x').len()") == 0
    assert names("$.configs.roles.items.select($.role)") == \
        ['compute', 'cinder']


def test_role_read_as_a_value_says_how_to_read_it():
    message = refusal("$.nodes.select($.role)")
    assert message == (
        'no key "role" (a node\'s roles are `.roles`; Fuel\'s `.role` is '
        "read in a comparison: `$.role = 'x'` over `$.nodes`, "
        "`$node.role = 'x'` for the node a task runs on)")
    # The site has no roles of its own: Fuel's `$` held the node's.
    assert refusal("'controller' in $.roles").startswith(
        'no key "roles" (`.roles` is a node\'s: inside '
        '`$.nodes.where(...)`, or `$node.roles` for the node a task '
        'runs on)')
    assert refusal("$.role = 'controller'").startswith('no key "role"')


@pytest.mark.parametrize('text, expected', [
    ('True', True), ('False', False), ('[True, False, true, false]',
                                       [True, False, True, False]),
    ('new($.configs.nova.parameter.value) = True', True),
    ('new($.configs.nova.parameter.value) = False', False),
    ('not False', True), ('$.nodes.where($.pending_addition = True).len()',
                          0),
    # Names are names: a key written True stays the text.
    ('{True => False}', {'True': False}),
    ('dict(True => 1)', {'True': 1}),
    # Anything else bare is YAQL's string, as before.
    ('Yes', 'Yes'), ('[operational, new]', ['operational', 'new']),
])
def test_capitalised_booleans_are_booleans(text, expected):
    assert sites.unchanged().evaluate(text) == expected
    assert type(sites.unchanged().evaluate(text)) is type(expected)


def test_a_key_named_true_is_a_key():
    evaluation = sites.evaluation(
        dataclasses.replace(sites.DEPLOYED, configs={'flags': {'True': 1}}),
        None)
    assert evaluation.evaluate('$.configs.flags.True') == 1


@pytest.mark.parametrize('text, message', [
    ("$.role = ‘compute’", "typographic quote ‘ at position 9: YAQL "
                            "strings are in straight quotes ('compute')"),
    ('$.x = “a”', "typographic quote “ at position 6: YAQL strings are in "
                  "straight quotes ('a')"),
    ("$.x = ’a", "typographic quote ’ at position 6: YAQL strings are in "
                 "straight quotes ('...')"),
])
def test_typographic_quotes_are_refused_with_the_straight_form(text,
                                                               message):
    assert expression_engine.get_engine().check(text)[1] == message


SCHEMES = {'ctl01': {'endpoints': {
    'br-mgmt': {'IP': ['10.0.3.11/24'],
                'routes': [{'net': '10.1.0.0/16', 'via': '10.0.3.1'}]},
    'br-ex': {'IP': ['192.0.2.11/24'], 'gateway': '192.0.2.1'}},
    'interfaces': {'eth0': {'mtu': 9000}}},
    'ctl02': {'endpoints': {'br-mgmt': {'IP': ['10.0.3.12/24']}}}}


def with_schemes(schemes: dict) -> expressions.DesignState:
    return dataclasses.replace(sites.DEPLOYED, nodes=tuple(
        dataclasses.replace(n, network_scheme=schemes.get(n.name, {}))
        for n in sites.DEPLOYED.nodes))


def networked() -> expressions.Evaluation:
    design = with_schemes(SCHEMES)
    return sites.evaluation(design, design)


@pytest.mark.parametrize('text, expected', [
    ("$node.network_scheme('interfaces')", {'eth0': {'mtu': 9000}}),
    ("$node.networkScheme('routes')",
     {'br-mgmt': [{'net': '10.1.0.0/16', 'via': '10.0.3.1'}]}),
    ("$node.network_scheme('IP')",
     {'br-ex': ['192.0.2.11/24'], 'br-mgmt': ['10.0.3.11/24']}),
    ("$node.network_scheme().endpoints.get('br-ex').gateway", '192.0.2.1'),
    ('$node.network_scheme.endpoints.keys()', ['br-mgmt', 'br-ex']),
    ("$.nodes.where($.name in [ctl01, ctl02]).network_scheme('IP')",
     [{'br-ex': ['192.0.2.11/24'], 'br-mgmt': ['10.0.3.11/24']},
      {'br-mgmt': ['10.0.3.12/24']}]),
])
def test_network_scheme_of_a_node(text, expected):
    assert networked().evaluate(text, 'ctl01') == expected


@pytest.mark.parametrize('text, node, message', [
    ("$node.network_scheme('routes')", 'ctl03',
     'node "ctl03" has no network scheme: its BaremetalNode document '
     'gives none (data.network_scheme)'),
    ("$.nodes.network_scheme('IP')", 'ctl01',
     'node "ctl03" has no network scheme: its BaremetalNode document '
     'gives none (data.network_scheme)'),
    ("$node.network_scheme('routes')", 'ctl02',
     'the network scheme of node "ctl02" has no "routes", neither of its '
     'own nor in an endpoint'),
    ("$node.network_scheme('rotues')", 'ctl01',
     'the network scheme of node "ctl01" has no "rotues", neither of its '
     'own nor in an endpoint'),
])
def test_network_scheme_missing_is_an_error_not_empty(text, node, message):
    with pytest.raises(exception.ExpressionFailed) as raised:
        networked().evaluate(text, node)
    assert raised.value.error.message == message


def test_network_scheme_changed_per_node():
    moved = dict(SCHEMES, ctl01={'endpoints': {
        'br-mgmt': {'IP': ['10.0.3.21/24']}}})
    evaluation = sites.evaluation(with_schemes(moved), with_schemes(SCHEMES))
    text = "changed($node.network_scheme('IP'))"
    assert evaluation.evaluate(text, 'ctl01') is True
    assert evaluation.evaluate(text, 'ctl02') is False
    assert networked().evaluate(text, 'ctl01') is False


def test_a_role_comparison_is_still_memoised():
    """The translated predicate reads the element only as ``$.roles``,
    so it is evaluated once per distinct roles, as ``'x' in $.roles``."""
    parsed = expression_engine.get_engine().parse(
        "$.nodes.where($.role = 'compute' and $.label != 'x')")
    where = parsed.expression.args[1]
    assert memo.projection(where.args[0], memo.ELEMENT) == \
        ('roles', 'labels')
