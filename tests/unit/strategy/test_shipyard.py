"""DeploymentStrategy documents: the spec's example loads; every error
is precise."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy.reader import shipyard
from tests.unit.strategy.conftest import SPEC_STRATEGY

MINIMAL = """\
schema: ironside/DeploymentStrategy/v1
metadata:
  name: small
data:
  groups:
    - name: first
      critical: true
      depends_on: []
      selectors: []
    - name: second
      critical: false
      depends_on: [first]
      selectors:
        - node_tags: [compute]
"""


def _errors(text):
    return [str(e) for e in shipyard.validate(text)]


def _replace(text, old, new):
    assert old in text
    return text.replace(old, new, 1)


def test_spec_example_loads_unchanged():
    strategy = shipyard.load(SPEC_STRATEGY)
    assert strategy.name == 'deployment-strategy'
    assert strategy.schema == 'shipyard/DeploymentStrategy/v1'
    assert [g.name for g in strategy.groups] == [
        'control-nodes', 'compute-nodes-1', 'compute-nodes-2',
        'monitoring-nodes', 'ntp-node']
    control = strategy.group('control-nodes')
    assert control.critical is True
    assert control.depends_on == ('ntp-node',)
    assert control.success_criteria.as_dict() == {
        'percent_successful_nodes': 90, 'minimum_successful_nodes': 3,
        'maximum_failed_nodes': 1}
    (selector,) = control.selectors
    assert selector.node_tags == {'control'}
    assert selector.rack_names == {'rack03'}
    assert not selector.node_names and not selector.node_labels
    assert strategy.group('monitoring-nodes').success_criteria.as_dict() \
        == {}
    assert control.strategy.as_dict() == {'type': 'parallel'}


def test_spec_example_loads_under_ironside_schema():
    text = SPEC_STRATEGY.replace('shipyard/DeploymentStrategy/v1',
                                 'ironside/DeploymentStrategy/v1')
    strategy = shipyard.load(text)
    assert strategy.schema == 'ironside/DeploymentStrategy/v1'
    assert len(strategy.groups) == 5


def test_document_among_others_in_a_stream():
    text = 'schema: deckhand/Other/v1\nmetadata: {name: x}\ndata: {}\n' \
        '---\n' + MINIMAL
    assert shipyard.load(text).name == 'small'


def test_json_document_loads():
    text = ('{"schema": "ironside/DeploymentStrategy/v1", "metadata": '
            '{"name": "j"}, "data": {"groups": []}}')
    assert shipyard.load(text).groups == ()


def test_ironside_extensions():
    text = _replace(MINIMAL, '      selectors: []\n', '''\
      selectors: []
      required_for: [second]
      strategy: {type: parallel, amount: 4}
      deploy_templates: [CUSTOM_RAID]
      deploy_steps:
        - {interface: bios, step: apply_configuration, priority: 150,
           args: {settings: []}}
''')
    strategy = shipyard.load(text)
    first = strategy.group('first')
    assert first.strategy.wave_size(10) == 4
    assert first.deploy_templates == ('CUSTOM_RAID',)
    assert first.deploy_steps[0]['step'] == 'apply_configuration'
    assert strategy.group('second').depends_on == ('first',)


def test_one_by_one_waves():
    text = _replace(MINIMAL, '      selectors: []\n', '      selectors: []\n'
                    '      strategy: {type: one_by_one}\n')
    assert shipyard.load(text).group('first').strategy.wave_size(5) == 1
    assert shipyard.load(MINIMAL).group('first').strategy.wave_size(5) == 5


def test_valid_document_has_no_errors():
    assert shipyard.validate(MINIMAL) == []
    assert shipyard.validate(SPEC_STRATEGY) == []


def test_missing_required_fields():
    text = _replace(MINIMAL, '      critical: true\n      depends_on: []\n',
                    '')
    assert _errors(text) == [
        'document "small", group "first", field "critical": missing '
        'required field (line 6)',
        'document "small", group "first", field "depends_on": missing '
        'required field (line 6)']


def test_missing_metadata_name_and_groups():
    text = 'schema: ironside/DeploymentStrategy/v1\nmetadata: {}\ndata: {}\n'
    assert _errors(text) == [
        'document "<input>", field "metadata.name": missing required field '
        '(line 2)',
        'document "<input>", field "data.groups": missing required field '
        '(line 3)']


def test_unknown_fields():
    text = _replace(MINIMAL, '        - node_tags: [compute]\n',
                    '        - node_tags: [compute]\n          colour: red\n')
    text = _replace(text, '      critical: false\n',
                    '      critical: false\n      priority: 3\n')
    assert _errors(text) == [
        'document "small", group "second", field "priority": unknown field '
        '(line 12)',
        'document "small", group "second", field "selectors[0].colour": '
        'unknown field (line 16)']


def test_unknown_schema():
    text = _replace(MINIMAL, 'ironside/DeploymentStrategy/v1',
                    'shipyard/DeploymentStrategy/v2')
    assert _errors(text) == [
        'document "small", field "schema": must be one of '
        'shipyard/DeploymentStrategy/v1, ironside/DeploymentStrategy/v1, '
        'not "shipyard/DeploymentStrategy/v2" (line 1)']


def test_wrong_types():
    text = _replace(MINIMAL, 'critical: true', 'critical: "yes"')
    text = _replace(text, 'depends_on: [first]', 'depends_on: first')
    assert _errors(text) == [
        'document "small", group "first", field "critical": must be true '
        'or false, not "yes" (line 7)',
        'document "small", group "second", field "depends_on": must be a '
        'list, not "first" (line 12)']


def test_duplicate_group_names():
    text = _replace(MINIMAL, 'name: second', 'name: first')
    text = _replace(text, 'depends_on: [first]', 'depends_on: []')
    assert _errors(text) == [
        'document "small", group "first", field "name": duplicate group '
        'name; group #1 has it too (line 10)']


@pytest.mark.parametrize('name', ['[second]', '{yaql_exp: "\'second\'"}'])
def test_a_name_that_is_not_a_string_is_an_error(name):
    """Not a traceback: a group's name is what the dependency graph is
    built from, so a list or an expression there (names are never
    computed) must not reach it."""
    text = _replace(MINIMAL, 'name: second', 'name: %s' % name)
    errors = _errors(text)
    assert errors and all('field "name' in e for e in errors), errors


def test_unknown_dependency():
    text = _replace(MINIMAL, 'depends_on: [first]', 'depends_on: [frist]')
    assert _errors(text) == [
        'document "small", group "second", field "depends_on[0]": depends '
        'on unknown group "frist" (line 12)']


def test_unknown_required_for():
    text = _replace(MINIMAL, '      selectors: []\n',
                    '      selectors: []\n      required_for: [third]\n')
    assert _errors(text) == [
        'document "small", group "first", field "required_for[0]": is '
        'required for unknown group "third" (line 10)']


def test_dependency_cycle_names_its_groups():
    text = MINIMAL + '''\
    - name: third
      critical: false
      depends_on: [fourth]
      selectors: []
    - name: fourth
      critical: false
      depends_on: [third, second]
      selectors: []
'''
    text = _replace(text, 'depends_on: []', 'depends_on: [fourth]')
    assert _errors(text) == [
        'document "small", group "first", field "depends_on": dependency '
        'cycle: first -> second -> fourth -> first (line 8)']


def test_group_depending_on_itself():
    text = _replace(MINIMAL, 'depends_on: [first]', 'depends_on: [second]')
    assert _errors(text) == [
        'document "small", group "second", field "depends_on": dependency '
        'cycle: second -> second (line 12)']


def test_cycle_through_required_for():
    text = _replace(MINIMAL, '      selectors: []\n',
                    '      selectors: []\n      required_for: []\n')
    text = _replace(text, 'depends_on: []', 'depends_on: [second]')
    assert 'dependency cycle: first -> second -> first' in \
        _errors(text)[0]


@pytest.mark.parametrize('value, message', [
    ('120', 'must be at most 100, not 120'),
    ('-1', 'must be at least 0, not -1'),
    ('"most"', 'must be a number, not "most"'),
])
def test_percent_outside_0_to_100(value, message):
    text = _replace(MINIMAL, '      selectors: []\n', '      selectors: []\n'
                    '      success_criteria:\n'
                    '        percent_successful_nodes: %s\n' % value)
    assert _errors(text) == [
        'document "small", group "first", field '
        '"success_criteria.percent_successful_nodes": %s (line 11)'
        % message]


@pytest.mark.parametrize('field', ['minimum_successful_nodes',
                                   'maximum_failed_nodes'])
def test_negative_counts(field):
    text = _replace(MINIMAL, '      selectors: []\n', '      selectors: []\n'
                    '      success_criteria:\n        %s: -2\n' % field)
    assert _errors(text) == [
        'document "small", group "first", field "success_criteria.%s": '
        'must be at least 0, not -2 (line 11)' % field]


def test_fractional_count():
    text = _replace(MINIMAL, '      selectors: []\n', '      selectors: []\n'
                    '      success_criteria:\n'
                    '        minimum_successful_nodes: 1.5\n')
    assert _errors(text) == [
        'document "small", group "first", field '
        '"success_criteria.minimum_successful_nodes": must be an integer, '
        'not 1.5 (line 11)']


@pytest.mark.parametrize('label, message', [
    ('"thisthat"', 'label "thisthat" is not of the form key: value (it '
                   'needs exactly one colon)'),
    ('":::"', 'label ":::" is not of the form key: value (it needs exactly '
              'one colon)'),
    ('"a:b:c"', 'label "a:b:c" is not of the form key: value (it needs '
                'exactly one colon)'),
    ('"key:"', 'label "key:" is not of the form key: value (key and value '
               'must not be empty)'),
    ('{a: b, c: d}', "label {'a': 'b', 'c': 'd'} must have exactly one "
                     "key: value pair"),
])
def test_bad_labels(label, message):
    text = _replace(MINIMAL, '        - node_tags: [compute]\n',
                    '        - node_tags: [compute]\n'
                    '          node_labels:\n            - %s\n' % label)
    assert _errors(text) == [
        'document "small", group "second", field '
        '"selectors[0].node_labels[0]": %s (line 16)' % message]


def test_good_labels():
    text = _replace(MINIMAL, '        - node_tags: [compute]\n',
                    '        - node_tags: [compute]\n'
                    '          node_labels:\n'
                    '            - "ucp:enabled"\n'
                    '            - "zone: east"\n'
                    '            - ucp_control_plane: enabled\n')
    (selector,) = shipyard.load(text).group('second').selectors
    assert selector.node_labels == {('ucp', 'enabled'), ('zone', 'east'),
                                    ('ucp_control_plane', 'enabled')}


def test_strategy_errors():
    text = _replace(MINIMAL, '      selectors: []\n', '      selectors: []\n'
                    '      strategy: {type: one_by_one, amount: 2}\n')
    text = _replace(text, '      selectors:\n        - node_tags',
                    '      strategy: {type: serial, amount: 0}\n'
                    '      selectors:\n        - node_tags')
    assert _errors(text) == [
        'document "small", group "first", field "strategy.amount": amount '
        'is only allowed with type parallel (line 10)',
        'document "small", group "second", field "strategy.type": must be '
        'one of one_by_one, parallel, not "serial" (line 14)',
        'document "small", group "second", field "strategy.amount": must '
        'be at least 1, not 0 (line 14)']


def test_yaml_syntax_error_has_a_line():
    text = _replace(MINIMAL, 'depends_on: [first]', 'depends_on: [first')
    (error,) = shipyard.validate(text)
    assert error.line == 13
    assert str(error).startswith('document "<input>": not valid YAML or '
                                 'JSON: ')


def test_several_strategies_in_one_stream():
    assert _errors(MINIMAL + '---\n' + MINIMAL) == [
        'document "<input>": 2 DeploymentStrategy documents (small, '
        'small); give one']


def test_no_strategy_in_a_stream():
    assert _errors('a: 1\n---\nb: 2\n') == [
        'document "<input>": no document with schema '
        'shipyard/DeploymentStrategy/v1 or ironside/DeploymentStrategy/v1']


def test_mapping_input_has_no_lines():
    value = {'schema': 'ironside/DeploymentStrategy/v1',
             'metadata': {'name': 'm'},
             'data': {'groups': [{'name': 'g', 'critical': True,
                                  'depends_on': ['x'], 'selectors': []}]}}
    (error,) = shipyard.validate(value)
    assert error.as_dict() == {
        'document': 'm', 'group': 'g', 'task': None,
        'field': 'depends_on[0]',
        'line': None, 'message': 'depends on unknown group "x"'}


def test_load_raises_with_every_error():
    text = _replace(MINIMAL, 'depends_on: [first]', 'depends_on: [x, y]')
    with pytest.raises(exception.InvalidStrategy) as err:
        shipyard.load(text)
    assert len(err.value.errors) == 2
    assert err.value.code == 400
    assert 'unknown group "x"' in str(err.value)
    assert 'unknown group "y"' in str(err.value)


def test_node_filter_selectors():
    selectors = shipyard.check_selectors([{'rack_names': ['r1']}, {}])
    assert selectors[1].selects_all
    with pytest.raises(exception.InvalidStrategy) as err:
        shipyard.check_selectors([{'node_labels': ['bad']},
                                  {'racks': ['r1']}])
    assert [str(e) for e in err.value.errors] == [
        'document "node filter", field "selectors[1].racks": unknown field',
        'document "node filter", field "selectors[0].node_labels[0]": label '
        '"bad" is not of the form key: value (it needs exactly one colon)']
