"""Computed task fields on a real Ironside, the tasks over real SSH.

A site design (five nodes: three controllers, two computes, each an
OpenSSH server standing in for its OS) with the example's task graph
(``examples/site/computed-tasks.yaml``), which computes its conditions
and parameters with ``yaql_exp``, deployed once with
``openstack site action create deploy_site``, then changed and updated
with ``update_site``: what ran where is read from what the tasks wrote
on the SSH side (the journal), not from Ironside.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process
from tests.unit.strategy.graph_site import ran
from tests.unit.strategy.test_computed_fields_actions import TASKS

pytestmark = pytest.mark.functional

CONTROLLERS = ['node-1', 'node-2', 'node-3']
COMPUTES = ['node-4', 'node-5']
ADDED = 'node-6'
CONTROLLER_TASKS = ['cluster', 'database', 'rabbitmq']


class DesignSite:
    def __init__(self, tmp_path, ssh_nodes) -> None:
        self.tmp = tmp_path
        self.ssh = ssh_nodes(6)
        self.server = ironside_process.AllInOne(
            tmp_path / 'ironside',
            options={'site': {'node_poll_interval': 0.05},
                     'ssh_tasks': {'connect_timeout': 5}}).start()
        self.site = clients.InProcessCli(self.server.endpoint, 'site')

    def close(self) -> None:
        self.server.stop()

    def _node(self, name: str) -> dict:
        found = self.ssh[name]
        return {
            'schema': 'ironside/BaremetalNode/v1',
            'metadata': {'schema': 'metadata/Document/v1', 'name': name},
            'data': {
                'roles': ['compute' if name in COMPUTES else 'controller'],
                'driver': 'fake-hardware',
                'os_access': {'address': found.address, 'port': found.port,
                              'user': self.ssh.user,
                              'known_host': found.host_key,
                              'identity': 'site-key'}}}

    def _write(self, name: str, documents: list[dict]) -> str:
        path = self.tmp / name
        path.write_text(yaml.safe_dump_all(documents))
        return str(path)

    def commit(self, nodes: list[str], nova_workers: int = 8,
               tasks: str = TASKS) -> None:
        """Stage the site and its nodes as they should be, and commit."""
        site = [
            {'schema': 'ironside/DeploymentConfiguration/v1',
             'metadata': {'name': 'deployment-configuration'},
             'data': {'physical_provisioner': {
                 'deployment_strategy': 'deployment-strategy'}}},
            {'schema': 'ironside/DeploymentStrategy/v1',
             'metadata': {'name': 'deployment-strategy'},
             'data': {'groups': []}},
            {'schema': 'ironside/TaskGraph/v1',
             'metadata': {'name': 'site-tasks'},
             'data': {'tasks': yaml.safe_load(tasks)}},
            {'schema': 'ironside/Config/v1', 'metadata': {'name': 'nova'},
             'data': {'workers': nova_workers}},
            {'schema': 'deckhand/PrivateKey/v1',
             'metadata': {'name': 'site-key', 'storagePolicy': 'encrypted'},
             'data': self.ssh.client_key}]
        for collection, documents in (
                ('site', site), ('nodes', [self._node(n) for n in nodes])):
            try:
                self.site('design', 'create', collection, '--file',
                          self._write(collection + '.yaml', documents))
            except Exception as exc:
                if 'unchanged' not in str(exc):
                    raise
        self.site('design', 'commit')

    def run(self, action: str) -> dict[str, list[str]]:
        """Run ``action`` to its end; what each node ran meanwhile."""
        before = len(self.ssh.journal())
        output = self.site('action', 'create', action, '--wait',
                           '--poll-interval', '0.2')
        uuid = output.split()[2].rstrip(':')
        status, report = self.server.api('GET',
                                         '/site/v1/actions/%s' % uuid)
        assert status == 200, report
        assert report['result'] == 'success', json.dumps(report)[:3000]
        self.last_report = report
        return {name: sorted(what) for name, what in
                ran(self.ssh.journal()[before:]).items()}


@pytest.fixture
def design_site(tmp_path, ssh_nodes):
    site = DesignSite(tmp_path, ssh_nodes)
    yield site
    site.close()


def test_update_site_runs_only_what_changed(design_site):
    site = design_site
    site.commit(CONTROLLERS + COMPUTES)
    first = site.run('deploy_site')
    assert sorted(first) == sorted(CONTROLLERS + COMPUTES)
    for name in CONTROLLERS:
        assert set(CONTROLLER_TASKS) < set(first[name])
    for name in COMPUTES:
        assert first[name] == ['compute-role', 'nova workers=8']

    # One controller added: the controller tasks on the controllers, the
    # new one joins, nothing on the computes.
    site.commit(CONTROLLERS + COMPUTES + [ADDED])
    added = site.run('update_site')
    assert sorted(added) == sorted(CONTROLLERS + [ADDED])
    for name in CONTROLLERS:
        assert added[name] == CONTROLLER_TASKS
    assert added[ADDED] == sorted(CONTROLLER_TASKS + ['join node-6 of 4'])
    why = {(e['owner'], e['field']): e
           for e in site.last_report['expressions']}
    assert why[('compute-role', 'condition')]['value'] is False

    # Only $.configs.nova changed: only the task reading it runs.
    site.commit(CONTROLLERS + COMPUTES + [ADDED], nova_workers=16)
    reconfigured = site.run('update_site')
    assert reconfigured == {name: ['nova workers=16']
                            for name in CONTROLLERS + COMPUTES + [ADDED]}

    # Nothing changed: no node task at all.
    assert site.run('update_site') == {}


def test_an_expression_error_reads_the_same_at_action_create(design_site):
    """Refused at commit, then failing at action create in the same
    place: both name the task, the field and the same line."""
    site = design_site
    nova = 'changed($.configs.nova)'
    with pytest.raises(clients.CliFailed) as refused:
        site.commit(CONTROLLERS, tasks=TASKS.replace(
            nova, 'nosuch($.configs.nova)'))
    found = re.search(r'file "site.yaml", schema "ironside/TaskGraph/v1", '
                      r'document "site-tasks", task "nova", field '
                      r'"condition": .*\(line (\d+)\)', str(refused.value))
    assert found, str(refused.value)
    site.commit(CONTROLLERS, tasks=TASKS.replace(
        nova, '$.configs.nova.workers / 0 > 1'))
    status, body = site.server.api('POST', '/site/v1/actions',
                                   {'action': 'deploy_site'})
    assert status == 400, body
    fault = json.loads(body['error_message'])['faultstring']
    assert fault.startswith('file "site.yaml", document "site-tasks", task '
                            '"nova", field "condition": expression '
                            '"$.configs.nova.workers / 0 > 1": '), fault
    assert fault.endswith('(line %s)' % found.group(1)), fault
    failed = site.site('action', 'create', 'deploy_site', check=False)
    assert fault in str(failed)
