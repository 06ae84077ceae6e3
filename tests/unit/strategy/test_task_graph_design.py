"""Task graphs in a site design: checked at commit across the design, run
by a site action on the revision with the inventory's access and keys."""

from __future__ import annotations

import pytest
import yaml
from falcon import testing

from ironside.api import app as api_app
from ironside.api import site as site_api
from ironside.common import exception
from ironside.db import site as site_db
from ironside.strategy import actions
from ironside.strategy.designs import store
from ironside.strategy.run import runner
from tests.unit.strategy import fuel_examples as fx
from tests.unit.strategy.design_fixtures import configuration
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import strategy
from tests.unit.strategy.graph_site import tasks_of
from tests.unit.strategy.local_tasks import LocalTaskRunner
from tests.unit.strategy.memory_limit import InFlightLimit

KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nsite\n' \
      '-----END OPENSSH PRIVATE KEY-----\n'


def task_graph(text: str, name: str = 'site-tasks') -> dict:
    return {'schema': 'ironside/TaskGraph/v1', 'metadata': {'name': name},
            'data': {'tasks': yaml.safe_load(text)}}


def private_key() -> dict:
    return {'schema': 'deckhand/PrivateKey/v1',
            'metadata': {'name': 'site-key', 'storagePolicy': 'encrypted'},
            'data': KEY}


def inventory() -> list[dict]:
    found = []
    for role, names in fx.USAGE_NODES.items():
        for name in names:
            found.append(node(name, tags=[], roles=[role], os_access={
                'address': '192.0.2.%s' % name.split('-')[1], 'port': 2222,
                'user': 'deploy', 'known_host': 'ssh-ed25519 AAAAhost',
                'identity': 'site-key'}))
    return found


def commit(*documents, **kwargs):
    stage('site', configuration(), strategy(groups=[]), private_key(),
          *documents)
    stage('nodes', *inventory(), name='nodes.yaml')
    return store.commit(**kwargs)


class Recording(LocalTaskRunner):
    """The local runner, noting the targets it was given."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.targets = {}

    def run(self, target, task):
        self.targets[target.node_name] = target
        return super().run(target, task)


def test_a_design_revision_runs_its_task_graphs(graph_site):
    recording = Recording(graph_site.local.base_dir,
                          env=graph_site.local.env, path=graph_site.local.path)
    graph_site.execution.runners.runners[0] = recording
    graph_site.execution.runners._by_type = {
        t: recording for t in recording.types}
    commit(task_graph(fx.USAGE))
    nodes = graph_site.nodes
    row = actions.create_action(nodes, 'deploy_site',
                                parameters={'skip': 'setup_services'})
    assert site_db.claim_action(row.id, 'test-host', None, None)
    assert runner.ActionRunner(row.uuid, 'test-host', nodes,
                               InFlightLimit(100),
                               tasks=graph_site.execution).run()
    report = actions.action_report(row.uuid)
    assert report['revision'] == 1
    assert report['result'] == 'success'
    assert report['strategy'] == 'deployment-strategy'
    assert [g['name'] for g in report['groups']][0] == 'primary-controller'
    assert tasks_of(report, 'node-7') == {'setup_network': 'success'}
    target = recording.targets['node-7']
    assert (target.address, target.port, target.user, target.host_key,
            target.private_key) == ('192.0.2.7', 2222, 'deploy',
                                    'ssh-ed25519 AAAAhost', KEY)
    assert sorted(graph_site.ran()) == ['node-%d' % i for i in range(1, 9)]
    # The design's roles reached the nodes' extra, where selectors read
    # them.
    assert nodes.by_name('node-8').node.roles == frozenset({'compute'})
    assert KEY not in str(report)


def test_commit_checks_task_graphs_across_the_design(db):
    with pytest.raises(exception.InvalidDesign) as err:
        commit(task_graph(fx.PRE_POST, 'pre-post'),
               task_graph(fx.USAGE_GROUPS, 'groups'))
    (issue,) = err.value.issues
    assert (issue.error.document, issue.error.task, issue.error.field,
            issue.error.message) == (
        'pre-post', 'update_hosts', 'requires[0]', 'requires '
        '"upload_nodes_info", which no document of the action defines')
    # The line in the file staged (several documents in one).
    assert issue.error.line > 30 and issue.source == 'input.yaml'
    # Another document of the design settles it.
    stage('more', task_graph(
        '- id: upload_nodes_info\n  type: upload_file\n  role: "*"\n'
        '  stage: post_deployment\n'
        '  parameters: {path: /etc/nodes.yaml, data: nodes}\n', 'upload'))
    assert store.commit().revision == 1


def test_tasks_of_a_design_version(db):
    client = testing.TestClient(api_app.build_app(
        None, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))
    commit(task_graph(fx.USAGE))
    listed = client.simulate_get('/site/v1/tasks', params={
        'start_task': 'setup_services'}).json['tasks']
    assert [t['id'] for t in listed] == ['setup_services']
    everything = client.simulate_get('/site/v1/tasks', params={
        'version': '1'}).json['tasks']
    assert [t['id'] for t in everything] == ['setup_network',
                                             'setup_services']
    missing = client.simulate_get('/site/v1/tasks', params={'version': '7'})
    assert missing.status_code == 404
