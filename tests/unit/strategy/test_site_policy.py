"""The site API under keystone: Ironic's personas, and project scoping.

As in tests/unit/api/test_policy.py, the app runs without
keystonemiddleware; requests carry the identity headers auth_token sets
once it has validated a token. Roles are given as keystone expands them
(a manager is a member and a reader too).
"""

from __future__ import annotations

import pytest
from oslo_policy import policy as oslo_policy

from ironside.api import policy
from ironside.db import nodes as nodes_db
from ironside.db import site as site_db
from ironside.strategy import actions
from ironside.strategy.designs import store
from tests.unit.api.conftest import identity
from tests.unit.strategy import test_computed_fields_actions as computed
from tests.unit.strategy.conftest import INVENTORY
from tests.unit.strategy.conftest import SPEC_STRATEGY
from tests.unit.strategy.conftest import fault
from tests.unit.strategy.conftest import node_values
from tests.unit.strategy.design_fixtures import config
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import stage_example

BASE = '/site/v1'


SYSTEM_ADMIN = identity(['admin', 'manager', 'member', 'reader'],
                         system=True)
SYSTEM_MEMBER = identity(['member', 'reader'], system=True)
SYSTEM_READER = identity(['reader'], system=True)
PROJECT_ADMIN = identity(['admin', 'manager', 'member', 'reader'],
                          project='p1')
PROJECT_MANAGER = identity(['manager', 'member', 'reader'], project='p1')
PROJECT_MEMBER = identity(['member', 'reader'], project='p1')
PROJECT_READER = identity(['reader'], project='p1')
NOBODY = identity([], project='p3')

# Rack 1's compute nodes: p1 owns three and leases the fourth.
RACK1 = {'schema': 'shipyard/DeploymentStrategy/v1',
         'metadata': {'schema': 'metadata/Document/v1', 'name': 'rack1'},
         'data': {'groups': [{
             'name': 'rack1', 'critical': False, 'depends_on': [],
             'selectors': [{'rack_names': ['rack01'],
                            'node_tags': ['compute']}],
             'success_criteria': {'percent_successful_nodes': 50}}]}}
P1_NODES = ['cmp-r1-01', 'cmp-r1-02', 'cmp-r1-03', 'cmp-r1-04']


def _owners(name):
    if name == 'cmp-r1-04':
        return {'owner': 'p9', 'lessee': 'p1'}
    if name.startswith('cmp-r1-'):
        return {'owner': 'p1'}
    return {'owner': 'p9'}


@pytest.fixture
def site(keystone, make_node):
    """The example site; p1 owns or leases rack 1's compute nodes."""
    return {entry['name']: make_node(**node_values(entry),
                                     **_owners(entry['name'])).uuid
            for entry in INVENTORY['nodes']}


def _status(response, expected):
    assert response.status_code == expected, response.text
    return response


def _site_action(client, headers, document=None):
    return client.simulate_post(BASE + '/actions', headers=headers, json={
        'action': 'deploy_site', 'documents': [document or RACK1]})


def _system_action(client):
    """An action on every node of the site."""
    client.simulate_post(BASE + '/strategies', headers=SYSTEM_ADMIN,
                         json={'document': SPEC_STRATEGY})
    return _status(client.simulate_post(
        BASE + '/actions', headers=SYSTEM_ADMIN,
        json={'action': 'deploy_site', 'strategy': 'deployment-strategy'}),
        201).json['uuid']


READS = ['', '/strategies', '/actions', '/nodes/status']
SYSTEM_READS = ['/designs/buffer', '/revisions', '/tasks']


@pytest.mark.parametrize('headers', [SYSTEM_ADMIN, SYSTEM_MEMBER,
                                     SYSTEM_READER])
def test_system_personas_read_everything(client, site, headers):
    for path in READS + ['/designs/buffer', '/revisions']:
        _status(client.simulate_get(BASE + path, headers=headers), 200)
    names = [n['name'] for n in client.simulate_get(
        BASE + '/nodes/status', headers=headers).json['nodes']]
    assert len(names) == 14
    found = client.simulate_post(BASE + '/nodes/filter', headers=headers,
                                 json={'selectors': [{}]}).json['nodes']
    assert len(found) == 14


@pytest.mark.parametrize('headers', [PROJECT_ADMIN, PROJECT_MANAGER,
                                     PROJECT_MEMBER, PROJECT_READER])
def test_projects_see_only_their_nodes(client, site, headers):
    status = _status(client.simulate_get(BASE + '/nodes/status',
                                         headers=headers), 200)
    assert sorted(n['name'] for n in status.json['nodes']) == P1_NODES
    found = client.simulate_post(BASE + '/nodes/filter', headers=headers,
                                 json={'selectors': [{}]}).json['nodes']
    assert sorted(n['name'] for n in found) == P1_NODES
    for path in READS:
        _status(client.simulate_get(BASE + path, headers=headers), 200)


@pytest.mark.parametrize('headers', [PROJECT_ADMIN, PROJECT_MANAGER,
                                     PROJECT_MEMBER, PROJECT_READER])
def test_the_site_design_is_the_systems(client, site, headers):
    for path in SYSTEM_READS + ['/designs/rendered', '/designs/diff',
                                '/designs/documents']:
        response = _status(client.simulate_get(BASE + path,
                                               headers=headers), 403)
        assert fault(response).startswith(
            'Access was denied to the following resource: baremetal:site:')
    _status(client.simulate_post(BASE + '/designs/commit', headers=headers,
                                 json={}), 403)
    _status(client.simulate_post(BASE + '/strategies', headers=headers,
                                 json={'document': SPEC_STRATEGY}), 403)


@pytest.mark.parametrize('headers', [SYSTEM_READER, PROJECT_MEMBER,
                                     PROJECT_READER, NOBODY])
def test_readers_and_members_may_not_act(client, site, headers):
    response = _status(_site_action(client, headers), 403)
    assert fault(response) == ('Access was denied to the following '
                               'resource: baremetal:site:action:create')
    uuid = _system_action(client)
    _status(client.simulate_post(BASE + '/actions/%s/abort' % uuid,
                                 headers=headers), 403)


def test_nobody_reads_nothing(client, site):
    for path in READS + SYSTEM_READS:
        _status(client.simulate_get(BASE + path, headers=NOBODY), 403)
    _status(client.simulate_get('/site', headers=NOBODY), 403)


def test_system_member_acts_on_the_whole_site(client, site):
    uuid = _system_action(client)
    _status(client.simulate_get(BASE + '/actions/' + uuid,
                                headers=SYSTEM_READER), 200)
    _status(client.simulate_post(BASE + '/actions/%s/abort' % uuid,
                                 headers=SYSTEM_MEMBER), 202)


@pytest.mark.parametrize('headers', [PROJECT_ADMIN, PROJECT_MANAGER])
def test_a_project_acts_on_its_own_nodes(client, site, headers):
    created = _status(_site_action(client, headers), 201).json
    assert sorted(n['name'] for n in created['nodes']) == P1_NODES
    uuid = created['uuid']
    listed = client.simulate_get(BASE + '/actions', headers=PROJECT_READER)
    assert [a['uuid'] for a in listed.json['actions']] == [uuid]
    _status(client.simulate_get(BASE + '/actions/' + uuid,
                                headers=PROJECT_READER), 200)
    _status(client.simulate_post(BASE + '/actions/%s/abort' % uuid,
                                 headers=headers), 202)


def test_other_projects_actions_are_not_found(client, site):
    uuid = _system_action(client)
    listed = client.simulate_get(BASE + '/actions', headers=PROJECT_ADMIN)
    assert listed.json['actions'] == []
    for response in (
            client.simulate_get(BASE + '/actions/' + uuid,
                                headers=PROJECT_READER),
            client.simulate_post(BASE + '/actions/%s/abort' % uuid,
                                 headers=PROJECT_MANAGER)):
        _status(response, 404)
        assert fault(response) == 'Site action %s could not be found.' \
            % uuid
    shown = client.simulate_get(BASE + '/actions/' + uuid,
                                headers=SYSTEM_READER).json
    assert shown['state'] == 'queued'


def test_a_project_cannot_name_other_projects_nodes(client, site):
    document = dict(RACK1, data={'groups': [dict(
        RACK1['data']['groups'][0],
        selectors=[{'node_names': ['ctl01']}])]})
    response = _status(_site_action(client, PROJECT_MANAGER, document), 404)
    assert fault(response) == 'Node ctl01 could not be found.'
    assert client.simulate_get(BASE + '/actions',
                               headers=SYSTEM_READER).json['actions'] == []


def test_a_node_seen_but_not_acted_on_is_403(client, site):
    """With site actions open to members, a lessee's member may see the
    leased node but not change its provision state: 403, nothing
    written."""
    enforcer = policy.get_enforcer()
    enforcer.load_rules()
    enforcer.set_rules(oslo_policy.Rules.from_dict(
        {'baremetal:site:action:create': 'role:member'}),
        overwrite=False, use_conf=False)
    response = _status(_site_action(client, PROJECT_MEMBER), 403)
    assert fault(response) == ('Access was denied to the following '
                               'resource: baremetal:node:set_provision_state')
    assert client.simulate_get(BASE + '/actions',
                               headers=SYSTEM_READER).json['actions'] == []


def test_web_view_is_a_read(client, site):
    _status(client.simulate_get('/site', headers=PROJECT_READER), 200)
    _status(client.simulate_get('/site/static/site.css',
                                headers=NOBODY), 403)


def test_a_design_is_run_only_by_who_sees_every_node(client, site):
    """The example design names every node of the site: p1's manager is
    refused before anything is enrolled or changed."""
    stage_example()
    store.commit()
    before = {n.uuid: n.extra for n in
              nodes_db.select_node_columns(('uuid', 'extra'))}
    response = _status(client.simulate_post(
        BASE + '/actions', headers=PROJECT_MANAGER,
        json={'action': 'deploy_site'}), 403)
    assert fault(response) == ('Access was denied to the following '
                               'resource: baremetal:node:list_all')
    assert {n.uuid: n.extra for n in nodes_db.select_node_columns(
        ('uuid', 'extra'))} == before
    assert site_db.list_actions() == []


def test_design_secrets_computed_into_tasks_are_masked(client, graph_site):
    """A task field computed from a secret shows masked in the report."""
    tasks = computed.TASKS.replace(
        "str($.configs.nova.workers)\"",
        "str($.configs.nova.workers) + ' -p ' + $.configs.db.password\"")
    assert tasks != computed.TASKS
    stage('extra', config('db', {'password': 'hunter2'}), name='db.yaml')
    computed.commit(tasks=tasks)
    row = actions.create_action(graph_site.nodes, 'deploy_site')
    shown = _status(client.simulate_get(BASE + '/actions/' + row.uuid), 200)
    assert 'hunter2' not in shown.text
    values = {(e['owner'], e['field']): e.get('value')
              for e in shown.json['expressions']}
    assert values[('nova', 'parameters.cmd')] == \
        'record nova workers=8 -p ******'
