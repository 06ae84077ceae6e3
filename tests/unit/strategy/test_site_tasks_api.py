"""The site API with task graphs: actions from documents, partial runs,
the task listing and validation."""

from __future__ import annotations

import json

import pytest
from falcon import testing

from ironside.api import app as api_app
from ironside.api import site as site_api
from ironside.db import site as site_db
from tests.unit.strategy import fuel_examples as fx

BASE = '/site/v1'
KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n' \
      '-----END OPENSSH PRIVATE KEY-----\n'


@pytest.fixture
def client(db):
    return testing.TestClient(api_app.build_app(
        None, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))


@pytest.fixture
def usage_nodes(make_node):
    return {name: make_node(name=name, extra={'roles': role}).uuid
            for role, names in fx.USAGE_NODES.items() for name in names}


def fault(response):
    return json.loads(response.json['error_message'])['faultstring']


def access():
    return {'nodes': {'node-%d' % i: {'address': '192.0.2.%d' % i,
                                      'user': 'deploy'}
                      for i in range(1, 9)},
            'private_key': KEY}


def test_action_from_a_task_graph(client, usage_nodes):
    response = client.simulate_post(BASE + '/actions', json={
        'action': 'deploy_site',
        'documents': [{'name': 'usage.yaml', 'document': fx.USAGE}],
        'parameters': {'skip': ['setup_services'], 'nodes': 'node-1,node-7'},
        'access': access()})
    assert response.status_code == 201, response.text
    report = response.json
    assert report['strategy'] == 'usage.yaml'
    assert report['options'] == {'skip': ['setup_services'],
                                 'nodes': ['node-1', 'node-7']}
    assert [n['name'] for n in report['nodes']] == ['node-1', 'node-7']
    assert report['nodes'][0]['tasks'] == [{
        'task': 'setup_network', 'stage': 'deployment', 'status': 'pending',
        'exit_status': None, 'duration': None, 'output_tail': None,
        'reason': None}]
    assert report['groups'][0]['tasks'] == {'result': 'pending'}
    # The key is stored for the conductor, never shown.
    assert 'secret' not in response.text
    assert 'secret' not in client.simulate_get(
        BASE + '/actions/' + report['uuid']).text
    stored = site_db.get_action(report['uuid']).document
    assert stored['access']['private_key'] == KEY


@pytest.mark.parametrize('body, message', [
    ({'documents': [fx.PRE_POST]},
     'Invalid task graph: document "document 1", task "update_hosts", field '
     '"requires[0]": requires "upload_nodes_info", which no document of the '
     'action defines (line 5)'),
    ({'documents': [fx.USAGE], 'parameters': {'start': 'nowhere'}},
     'Run option "start": no task, group or stage is named "nowhere"'),
    ({'documents': [fx.USAGE], 'parameters': {'tasks': 'a', 'when': 1}},
     'Unknown parameters for deploy_site: when (it takes '
     'allow-intermediate-commits, end, nodes, skip, start, '
     'target-revision, tasks)'),
    ({'documents': [fx.USAGE], 'parameters': {'tasks': 5}},
     'Invalid parameters: "tasks" must be a list of names, not 5'),
    ({'documents': [fx.USAGE],
      'parameters': {'target-revision': 'committed'}},
     'Parameters target-revision apply only to an action that runs a '
     'design revision, not a stored strategy'),
    ({'documents': [fx.USAGE], 'access': {'nodes': {'node-1': {}}}},
     'access for node node-1 needs an "address"'),
    ({'documents': [fx.USAGE]},
     'The site action can not run: no access (address, port, user) for '
     'nodes node-1, node-2, node-3, node-4, node-5, node-6, node-7, node-8, '
     'which have tasks to run'),
    ({'documents': 'x'}, "Schema error for site action: 'x' is not of "
                         "type 'array', 'null' (at /documents)"),
    ({'documents': [{'schema': 'other/Kind/v1'}]},
     'Invalid task graph: document "document 1": not a DeploymentStrategy '
     'or a task graph (schema other/Kind/v1)'),
])
def test_bad_task_graph_actions(client, usage_nodes, body, message):
    response = client.simulate_post(BASE + '/actions', json=dict(
        body, action='deploy_site'))
    assert response.status_code == 400
    assert fault(response) == message
    assert site_db.list_actions() == []


def test_task_listing_with_start_and_end(client):
    pipeline = '''\
- id: netconfig
  type: shell
  role: '*'
  parameters: {cmd: "true"}
- id: hiera
  type: shell
  role: '*'
  requires: [netconfig]
  parameters: {cmd: "true"}
- id: galera
  type: puppet
  role: [controller]
  requires: [hiera]
'''
    response = client.simulate_post(
        BASE + '/tasks', params={'start_task': 'hiera',
                                 'end_task': 'galera'},
        json={'documents': [pipeline]})
    assert response.status_code == 200
    assert [(t['id'], t['needs_tasks']) for t in response.json['tasks']] == \
        [('hiera', ['netconfig']), ('galera', ['hiera'])]
    everything = client.simulate_post(BASE + '/tasks', json={
        'documents': [fx.USAGE]}).json['tasks']
    assert [(t['id'], t['type'], t['stage'], t['groups'])
            for t in everything] == [
        ('setup_network', 'shell', 'deployment',
         ['primary-controller', 'controller', 'cinder', 'compute',
          'network']),
        ('setup_services', 'puppet', 'deployment',
         ['primary-controller', 'controller', 'cinder', 'compute',
          'network'])]
    missing = client.simulate_post(BASE + '/tasks', params={
        'end_task': 'nope'}, json={'documents': [fx.USAGE]})
    assert missing.status_code == 400
    assert fault(missing) == \
        'Run option "end": no task, group or stage is named "nope"'


def test_validate_a_task_graph(client):
    response = client.simulate_post(BASE + '/tasks/validate',
                                    json={'document': fx.CROSS_REFERENCE})
    assert response.json['valid'] is True
    assert [w['field'] for w in response.json['warnings']] == [
        'requires[0]', 'requires[0]', None, 'requires[0]']
    bad = client.simulate_post(BASE + '/tasks/validate',
                               json={'document': '- id: x\n  type: nope\n'})
    assert bad.json['valid'] is False
    assert bad.json['errors'][0]['text'] == (
        'document "<input>", task "x", field "type": unknown task type '
        '"nope" (known: shell, upload_file, rsync, puppet, step, skipped) '
        '(line 2)')


def test_validate_a_graph_split_in_two_files(client):
    """The spec's usage example as a groups file and a tasks file: alone,
    the tasks file names groups it does not define (warnings); together
    nothing is missing."""
    tasks = {'name': 'tasks.yaml', 'document': fx.USAGE_TASKS}
    alone = client.simulate_post(BASE + '/tasks/validate',
                                 json={'documents': [tasks]}).json
    assert alone['valid'] is True
    assert len(alone['warnings']) == 10
    assert alone['warnings'][0]['text'] == (
        'document "tasks.yaml", task "setup_services", field "groups[0]": '
        'is in group "controller", which this document does not define: '
        'the site design must define it before it runs (line 4)')
    together = client.simulate_post(BASE + '/tasks/validate', json={
        'documents': [{'name': 'groups.yaml',
                       'document': fx.USAGE_GROUPS}, tasks]}).json
    assert together == {'valid': True, 'errors': [], 'warnings': []}


def test_validation_errors_name_the_file_and_the_line(client):
    strategy = '''\
schema: ironside/DeploymentStrategy/v1
metadata: {name: rollout}
data:
  groups:
    - name: controller
      critical: maybe
      depends_on: []
      selectors: [{node_tags: [control]}]
'''
    tasks = '- id: work\n  type: shell\n  groups: [controller]\n' \
        '  parameters: {cmd: "true"}\n- id: x\n  type: nope\n'
    response = client.simulate_post(BASE + '/tasks/validate', json={
        'documents': [{'name': 'strategy.yaml', 'document': strategy},
                      {'name': 'tasks.yaml', 'document': tasks},
                      {'name': 'broken.yaml', 'document': 'a: [\n'}]})
    assert response.status_code == 200
    assert response.json['valid'] is False
    assert response.json['warnings'] == []
    errors = response.json['errors']
    assert [(e['source'], e['line']) for e in errors] == [
        ('broken.yaml', 2), ('strategy.yaml', 6), ('tasks.yaml', 6)]
    assert errors[1]['text'] == (
        'file "strategy.yaml", document "rollout", group "controller", '
        'field "critical": must be true or false, not "maybe" (line 6)')
    assert errors[2]['text'] == (
        'document "tasks.yaml", task "x", field "type": unknown task type '
        '"nope" (known: shell, upload_file, rsync, puppet, step, skipped) '
        '(line 6)')
    assert errors[0]['text'].startswith(
        'document "broken.yaml": not valid YAML or JSON: ')


@pytest.mark.parametrize('path, body, given', [
    # The designs API's shape.
    ('/tasks', {'sources': [{'name': 'a.yaml', 'text': '- id: x\n'}]},
     "Additional properties are not allowed ('sources' was unexpected)"),
    ('/tasks', {'documents': [{'name': 'a.yaml', 'text': '- id: x\n'}]},
     None),
    ('/tasks', {'documents': '- id: x\n'}, None),
    ('/tasks/validate', {'sources': [{'name': 'a.yaml', 'text': 'x'}]},
     None),
    ('/tasks/validate', {'documents': [{'name': 'a', 'text': 'x'}]}, None),
    ('/tasks/validate', {'document': 'x', 'documents': ['x']},
     'Give "document" (and its "name"), or "documents". '),
    ('/tasks/validate', {'name': 'a.yaml'}, 'Give "document"'),
])
def test_a_body_of_another_shape_says_what_is_expected(client, path, body,
                                                       given):
    response = client.simulate_post(BASE + path, json=body)
    assert response.status_code == 400
    message = fault(response)
    if given:
        assert given in message
    assert message.endswith(
        'POST /site/v1%s takes %s{"documents": [DOCUMENT, ...]}, each '
        'DOCUMENT a YAML or JSON text, a parsed document (with its '
        '"schema"), or {"name": FILE, "document": DOCUMENT}' % (
            path, '{"document": DOCUMENT, "name": FILE} or '
            if path.endswith('validate') else ''))


def test_named_documents_list_their_tasks(client):
    response = client.simulate_post(BASE + '/tasks', json={'documents': [
        {'name': 'groups.yaml', 'document': fx.USAGE_GROUPS},
        {'name': 'tasks.yaml', 'document': fx.USAGE_TASKS}]})
    assert response.status_code == 200, response.text
    assert [t['id'] for t in response.json['tasks']] == [
        'setup_network', 'setup_services']
