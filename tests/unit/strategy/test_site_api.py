"""The site API: strategies, actions and the node filter over HTTP."""

from __future__ import annotations

import pytest

from tests.unit.strategy.conftest import SPEC_STRATEGY
from tests.unit.strategy.conftest import fault

BASE = '/site/v1'


def test_root(client):
    response = client.simulate_get(BASE)
    assert response.json['actions'] == ['deploy_site', 'update_site',
                                        'redeploy_server']
    assert response.json['resources']['strategies'] == BASE + '/strategies'


def test_create_list_show_delete_strategy(client):
    response = client.simulate_post(BASE + '/strategies',
                                    json={'document': SPEC_STRATEGY})
    assert response.status_code == 201
    assert response.headers['location'].endswith(
        '/site/v1/strategies/deployment-strategy')
    assert response.json['groups'] == [
        'control-nodes', 'compute-nodes-1', 'compute-nodes-2',
        'monitoring-nodes', 'ntp-node']
    listed = client.simulate_get(BASE + '/strategies').json['strategies']
    assert [s['name'] for s in listed] == ['deployment-strategy']
    assert 'document' not in listed[0]
    shown = client.simulate_get(BASE + '/strategies/deployment-strategy')
    assert shown.json['schema'] == 'shipyard/DeploymentStrategy/v1'
    assert shown.json['document']['metadata']['name'] == \
        'deployment-strategy'
    assert client.simulate_delete(
        BASE + '/strategies/deployment-strategy').status_code == 204
    missing = client.simulate_get(BASE + '/strategies/deployment-strategy')
    assert missing.status_code == 404
    assert fault(missing) == \
        'Deployment strategy deployment-strategy could not be found.'


def test_strategy_under_another_name(client):
    response = client.simulate_post(BASE + '/strategies', json={
        'document': SPEC_STRATEGY, 'name': 'rack-by-rack'})
    assert response.json['name'] == 'rack-by-rack'


def test_duplicate_strategy(client):
    client.simulate_post(BASE + '/strategies',
                         json={'document': SPEC_STRATEGY})
    again = client.simulate_post(BASE + '/strategies',
                                 json={'document': SPEC_STRATEGY})
    assert again.status_code == 409
    assert fault(again) == \
        'A deployment strategy named deployment-strategy already exists.'


def test_invalid_strategy_is_refused_with_every_error(client):
    text = SPEC_STRATEGY.replace('percent_successful_nodes: 90',
                                 'percent_successful_nodes: 190')
    text = text.replace('        - ntp-node\n', '        - ntp\n')
    response = client.simulate_post(BASE + '/strategies',
                                    json={'document': text})
    assert response.status_code == 400
    assert fault(response) == (
        'Invalid deployment strategy: document "deployment-strategy", '
        'group "control-nodes", field "depends_on[0]": depends on unknown '
        'group "ntp" (line 15); document "deployment-strategy", group '
        '"control-nodes", field "success_criteria.percent_successful_nodes"'
        ': must be at most 100, not 190 (line 24)')
    assert client.simulate_get(BASE + '/strategies').json == {
        'strategies': []}


def test_validate(client):
    good = client.simulate_post(BASE + '/strategies/validate',
                                json={'document': SPEC_STRATEGY})
    assert good.json == {'valid': True, 'errors': []}
    bad = client.simulate_post(BASE + '/strategies/validate', json={
        'document': SPEC_STRATEGY.replace('critical: false',
                                          'critical: maybe', 1)})
    assert bad.status_code == 200
    assert bad.json == {'valid': False, 'errors': [{
        'document': 'deployment-strategy', 'group': 'compute-nodes-1',
        'task': None, 'field': 'critical', 'line': 28,
        'message': 'must be true or false, not "maybe"', 'source': None,
        'text': 'document "deployment-strategy", group "compute-nodes-1", '
                'field "critical": must be true or false, not "maybe" '
                '(line 28)'}]}
    # Named by the file it came from, the errors name it too.
    named = client.simulate_post(BASE + '/strategies/validate', json={
        'document': SPEC_STRATEGY.replace('critical: false',
                                          'critical: maybe', 1),
        'name': 'strategy.yaml'})
    assert [e['text'] for e in named.json['errors']] == [
        'file "strategy.yaml", document "deployment-strategy", group '
        '"compute-nodes-1", field "critical": must be true or false, not '
        '"maybe" (line 28)']
    assert client.simulate_get(BASE + '/strategies').json == {
        'strategies': []}


@pytest.mark.parametrize('body, message', [
    ({}, "Schema error for strategy: 'document' is a required property"),
    ({'document': 3}, "Schema error for strategy: 3 is not of type "
                      "'string', 'object' (at /document)"),
    ([1], "Schema error for strategy: [1] is not of type 'object'"),
])
def test_bad_strategy_requests(client, body, message):
    response = client.simulate_post(BASE + '/strategies', json=body)
    assert response.status_code == 400
    assert fault(response) == message


def test_malformed_json(client):
    response = client.simulate_post(
        BASE + '/strategies', body='{"document": ',
        headers={'Content-Type': 'application/json'})
    assert response.status_code == 400
    assert 'error_message' in response.json


def test_actions(client, enrolled):
    client.simulate_post(BASE + '/strategies',
                         json={'document': SPEC_STRATEGY})
    created = client.simulate_post(BASE + '/actions', json={
        'action': 'deploy_site', 'strategy': 'deployment-strategy'})
    assert created.status_code == 201
    uuid = created.json['uuid']
    assert created.headers['location'].endswith('/site/v1/actions/' + uuid)
    assert created.json['state'] == 'queued'
    assert created.json['groups'][0]['prepare'] == {'result': 'pending'}
    assert len(created.json['nodes']) == 14
    shown = client.simulate_get(BASE + '/actions/' + uuid)
    assert shown.json['groups'][0]['nodes'] == ['ntp01']
    listed = client.simulate_get(BASE + '/actions').json['actions']
    assert [a['uuid'] for a in listed] == [uuid]
    overlap = client.simulate_post(BASE + '/actions', json={
        'action': 'update_site', 'strategy': 'deployment-strategy'})
    assert overlap.status_code == 409
    assert fault(overlap).startswith(
        'Site action %s is still running on nodes cmp-r1-01, cmp-r1-02, '
        % uuid)


@pytest.mark.parametrize('body, status, message', [
    ({'action': 'destroy_site', 'strategy': 'deployment-strategy'}, 400,
     'Unknown site action "destroy_site"; expected one of deploy_site, '
     'update_site, redeploy_server'),
    ({'action': 'deploy_site', 'strategy': 'nope'}, 404,
     'Deployment strategy nope could not be found.'),
    ({'action': 'deploy_site'}, 404,
     'No design revision has been committed yet.'),
    ({'action': 'deploy_site', 'strategy': 'deployment-strategy',
      'parameters': {'target-revision': 1}}, 400,
     'Parameters target-revision apply only to an action that runs a '
     'design revision, not a stored strategy'),
    ({'action': 'deploy_site', 'parameters': []}, 400,
     "Schema error for site action: [] is not of type 'object', 'null' "
     "(at /parameters)"),
    ({'action': 'deploy_site', 'strategy': ['x']}, 400,
     "Schema error for site action: ['x'] is not of type 'string', "
     "'null' (at /strategy)"),
    ({'action': 'deploy_site', 'strategy': 'x', 'nodes': []}, 400,
     "Schema error for site action: Additional properties are not "
     "allowed ('nodes' was unexpected)"),
])
def test_bad_action_requests(client, body, status, message):
    client.simulate_post(BASE + '/strategies',
                         json={'document': SPEC_STRATEGY})
    response = client.simulate_post(BASE + '/actions', json=body)
    assert response.status_code == status
    assert fault(response) == message


def test_unknown_action(client):
    response = client.simulate_get(BASE + '/actions/nope')
    assert response.status_code == 404
    assert fault(response) == 'Site action nope could not be found.'


def test_node_filter(client, enrolled):
    response = client.simulate_post(BASE + '/nodes/filter', json={
        'selectors': [{'node_tags': ['monitoring'], 'rack_names': ['rack01']},
                      {'node_labels': ['ucp_control_plane: enabled'],
                       'node_names': ['ctl02']}]})
    assert response.json == {'nodes': [
        {'name': 'ctl02', 'uuid': enrolled['ctl02'], 'rack': 'rack03',
         'tags': ['control'], 'labels': {'ucp_control_plane': 'enabled'}},
        {'name': 'mon01', 'uuid': enrolled['mon01'], 'rack': 'rack01',
         'tags': ['monitoring'], 'labels': {}}]}
    everything = client.simulate_post(BASE + '/nodes/filter', json={})
    assert len(everything.json['nodes']) == 14


def test_node_filter_errors(client):
    response = client.simulate_post(BASE + '/nodes/filter', json={
        'selectors': [{'node_labels': ['a:b:c']}]})
    assert response.status_code == 400
    assert fault(response) == (
        'Invalid deployment strategy: document "node filter", field '
        '"selectors[0].node_labels[0]": label "a:b:c" is not of the form '
        'key: value (it needs exactly one colon)')
