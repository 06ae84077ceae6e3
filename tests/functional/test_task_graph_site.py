"""The spec's task graph on a real Ironside, its tasks over real SSH.

An all-in-one Ironside (fake hardware) deploys the granular deployment
spec's "Usage of graph" example, given as the spec writes it, on eight
nodes whose OS is an OpenSSH server each (``tests/functional/fixtures/
sshd.py``), driven by ``openstack site`` as an operator would. The order
is read from what the tasks wrote on the SSH side.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process
from tests.unit.strategy import fuel_examples as fx
from tests.unit.strategy.graph_site import before
from tests.unit.strategy.graph_site import overlap
from tests.unit.strategy.graph_site import ran
from tests.unit.strategy.graph_site import spans
from tests.utils import wait_for

pytestmark = pytest.mark.functional

SETUP_NETWORK = '''#!/bin/sh
record start setup_network
sleep 0.5
record end setup_network
'''


class Site:
    """Eight sshd nodes and an all-in-one Ironside whose nodes they are."""

    def __init__(self, tmp_path, ssh_nodes, count: int) -> None:
        self.tmp = tmp_path
        self.ssh = ssh_nodes(count)
        self.ssh.install_script('run_setup_network.sh', SETUP_NETWORK)
        self.server = ironside_process.AllInOne(
            tmp_path / 'ironside',
            options={'site': {'node_poll_interval': 0.05},
                     'ssh_tasks': {'connect_timeout': 5}}).start()
        self.site = clients.InProcessCli(self.server.endpoint, 'site')
        self.key = tmp_path / 'id_ed25519'
        self.key.write_text(self.ssh.client_key)
        self.access = tmp_path / 'access.yaml'
        self.access.write_text(yaml.safe_dump({'nodes': {
            node.name: {'address': node.address, 'port': node.port,
                        'user': self.ssh.user,
                        'known_host': node.host_key}
            for node in self.ssh}}))

    def enroll(self, roles: dict[str, list[str]]) -> None:
        for role, names in roles.items():
            for name in names:
                status, body = self.server.api('POST', '/v1/nodes', {
                    'driver': 'fake-hardware', 'name': name,
                    'extra': {'roles': [role]}})
                assert status == 201, body

    def graph(self, name: str, text: str) -> str:
        path = self.tmp / name
        path.write_text(text)
        return str(path)

    def deploy(self, graph: str, *options: str) -> str:
        """``site action create ... --wait``; its output."""
        return self.site('action', 'create', 'deploy_site', '--task-graph',
                         graph, '--access', str(self.access), '--ssh-key',
                         str(self.key), '--wait', '--poll-interval', '0.2',
                         *options)

    def report(self, output: str) -> dict:
        uuid = output.split()[2].rstrip(':')
        return json.loads(self.site('action', 'show', uuid, '--format',
                                    'json'))

    def close(self) -> None:
        code = self.server.stop()
        assert code == 0, self.server.log()


@pytest.fixture
def site(tmp_path, ssh_nodes):
    made = []

    def make(count: int) -> Site:
        made.append(Site(tmp_path, ssh_nodes, count))
        return made[-1]
    yield make
    for one in made:
        one.close()


def test_spec_usage_example_over_ssh(site):
    site = site(8)
    site.enroll(fx.USAGE_NODES)
    usage = site.graph('usage.yaml', fx.USAGE)
    output = site.deploy(usage)
    assert output.rstrip().endswith('Result: success'), output
    done = ran(site.ssh.journal())
    for name in ['node-%d' % i for i in range(1, 9)]:
        assert done[name] == ['start setup_network', 'end setup_network',
                             'puppet /etc/puppet/manifests/controller.pp']
        assert site.ssh[name].puppet_runs()[0]['modulepath'] == \
            '/etc/puppet/modules'
    found = spans(site.ssh.journal())
    controllers = ['node-2', 'node-3', 'node-4', 'node-5']
    assert before(found, ['node-1'], controllers)
    assert overlap(found, 'node-2', 'node-3')
    assert overlap(found, 'node-4', 'node-5')
    assert before(found, ['node-2', 'node-3'], ['node-4', 'node-5'])
    assert before(found, controllers, ['node-6', 'node-7'])
    assert overlap(found, 'node-6', 'node-7')
    assert before(found, ['node-7'] + controllers, ['node-8'])
    assert site.ssh.client_key.splitlines()[1] not in output
    # A partial run on a deployed site: only setup_services, only node-3,
    # over SSH, without deploying anything again.
    site.ssh.journal_path.write_text('')
    output = site.deploy(usage, '--tasks', 'setup_services', '--nodes',
                         'node-3')
    assert output.rstrip().endswith('Result: success'), output
    assert ran(site.ssh.journal()) == {
        'node-3': ['puppet /etc/puppet/manifests/controller.pp']}
    report = site.report(output)
    assert [n['name'] for n in report['nodes']] == ['node-3']
    status, node = site.server.api('GET', '/v1/nodes/node-3')
    assert node['provision_state'] == 'active'


def test_failures_are_the_nodes_own(site):
    """A task exiting non-zero, one timing out and a node whose SSH is
    down each fail their node with a clear reason; the rest goes on."""
    site = site(4)
    site.enroll({'all': ['node-1', 'node-2', 'node-3', 'node-4']})
    site.ssh['node-3'].stop()
    graph = site.graph('failures.yaml', '''\
- id: all
  type: group
- id: work
  type: shell
  groups: [all]
  parameters:
    cmd: |
      case "$NODE_NAME" in
        node-1) echo "no disk for /var"; exit 4 ;;
        node-2) sleep 60 ;;
      esac
      record work
    timeout: 2
- id: after
  type: shell
  groups: [all]
  requires: [work]
  parameters: {cmd: record after}
''')
    uuid = site.site('action', 'create', 'deploy_site', '--task-graph',
                     graph, '--access', str(site.access), '--ssh-key',
                     str(site.key), '-f', 'value', '-c', 'uuid').strip()

    def finished():
        report = json.loads(site.site('action', 'show', uuid, '--format',
                                      'json'))
        return report if report['state'] == 'finished' else None
    report = wait_for(finished, timeout=120, interval=0.5,
                      what='the action to finish')
    reasons = {n['name']: n['reason'] for n in report['nodes']}
    assert reasons['node-1'] == 'task work failed: exited with status 4'
    assert reasons['node-2'] == ('task work timed out: did not finish '
                                 'within 2s; its processes were killed')
    assert reasons['node-3'].startswith('task work could not reach the '
                                        'node: ')
    assert '127.0.0.1:%d' % site.ssh['node-3'].port in reasons['node-3']
    assert reasons['node-4'] is None
    work = {n['name']: n['tasks'][0] for n in report['nodes']}
    assert work['node-1']['output_tail'] == 'no disk for /var'
    assert work['node-1']['exit_status'] == 4
    assert ran(site.ssh.journal()) == {'node-4': ['work', 'after']}
    assert report['result'] == 'success with some nodes or groups failed'
    text = site.site('action', 'show', uuid, '--report')
    assert '  node-1  failure: task work failed: exited with status 4' in text
    assert '| no disk for /var' in text
