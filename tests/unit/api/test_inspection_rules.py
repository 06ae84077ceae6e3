"""Inspection rules (1.96): CRUD, and rules applied when a node is
inspected (fake hardware, in-process conductor); the inventory (1.81)."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api import test_policy
from tests.unit.api.conftest import error_of

RULES = '/v1/inspection_rules'
SET_CPUS = {'op': 'set-attribute',
            'args': {'path': '/properties/cpus',
                     'value': '{inventory[cpu][count]}'}}


def _rule(**values):
    body = {'description': 'CPUs', 'actions': [dict(SET_CPUS)]}
    body.update(values)
    return body


def test_crud(api):
    response = api.post(RULES, _rule(priority=50, conditions=[
        {'op': 'is-true', 'args': {'value': '{inventory[cpu][count]}'}}]))
    assert response.status_code == 201, response.text
    rule = response.json
    assert response.headers['location'].endswith('%s/%s' % (RULES,
                                                            rule['uuid']))
    assert rule['phase'] == 'main'
    assert rule['priority'] == 50
    assert rule['sensitive'] is False
    assert rule['actions'] == [SET_CPUS]
    assert rule['conditions'][0]['op'] == 'is-true'
    listed = api.get(RULES).json['inspection_rules']
    assert listed == [{'uuid': rule['uuid'], 'priority': 50,
                       'phase': 'main', 'description': 'CPUs',
                       'links': rule['links']}]
    assert 'actions' in api.get(RULES, detail='True').json[
        'inspection_rules'][0]
    assert api.get(RULES, phase='other').json['inspection_rules'] == []
    assert set(api.get('%s/%s' % (RULES, rule['uuid']),
                       fields='uuid,priority').json) == {
        'uuid', 'priority', 'links'}
    response = api.patch('%s/%s' % (RULES, rule['uuid']), [
        {'op': 'replace', 'path': '/priority', 'value': 75},
        {'op': 'add', 'path': '/actions/-', 'value': {
            'op': 'add-trait', 'args': {'name': 'CUSTOM_INSPECTED'}}},
        {'op': 'remove', 'path': '/description'}])
    assert response.status_code == 200, response.text
    assert response.json['priority'] == 75
    assert response.json['description'] is None
    assert [a['op'] for a in response.json['actions']] == [
        'set-attribute', 'add-trait']
    assert api.delete('%s/%s' % (RULES, rule['uuid'])).status_code == 204
    assert api.get('%s/%s' % (RULES, rule['uuid'])).status_code == 404
    assert api.delete('%s/%s' % (RULES, rule['uuid'])).status_code == 404


def test_delete_all(api):
    for _ in range(2):
        assert api.post(RULES, _rule()).status_code == 201
    assert api.delete(RULES).status_code == 204
    assert api.get(RULES).json['inspection_rules'] == []


def test_sensitive_rules_are_masked_and_stay_sensitive(api):
    rule = api.post(RULES, _rule(sensitive=True)).json
    assert rule['actions'] is None and rule['conditions'] is None
    path = '%s/%s' % (RULES, rule['uuid'])
    assert api.get(path).json['actions'] is None
    assert api.get(RULES, detail='True').json['inspection_rules'][0][
        'actions'] is None
    for op in ({'op': 'replace', 'path': '/sensitive', 'value': False},
               {'op': 'remove', 'path': '/sensitive'}):
        response = api.patch(path, [op])
        assert response.status_code == 400
        assert 'cannot have the sensitive flag unset' in error_of(response)
    response = api.patch(path, [{'op': 'replace', 'path': '/priority',
                                 'value': 3}])
    assert response.status_code == 200
    assert response.json['actions'] is None


@pytest.mark.parametrize('body, message', [
    ({}, "'actions' is a required property"),
    (_rule(actions=[]), 'actions'),
    (_rule(actions=[{'op': 'explode', 'args': {}}]), 'explode'),
    (_rule(conditions=[{'op': 'bigger', 'args': {}}]), 'bigger'),
    (_rule(phase='late'), 'Invalid phase: late'),
    (_rule(priority=10000), 'Priority must be between 0 and 9999'),
    (_rule(priority=-1), 'priority'),
    (_rule(actions=[{'op': 'set-attribute', 'args': {'path': '/extra'}}]),
     'missing required argument(s): value'),
    (_rule(conditions=[{'op': 'eq', 'args': {'values': [], 'x': 1}}]),
     'unexpected argument(s): x'),
    (_rule(uuid='not-a-uuid'), 'uuid'),
    (_rule(name='x'), 'name'),
])
def test_invalid_rules_are_refused(api, body, message):
    response = api.post(RULES, body)
    assert response.status_code == 400, response.text
    assert message in error_of(response)
    assert api.get(RULES).json['inspection_rules'] == []


def test_duplicate_uuid_conflicts(api):
    rule = api.post(RULES, _rule()).json
    response = api.post(RULES, _rule(uuid=rule['uuid']))
    assert response.status_code == 409


@pytest.mark.parametrize('method', ['get', 'patch', 'delete'])
def test_a_rule_is_named_by_uuid_only(api, method):
    """As Ironic 39: an ident that is not a UUID is a bad request (400),
    not an unknown rule (404)."""
    args = ([{'op': 'replace', 'path': '/priority', 'value': 1}],) \
        if method == 'patch' else ()
    response = getattr(api, method)('%s/no-such-rule' % RULES, *args)
    assert response.status_code == 400, response.text
    assert error_of(response) == \
        'Expected UUID for inspection_rule_uuid: no-such-rule'


def test_microversions(api):
    assert api.get(RULES, version='1.95').status_code == 404
    assert api.post(RULES, _rule(), version='1.95').status_code == 405
    assert api.post(RULES, _rule()).status_code == 201
    node = api.post('/v1/nodes', utils.fake_node_values()).json
    path = '/v1/nodes/%s/inventory' % node['uuid']
    assert api.get(path, version='1.80').status_code == 404
    assert api.get(path).status_code == 404     # never inspected


def test_policy_is_ironics(keystone_api):
    api, admin, reader = keystone_api
    member = test_policy.OWNER_MEMBER
    assert api.post(RULES, _rule(), headers=reader).status_code == 403
    assert api.post(RULES, _rule(), headers=member).status_code == 403
    rule = api.post(RULES, _rule(), headers=admin).json
    assert api.get(RULES, headers=reader).status_code == 200
    assert api.get(RULES, headers=member).status_code == 403
    path = '%s/%s' % (RULES, rule['uuid'])
    assert api.patch(path, [{'op': 'replace', 'path': '/priority',
                             'value': 1}], headers=reader).status_code == 403
    assert api.delete(path, headers=reader).status_code == 403
    assert api.delete(path, headers=admin).status_code == 204


@pytest.fixture
def keystone_api(keystone, api):
    return api, test_policy.SYSTEM_ADMIN, test_policy.SYSTEM_READER




def _inspect(api, node):
    response = api.put('/v1/nodes/%s/states/provision' % node['uuid'],
                       {'target': 'inspect'})
    assert response.status_code == 202, response.text


def _manageable(api, create_node, **values):
    node = create_node(**values)
    api.put('/v1/nodes/%s/states/provision' % node['uuid'],
            {'target': 'manage'})
    utils.wait_for(lambda: _state(node) == 'manageable')
    return node


def _state(node):
    return nodes_db.get_node(node['uuid']).provision_state


def test_inspection_applies_matching_rules_in_priority_order(
        api, create_node):
    node = _manageable(api, create_node, properties={'cpus': 8},
                       driver_info={'fake_inventory': {
                           'bmc_address': '192.0.2.10',
                           'system_vendor': {'manufacturer': 'Dell Inc.'},
                           'bmc_password': 'secret'}})
    port = api.post('/v1/ports', {'node_uuid': node['uuid'],
                                  'address': '52:54:00:00:00:0a'}).json
    api.post(RULES, _rule(priority=10, actions=[
        {'op': 'set-attribute', 'args': {'path': 'extra.order',
                                         'value': 'low'}}]))
    api.post(RULES, _rule(priority=90, conditions=[
        {'op': 'contains', 'args': {
            'value': '{inventory[system_vendor][manufacturer]}',
            'regex': '(?i)dell'}},
        {'op': 'in-net', 'args': {'address': '{inventory[bmc_address]}',
                                  'subnet': '192.0.2.0/24'}}],
        actions=[
            {'op': 'set-attribute', 'args': {'path': '/extra/order',
                                             'value': 'high'}},
            {'op': 'set-attribute', 'args': {
                'path': '/driver_info/redfish_address',
                'value': 'https://{inventory[bmc_address]}'}},
            {'op': 'set-attribute', 'args': {
                'path': '/extra/leaked',
                'value': '{inventory[bmc_password]}'}},
            {'op': 'add-trait', 'args': {'name': 'CUSTOM_DELL'}},
            {'op': 'set-capability', 'args': {'name': 'boot_mode',
                                              'value': 'uefi'}},
            {'op': 'extend-attribute', 'args': {'path': '/extra/tags',
                                                'value': '{item}'},
             'loop': ['a', 'b']},
            {'op': 'set-port-attribute', 'args': {
                'port_id': port['uuid'], 'path': 'extra/switch',
                'value': 'sw1'}},
            {'op': 'set-plugin-data', 'args': {'path': 'seen.by',
                                               'value': 'rules'}}]))
    api.post(RULES, _rule(conditions=[
        {'op': '!eq', 'args': {'values': ['{inventory[cpu][count]}', '8']}}],
        actions=[{'op': 'fail', 'args': {'msg': 'never'}}]))
    _inspect(api, node)
    utils.wait_for(lambda: _state(node) == 'manageable' and
                   nodes_db.get_node(node['uuid']).inspection_finished_at)
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['last_error'] is None
    # The low-priority rule ran last.
    assert shown['extra']['order'] == 'low'
    assert shown['extra']['tags'] == ['a', 'b']
    assert shown['extra']['leaked'] == '***'
    assert shown['properties']['capabilities'] == 'boot_mode:uefi'
    assert nodes_db.get_node(node['uuid']).driver_info[
        'redfish_address'] == 'https://192.0.2.10'
    assert 'CUSTOM_DELL' in api.get(
        '/v1/nodes/%s/traits' % node['uuid']).json['traits']
    assert api.get('/v1/ports/%s' % port['uuid']).json['extra'] == {
        'switch': 'sw1'}
    stored = api.get('/v1/nodes/%s/inventory' % node['uuid']).json
    assert stored['inventory']['cpu']['count'] == 8
    assert stored['plugin_data'] == {'seen': {'by': 'rules'}}


def test_a_failing_rule_fails_the_inspection(api, create_node):
    node = _manageable(api, create_node)
    api.post(RULES, _rule(conditions=[
        {'op': 'gt', 'args': {'values': ['{inventory[memory][physical_mb]}',
                                         '100']},
         'loop': [1], 'multiple': 'all'}],
        actions=[{'op': 'fail', 'args': {'msg': 'too much memory'}}]))
    _inspect(api, node)
    utils.wait_for(lambda: _state(node) == 'inspect failed')
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert 'too much memory' in shown['last_error']
    assert api.get('/v1/nodes/%s/inventory' % node['uuid']
                   ).status_code == 404


def test_inspection_needs_an_inspect_interface(api, create_node):
    node = _manageable(api, create_node, inspect_interface='no-inspect')
    response = api.put('/v1/nodes/%s/states/provision' % node['uuid'],
                       {'target': 'inspect'})
    assert response.status_code == 400
    assert _state(node) == 'manageable'


def test_strings_from_the_cli_and_null_conditions_are_taken(api):
    response = api.post(RULES, _rule(priority='20', sensitive='false',
                                     conditions=None))
    assert response.status_code == 201, response.text
    assert response.json['priority'] == 20
    assert response.json['sensitive'] is False
    assert response.json['conditions'] == []
    response = api.post(RULES, _rule(sensitive='maybe'))
    assert response.status_code == 400


def test_built_in_rules_apply_after_stored_ones(api, create_node, conf,
                                                tmp_path):
    path = tmp_path / 'rules.yaml'
    path.write_text(
        '- priority: -5\n'
        '  actions:\n'
        '    - {op: set-attribute, args: {path: /extra/by, value: built-in}}\n'
        '    - {op: add-trait, args: {name: CUSTOM_BUILT_IN}}\n')
    conf.set('inspection_rules', built_in_rules=str(path))
    api.post(RULES, _rule(actions=[{'op': 'set-attribute', 'args': {
        'path': '/extra/by', 'value': 'stored'}}]))
    node = _manageable(api, create_node)
    _inspect(api, node)
    utils.wait_for(lambda: _state(node) == 'manageable' and
                   nodes_db.get_node(node['uuid']).inspection_finished_at)
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['extra'] == {'by': 'built-in'}
    assert 'CUSTOM_BUILT_IN' in api.get(
        '/v1/nodes/%s/traits' % node['uuid']).json['traits']
    assert len(api.get(RULES).json['inspection_rules']) == 1

    path.write_text('- priority: 1\n  actions: []\n')
    _inspect(api, node)
    utils.wait_for(lambda: _state(node) == 'inspect failed')
    error = api.get('/v1/nodes/%s' % node['uuid']).json['last_error']
    assert 'built-in inspection rules %s' % path in error
