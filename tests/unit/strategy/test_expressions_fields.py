"""Computed fields: finding, checking and evaluating ``yaql_exp``
mappings in tasks and groups; errors; results; parsing once."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy import expressions
from ironside.strategy.expressions import engine as expression_engine
from tests.unit.strategy import expression_sites as sites

TASK = {
    'id': 'openstack-controller',
    'type': 'puppet',
    'roles': ['controller'],
    'requires': [{'yaql_exp': "switch(changed($.configs.nova) => "
                              "['database'], true => [])"}],
    'condition': {'yaql_exp': 'changed($.configs.nova)'},
    'parameters': {
        'puppet_manifest': '/etc/puppet/controller.pp',
        'timeout': 3600,
        'data': {'workers': {'yaql_exp': '$.configs.nova.workers'},
                 'hosts': [{'yaql_exp': "$.nodes.where('controller' in "
                                        "$.roles).name"}, 'localhost']},
    },
    'strategy': {'type': 'parallel',
                 'amount': {'yaql_exp': '$.nodes.len()'}},
}


class CountingEngine(expression_engine.Engine):
    """The engine, counting what it parses."""

    def __init__(self) -> None:
        super().__init__()
        self.parsed: list[str] = []

    def parse(self, text):
        self.parsed.append(text)
        return super().parse(text)


# Finding

def test_find_expressions_at_any_depth():
    found = expressions.find_expressions(TASK)
    assert [(f.path, f.expression) for f in found] == [
        (('requires', 0), TASK['requires'][0]['yaql_exp']),
        (('condition',), 'changed($.configs.nova)'),
        (('parameters', 'data', 'workers'), '$.configs.nova.workers'),
        (('parameters', 'data', 'hosts', 0),
         "$.nodes.where('controller' in $.roles).name"),
        (('strategy', 'amount'), '$.nodes.len()'),
    ]


def test_find_expressions_skips_ids_and_takes_a_path():
    value = {'id': {'yaql_exp': '1'}, 'groups': [
        {'id': {'name': {'yaql_exp': '2'}}, 'critical': {'yaql_exp': '3'}}]}
    found = expressions.find_expressions(value, ('data',))
    assert found == [(('data', 'groups', 0, 'critical'), '3')]


def test_value_without_expressions_is_returned_unchanged():
    evaluation = sites.unchanged()
    task = {'id': 'ntp', 'parameters': {'servers': ['a', 'b']},
            'requires': ['hosts']}
    assert evaluation.resolve(task, 'ntp') is task
    assert evaluation.results == []


# Checking at commit

def test_check_accepts_valid_expressions():
    assert expressions.check_expressions(TASK) == []


def test_check_refuses_a_syntax_error():
    task = {'id': 't', 'condition': {'yaql_exp': 'changed($.configs.nova'}}
    (error,) = expressions.check_expressions(task, owner='t')
    assert error.path == ('condition',)
    assert error.field == 'condition'
    assert error.expression == 'changed($.configs.nova'
    assert error.message == 'Parse error: unexpected end of statement'
    assert str(error) == ('task "t", field "condition": expression '
                          '"changed($.configs.nova": Parse error: '
                          'unexpected end of statement')


def test_check_refuses_unknown_functions():
    task = {'id': 't', 'parameters': {'x': [
        {'yaql_exp': 'chnaged($.nodes) or $.nodes.flob()'}]}}
    (error,) = expressions.check_expressions(task, ('tasks', 3))
    assert error.path == ('tasks', 3, 'parameters', 'x', 0)
    assert error.field == 'tasks[3].parameters.x[0]'
    assert error.message == 'unknown functions "chnaged", "flob"'


def test_check_refuses_illegal_characters():
    (error,) = expressions.check_expressions(
        {'condition': {'yaql_exp': '$.nodes.__class__'}})
    assert error.message == \
        "Lexical error: illegal character '_' at position 8"


def test_check_refuses_malformed_expression_mappings():
    value = {'a': {'yaql_exp': 42}, 'b': {'yaql_exp': '  '},
             'c': {'yaql_exp': 'true', 'note': 'x'},
             'id': {'yaql_exp': '1'}, 'd': {'id': [{'yaql_exp': '2'}]}}
    errors = {e.field: e.message for e in expressions.check_expressions(value)}
    assert errors == {
        'a': 'yaql_exp must be a non-empty string',
        'b': 'yaql_exp must be a non-empty string',
        'c': 'a yaql_exp mapping has no other keys, found note',
        'id': 'an id cannot be an expression',
        'd.id': 'an id cannot be an expression',
    }


def test_check_accepts_functions_defined_in_the_expression():
    assert expressions.check_expressions(
        {'x': {'yaql_exp': 'def(double, $ * 2) -> double(3)'}}) == []


def test_check_refuses_expressions_nested_too_deeply():
    (error,) = expressions.check_expressions(
        {'x': {'yaql_exp': '[' * 200 + ']' * 200}})
    assert error.message == \
        'Parse error: expression nested more than 100 levels deep'


# Evaluating

def test_resolve_replaces_every_expression():
    evaluation = sites.nova_changed()
    resolved = evaluation.resolve(TASK, TASK['id'])
    assert resolved['requires'] == [['database']]
    assert resolved['condition'] is True
    assert resolved['parameters'] == {
        'puppet_manifest': '/etc/puppet/controller.pp', 'timeout': 3600,
        'data': {'workers': 8,
                 'hosts': [['ctl01', 'ctl02', 'ctl03'], 'localhost']}}
    assert resolved['strategy'] == {'type': 'parallel', 'amount': 5}
    assert resolved['id'] == TASK['id']
    assert TASK['condition'] == {'yaql_exp': 'changed($.configs.nova)'}


def test_results_record_each_value():
    evaluation = sites.nova_changed()
    evaluation.resolve(TASK, TASK['id'])
    evaluation.condition({'yaql_exp': "$node.status = 'ready'"}, 'ntp',
                         node='cmp01')
    assert [r.as_dict() for r in evaluation.results] == [
        {'owner': 'openstack-controller', 'field': 'requires[0]',
         'node': None, 'expression': TASK['requires'][0]['yaql_exp'],
         'value': ['database']},
        {'owner': 'openstack-controller', 'field': 'condition',
         'node': None, 'expression': 'changed($.configs.nova)',
         'value': True},
        {'owner': 'openstack-controller', 'field': 'parameters.data.workers',
         'node': None, 'expression': '$.configs.nova.workers', 'value': 8},
        {'owner': 'openstack-controller',
         'field': 'parameters.data.hosts[0]', 'node': None,
         'expression': "$.nodes.where('controller' in $.roles).name",
         'value': ['ctl01', 'ctl02', 'ctl03']},
        {'owner': 'openstack-controller', 'field': 'strategy.amount',
         'node': None, 'expression': '$.nodes.len()', 'value': 5},
        {'owner': 'ntp', 'field': 'condition', 'node': 'cmp01',
         'expression': "$node.status = 'ready'", 'value': True},
    ]


@pytest.mark.parametrize('condition, expected', [
    (None, True), (True, True), (False, False),
    ({'yaql_exp': 'true'}, True), ({'yaql_exp': 'null'}, False),
    ({'yaql_exp': 'old($.x)'}, False), ({'yaql_exp': "'x'"}, True),
    ({'yaql_exp': '[]'}, False)])
def test_condition_values(condition, expected):
    assert sites.first_deploy().condition(condition, 't') is expected


def test_condition_literal_must_be_a_boolean():
    with pytest.raises(exception.ExpressionFailed) as raised:
        sites.unchanged().condition('false', 'task-a')
    assert str(raised.value) == ('task "task-a", field "condition": a '
                                 'condition is true, false or a yaql_exp '
                                 "mapping, not 'false'")


def test_select_nodes_per_node_condition():
    evaluation = sites.controller_added()
    condition = {'yaql_exp': "$node.pending_addition or changed($node)"}
    names = ['ctl01', 'ctl02', 'ctl03', 'ctl04', 'cmp01']
    assert evaluation.select_nodes(condition, 'cluster', names) == ['ctl04']
    assert [(r.node, r.value) for r in evaluation.results] == [
        ('ctl01', False), ('ctl02', False), ('ctl03', False),
        ('ctl04', True), ('cmp01', False)]


def test_select_nodes_site_condition_is_computed_once():
    evaluation = sites.nova_changed()
    names = list(sites.CONTROLLERS)
    assert evaluation.select_nodes(
        {'yaql_exp': 'changed($.configs.nova)'}, 'nova', names) == names
    assert evaluation.select_nodes(
        {'yaql_exp': 'changed($.configs.keystone)'}, 'ks', names) == []
    assert evaluation.select_nodes(None, 'other', names) == names
    assert [(r.owner, r.node) for r in evaluation.results] == [
        ('nova', None), ('ks', None)]


def test_reads_node():
    evaluation = sites.unchanged()
    assert evaluation.reads_node({'yaql_exp': '$node.roles'})
    assert evaluation.reads_node({'a': [{'yaql_exp': 'changed($node)'}]})
    assert not evaluation.reads_node({'yaql_exp': 'changed($.nodes)'})
    assert not evaluation.reads_node({'yaql_exp': 'now() != null'})
    assert not evaluation.reads_node(True)


def test_each_expression_is_parsed_once_per_action():
    engine = CountingEngine()
    evaluation = sites.evaluation(sites.revised(add=('ctl04',)),
                                  sites.DEPLOYED, engine=engine)
    conditions = [{'yaql_exp': 'changed($.configs.nova)'},
                  {'yaql_exp': "$node.status = 'ready'"},
                  {'yaql_exp': 'changed($node.roles) or changed($.nodes)'}]
    names = evaluation.nodes
    for task in range(20):
        for condition in conditions:
            evaluation.select_nodes(condition, 'task-%d' % task, names)
            for node in names:
                evaluation.resolve({'x': condition}, 'task-%d' % task,
                                   node=node)
    assert sorted(engine.parsed) == sorted(c['yaql_exp'] for c in conditions)
    assert evaluation.parses == 3
    assert len(evaluation.results) == 20 * (1 + 6 + 6 + 3 * 6)


def test_a_new_action_parses_again():
    engine = CountingEngine()
    for _ in range(2):
        sites.evaluation(sites.DEPLOYED, None, engine=engine).evaluate('1')
    assert engine.parsed == ['1', '1']


# Errors when evaluating

def test_runtime_error_names_task_field_expression_and_message():
    evaluation = sites.unchanged()
    task = {'id': 't1', 'parameters': {'x': [
        1, {'yaql_exp': '$.configs.glance.stores'}]}}
    with pytest.raises(exception.ExpressionFailed) as raised:
        evaluation.resolve(task, 't1')
    error = raised.value.error
    assert (error.owner, error.field, error.node, error.expression,
            error.message) == ('t1', 'parameters.x[1]', None,
                               '$.configs.glance.stores', 'no key "glance"')
    assert str(raised.value) == ('task "t1", field "parameters.x[1]": '
                                 'expression "$.configs.glance.stores": '
                                 'no key "glance"')
    assert raised.value.code == 400
    assert evaluation.results == []


def test_runtime_error_on_a_node_names_the_node():
    evaluation = sites.unchanged()
    with pytest.raises(exception.ExpressionFailed) as raised:
        evaluation.select_nodes({'yaql_exp': '$node.properties.cpus > '
                                             "'four'"}, 't2', ['cmp01'])
    error = raised.value.error
    assert (error.owner, error.node, error.field) == ('t2', 'cmp01',
                                                      'condition')
    assert 'No function "#operator_>" matches supplied arguments' in \
        error.message


def test_runtime_error_of_a_yaql_function():
    with pytest.raises(exception.ExpressionFailed) as raised:
        sites.unchanged().evaluate("int('x')")
    assert raised.value.error.message == \
        "ValueError: invalid literal for int() with base 10: 'x'"


def test_syntax_and_unknown_function_at_run_time():
    evaluation = sites.unchanged()
    for text, message in (('1 +', 'Parse error: unexpected end of '
                                  'statement'),
                          ('nope(1)', 'unknown function "nope"')):
        with pytest.raises(exception.ExpressionFailed) as raised:
            evaluation.condition({'yaql_exp': text}, 'g1')
        assert raised.value.error.message == message
        assert raised.value.error.owner == 'g1'


def test_unknown_node():
    with pytest.raises(exception.ExpressionFailed) as raised:
        sites.unchanged().evaluate('$node.name', node='nope')
    assert raised.value.error.message == 'no node "nope" in $.nodes'


def test_old_that_fails_is_undefined_but_new_that_fails_is_an_error():
    evaluation = sites.evaluation(
        sites.revised(configs=dict(sites.CONFIGS, glance={'a': 1})),
        sites.DEPLOYED)
    assert evaluation.evaluate('isUndef(old($.configs.glance.a))') is True
    assert evaluation.evaluate('changed($.configs.glance.a)') is True
    with pytest.raises(exception.ExpressionFailed):
        evaluation.evaluate('changed($.configs.cinder.a)')


def test_values_are_json_data():
    evaluation = sites.unchanged()
    assert isinstance(evaluation.evaluate('now()'), str)
    assert evaluation.evaluate("now() > datetime(2020, 1, 1)") is True
    assert evaluation.evaluate('set(1, 2, 2)') == [1, 2]
    assert evaluation.evaluate('dict(1 => 2)') == {'1': 2}
    assert evaluation.evaluate('[1, [2, {a => [3]}]]') == [1, [2, {'a': [3]}]]
