"""The site API's designs and revisions over HTTP, and design actions
through the conductor."""

from __future__ import annotations

import json

import pytest
from falcon import testing

from ironside.api import app as api_app
from ironside.api import site as site_api
from ironside.db import nodes as nodes_db
from tests.unit.strategy.design_fixtures import DESIGN
from tests.unit.strategy.design_fixtures import config
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import stage_example
from tests.unit.strategy.design_fixtures import strategy
from tests.unit.strategy.design_fixtures import text

BASE = '/site/v1'


@pytest.fixture
def client(db):
    return testing.TestClient(api_app.build_app(
        None, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))


def fault(response):
    return json.loads(response.json['error_message'])['faultstring']


def post_collection(client, collection, *documents, **body):
    body.setdefault('sources', [{'name': 'f.yaml',
                                 'text': text(*documents)}])
    return client.simulate_post(BASE + '/designs/buffer/' + collection,
                                json=body)


def test_stage_see_commit_show(client):
    created = post_collection(client, 'a', config('c', {'password': 'pw',
                                                        'x': 1}))
    assert created.status_code == 201
    assert created.json == {'collection': 'a', 'status': 'created',
                            'documents': 1}
    buffer = client.simulate_get(BASE + '/designs/buffer').json
    assert buffer['empty'] is False
    assert [(c['collection'], c['status'], c['documents'])
            for c in buffer['collections']] == [('a', 'created', 1)]
    shown = client.simulate_get(BASE + '/designs/documents',
                                params={'version': 'buffer'}).json
    assert shown['revision'] is None
    assert shown['documents'][0]['document']['data'] == {
        'password': '******', 'x': 1}
    committed = client.simulate_post(BASE + '/designs/commit', json={})
    assert committed.status_code == 201
    assert committed.json == {'revision': 1, 'documents': 1,
                              'forced': False, 'dry_run': False,
                              'warnings': []}
    shown = client.simulate_get(BASE + '/designs/documents').json
    assert (shown['version'], shown['revision']) == ('committed', 1)
    listed = client.simulate_get(BASE + '/revisions').json['revisions']
    assert [(r['revision'], r['documents'], r['tags']) for r in listed] == [
        (1, 1, [])]
    one = client.simulate_get(BASE + '/revisions/committed').json
    assert (one['collections'], one['actions']) == ({'a': 1}, [])
    assert 'pw' not in json.dumps(shown)


def test_a_refused_commit_answers_400_with_every_problem(client):
    post_collection(client, 'a', node('n1', driver=3))
    response = client.simulate_post(BASE + '/designs/commit')
    assert response.status_code == 400
    assert fault(response) == (
        'Design commit refused: 1 error, 0 warnings:\n'
        '  collection "a", file "f.yaml", schema "ironside/BaremetalNode/v1",'
        ' document "n1", field "data.driver": must be a string, not 3 '
        '(line 9)')


def test_dry_run(client):
    post_collection(client, 'a', config('c', 1))
    response = client.simulate_post(BASE + '/designs/commit',
                                    json={'dry_run': True})
    assert response.status_code == 200
    assert response.json['dry_run'] is True
    assert client.simulate_get(BASE + '/revisions').json == {
        'revisions': []}


def test_diff_and_render(client):
    stage_example()
    client.simulate_post(BASE + '/designs/commit')
    client.simulate_post(BASE + '/designs/buffer/config', json={
        'sources': [{'name': 'v2', 'text': (
            DESIGN / 'site-config-v2.yaml').read_text()}]})
    diff = client.simulate_get(BASE + '/designs/diff', params={
        'base-version': '1', 'diff-version': 'buffer'}).json
    assert diff['base'] == {'version': 1, 'revision': 1}
    assert diff['diff'] == {'version': 'buffer', 'revision': None}
    assert diff['collections'] == {'config': 'modified', 'nodes':
                                   'unmodified', 'site': 'unmodified'}
    changed = [d for d in diff['documents'] if d['status'] != 'unmodified']
    assert changed == [{'collection': 'config', 'schema':
                        'ironside/Config/v1', 'name': 'site',
                        'status': 'modified', 'changes': [{
                            'path': 'data.ntp_servers[1]',
                            'change': 'changed', 'old': '10.0.0.2',
                            'new': '10.0.0.3'}]}]
    rendered = client.simulate_get(BASE + '/designs/rendered').json
    assert rendered['revision'] == 1
    assert rendered['strategy']['groups'][4] == {
        'name': 'ntp-node', 'critical': True, 'depends_on': [],
        'nodes': ['ntp01']}
    assert rendered['nodes'][0]['driver_info']['fake_bmc_password'] == \
        '******'
    assert rendered['kinds']['Passphrase'] == ['ipmi-admin-password']
    assert rendered['configs']['site']['ntp_servers'] == ['10.0.0.1',
                                                         '10.0.0.2']
    assert 'example-' not in json.dumps(rendered)


@pytest.mark.parametrize('method, path, kwargs, status, message', [
    ('GET', '/designs/documents', {'params': {'version': 'latest'}}, 400,
     'Invalid version "latest": expected buffer, committed, '
     'successful-site-action, last-site-action or a revision number.'),
    ('GET', '/designs/documents', {}, 404,
     'No design revision has been committed yet.'),
    ('GET', '/designs/diff', {'params': {'base-version':
                                         'last-site-action'}}, 404,
     'No design revision is tagged site-action-success or '
     'site-action-failure: no site action has finished yet.'),
    ('GET', '/designs/diff', {'params': {'version': '1'}}, 400,
     'Unexpected arguments: version'),
    ('GET', '/revisions/4', {}, 404, 'Design revision 4 does not exist.'),
    ('GET', '/revisions/buffer', {}, 400,
     'The buffer is not a revision; name a committed one'),
    ('POST', '/designs/commit', {'json': {'force': 'yes'}}, 400,
     "Schema error for commit: 'yes' is not of type 'boolean' (at "
     "/force)"),
    ('POST', '/designs/commit', {}, 409,
     'The buffer is empty: it holds no change to the committed design, '
     'so there is nothing to commit.'),
    ('POST', '/designs/buffer/a', {'json': {'documents': []}}, 400,
     "Schema error for collection: Additional properties are not allowed "
     "('documents' was unexpected)"),
    ('POST', '/designs/buffer/a', {'json': {'sources': [{'name': 'x'}]}},
     400, "Schema error for collection: 'text' is a required property "
     "(at /sources/0)"),
])
def test_errors(client, method, path, kwargs, status, message):
    response = client.simulate_request(method, BASE + path, **kwargs)
    assert response.status_code == status
    assert fault(response) == message


def test_discard_the_buffer(client):
    post_collection(client, 'a', config('c', 1))
    assert client.simulate_delete(BASE + '/designs/buffer').status_code \
        == 204
    assert client.simulate_get(BASE + '/designs/buffer').json == {
        'empty': True, 'collections': []}


def test_root_lists_design_routes(client):
    root = client.simulate_get(BASE).json
    assert root['resources']['revisions'] == BASE + '/revisions'
    assert 'ironside/BaremetalNode/v1' in root['design_schemas']
    assert root['action_parameters'] == [
        'allow-intermediate-commits', 'clear-labels-timeout',
        'drain-node-grace-period', 'drain-node-timeout', 'end',
        'etcd-ready-timeout', 'node', 'nodes', 'preserve-local-storage',
        'remove-etcd-timeout', 'skip', 'start', 'target-revision', 'tasks']


# Through the conductor

@pytest.fixture
def conductor_client(db, rpc):
    return testing.TestClient(api_app.build_app(
        rpc, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))


def test_actions_enroll_and_update_through_the_conductor(conductor_client,
                                                         make_node):
    existing = make_node(name='ctl01', extra={'rack': 'old',
                                              'note': 'kept'})
    stage_example()
    conductor_client.simulate_post(BASE + '/designs/commit')
    created = conductor_client.simulate_post(BASE + '/actions', json={
        'action': 'deploy_site'})
    assert created.status_code == 201
    assert created.json['revision'] == 1
    assert len(created.json['nodes']) == 14
    ctl01 = nodes_db.get_node(existing.uuid)
    assert ctl01.extra == {'rack': 'rack03', 'tags': ['control'],
                           'labels': {'ucp_control_plane': 'enabled'},
                           'roles': ['controller'], 'note': 'kept'}
    ntp01 = nodes_db.get_node('ntp01')
    assert (ntp01.driver, ntp01.provision_state, ntp01.resource_class) == (
        'fake-hardware', 'enroll', 'baremetal')
    assert ntp01.properties['cpus'] == 16


def test_a_driver_no_conductor_serves_enrolls_nothing(conductor_client):
    conductor_client.simulate_post(BASE + '/designs/buffer/a', json={
        'sources': [{'name': 'f', 'text': text(
            strategy(), node('n1'), node('n2', driver='ipmi-nope'))}]})
    conductor_client.simulate_post(BASE + '/designs/commit',
                                   json={'force': True})
    response = conductor_client.simulate_post(BASE + '/actions', json={
        'action': 'deploy_site', 'parameters': {
            'allow-intermediate-commits': 'true'}})
    assert response.status_code == 400
    assert fault(response) == (
        'Design revision 1 can not run a site action: node n2: no conductor '
        'serves driver ipmi-nope.')
    assert nodes_db.select_node_columns(('name',)) == []
