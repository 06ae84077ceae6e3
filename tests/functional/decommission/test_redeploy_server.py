"""redeploy_server on the example site: two ironside-conductor processes
over RabbitMQ with fake-hardware nodes, a real 3-member etcd cluster
(Debian's etcd-server), and the Kubernetes API emulator (an emulator, not
a real API server: none can run here); kubectl reads the emulator as a
second opinion. This process plays the API, as in test_site_split.py.

The etcd and Kubernetes outcomes are read back from the peers, the
node's from Ironside's database.

And on a site without Kubernetes or etcd (``bare_site``): one conductor,
fake-hardware nodes whose OS is an OpenSSH server each
(tests/functional/fixtures/sshd.py), a design whose task runs over SSH;
what ran where is read from the SSH side.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading

import pytest
import requests
from cheroot import wsgi

from ironside.api import app as api_app
from ironside.api import site as site_api
from ironside.common import context as ironside_context
from ironside.common import states
from ironside.db import designs as designs_db
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from ironside.db import site as site_db
from ironside.strategy.designs import store
from tests import utils
from tests.functional.fixtures import services
from tests.functional.fixtures.etcd_cluster import EtcdCluster
from tests.functional.fixtures.k8s_emulator import KubernetesEmulator
from tests.unit.strategy.design_fixtures import configuration
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import stage_example
from tests.unit.strategy.design_fixtures import strategy

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

HOSTS = ('redeploy-conductor-1', 'redeploy-conductor-2')
CTX = ironside_context.get_admin_context()
# The example's control nodes host the etcd members node-0..node-2.
ETCD_HOSTS = ('ctl01', 'ctl02', 'ctl03')
DISKS = [{'name': '/dev/sda', 'serial': 'os-disk', 'size': 100},
         {'name': '/dev/sdb', 'serial': 'data-1', 'size': 1000},
         {'name': '/dev/sdc', 'serial': 'data-2', 'size': 1000}]
# The site's design declares Kubernetes.
KUBERNETES = {'schema': 'ironside/KubernetesCluster/v1',
              'metadata': {'name': 'kubernetes'}, 'data': {}}
FAST = {'drain-node-timeout': 30, 'drain-node-grace-period': 5,
        'clear-labels-timeout': 30, 'remove-etcd-timeout': 30,
        'etcd-ready-timeout': 30}


class Site:
    def __init__(self, split, base, emulator=None, etcd=None,
                 kubeconfig=None, tmp_path=None):
        self.split = split
        self.base = base
        self.k8s = emulator
        self.etcd = etcd
        self.kubeconfig = kubeconfig
        self.tmp = tmp_path

    def call(self, method, path, **kwargs):
        return requests.request(method, self.base + path, timeout=30,
                                **kwargs)

    def create(self, action, **parameters):
        response = self.call('POST', '/actions', json={
            'action': action, 'parameters': parameters})
        return response

    def wait_finished(self, action, timeout=180):
        def _finished():
            current = self.call('GET', '/actions/' + action).json()
            return current if current['state'] == 'finished' else None
        return utils.wait_for(_finished, timeout, interval=0.2,
                              what='site action %s to finish' % action)

    def node(self, name):
        return nodes_db.get_node(name)

    def kubectl_nodes(self):
        binary = shutil.which('kubectl')
        services.require(binary is not None, 'kubectl (kubernetes-client)')
        result = subprocess.run(
            [binary, '--kubeconfig', self.kubeconfig, '--cache-dir',
             str(self.tmp / 'kube-cache'), 'get', 'nodes'],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return [line.split()[0] for line in result.stdout.splitlines()[1:]]


@contextlib.contextmanager
def _site_api(split):
    """The site API in this process, over RPC to the conductors; its
    base URL."""
    server = wsgi.Server(('127.0.0.1', 0), api_app.build_app(
        split.rpc, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield 'http://127.0.0.1:%d/site/v1' % server.bind_addr[1]
    finally:
        server.stop()
        thread.join(10)


@pytest.fixture
def site(split, tmp_path, conf):
    with KubernetesEmulator() as emulator, EtcdCluster(3) as etcd:
        kubeconfig = emulator.kubeconfig(tmp_path / 'kubeconfig')
        split.sections['site'] = {'action_check_interval': 0.2,
                                  'node_poll_interval': 0.2}
        split.sections['redeploy'] = {'kubeconfig': kubeconfig,
                                      'kubernetes_poll_interval': 0.05,
                                      'etcd_poll_interval': 0.2}
        # The API (this process) checks it too when an action is created.
        conf.set('redeploy', kubeconfig=kubeconfig)
        for host in HOSTS:
            split.start_conductor(host)
        document = etcd.document(minimum_healthy_members=1)
        members = document['data']['clusters'][0]['members']
        for member, node in zip(members, ETCD_HOSTS, strict=True):
            member['name'] = member['node']
            member['node'] = node
        stage_example()
        stage('etcd', document)
        stage('kubernetes', KUBERNETES)
        store.commit()
        with _site_api(split) as base:
            yield Site(split, base, emulator, etcd, kubeconfig, tmp_path)


def _deploy_once(site):
    response = site.create('deploy_site')
    assert response.status_code == 201, response.text
    assert site.wait_finished(response.json()['uuid'],
                              timeout=300)['result'] == 'success'
    for name in ('ctl01', 'ctl02', 'ctl03', 'ctl04'):
        site.k8s.add_node(name, labels={
            'ucp_control_plane': 'enabled',
            'kubernetes.io/hostname': name})
        node = site.node(name)
        site.split.rpc.update_node(CTX, node.uuid, {
            'driver_info': dict(node.driver_info, fake_disks=DISKS),
            'properties': dict(node.properties,
                               root_device={'serial': 'os-disk'})})
    site.k8s.add_pod('api', 'ctl01')
    site.k8s.add_pod('agent', 'ctl01', owner='DaemonSet')


def _count(node, event):
    return sum(1 for h in history_db.list_for_node(node.id)
               if h.event.startswith(event))


def _steps(report):
    return {s['step']: (s['state'], s['status'] and s['status']['reason'])
            for s in report['redeploy']['steps']}


def test_redeploy_a_control_node_with_a_conductor_killed(site):
    _deploy_once(site)
    site.k8s.add_pod('slow', 'ctl01', shutdown_seconds=6)
    response = site.create('redeploy_server', node='ctl01', **FAST)
    assert response.status_code == 201, response.text
    action = response.json()['uuid']

    def _draining():
        row = site_db.get_action(action)
        record = row.progress['redeploy']['steps'].get('drain-node') or {}
        return record.get('state') == 'running' and any(
            path.endswith('/pods/slow/eviction')
            for _method, path, *_ in site.k8s.requests())
    utils.wait_for(_draining, 60, interval=0.05,
                   what='ctl01 to drain, its slow pod evicted')
    owner = site_db.get_action(action).owner
    site.split.conductors[owner].kill()
    survivor = next(h for h in HOSTS if h != owner)

    report = site.wait_finished(action)
    status = report['redeploy']['status']
    assert (report['result'], status['reason'], status['code']) == (
        'success', 'Success', 200), status
    assert report['owner'] == survivor
    assert 'taken over from %s' % owner in \
        site.split.conductors[survivor].log()
    assert set(_steps(report).values()) == {('succeeded', 'Success')}
    # etcd, read from etcd: two members, both healthy.
    assert site.etcd.member_names(1) == ['node-1', 'node-2']
    assert site.etcd.healthy(1) and site.etcd.healthy(2)
    # Kubernetes, read from the emulator and by kubectl: ctl01 is gone,
    # after being cordoned, drained and unlabelled.
    assert site.k8s.node('ctl01') is None
    assert 'ctl01' not in site.kubectl_nodes()
    assert 'ctl02' in site.kubectl_nodes()
    assert site.k8s.pod_names('ctl01') == ['agent']
    # The node: every disk wiped, once; active again, in service.
    node = site.node('ctl01')
    assert node.driver_internal_info['wiped_disks'] == {
        'disks': DISKS, 'os_disk_only': False}
    assert _count(node, 'Clean step management.wipe_local_storage '
                  'started') == 1
    assert node.provision_state == states.ACTIVE
    assert not node.retired
    assert [(t.revision_id, t.tag) for t in designs_db.tags()] == [
        (1, 'site-action-success'), (1, 'site-action-success')]

    # The OS disk only, on the next control node; its owner killed while
    # the node deploys again (the killed conductor is back to take over).
    site.split.start_conductor(owner)
    ctl02 = site.node('ctl02')
    site.split.rpc.update_node(CTX, ctl02.uuid, {'driver_info': dict(
        ctl02.driver_info, fake_step_delays={'deploy.write_image': 3})})
    response = site.create('redeploy_server', node='ctl02',
                           **dict(FAST, **{'preserve-local-storage': True}))
    assert response.status_code == 201, response.text
    action = response.json()['uuid']

    def _deploying():
        row = site_db.get_action(action)
        record = row.progress['redeploy']['steps'].get('redeploy') or {}
        return record.get('in_service') and \
            site.node('ctl02').provision_state == states.DEPLOYWAIT
    utils.wait_for(_deploying, 60, interval=0.05,
                   what='ctl02 to wait on its deploy')
    owner = site_db.get_action(action).owner
    site.split.conductors[owner].kill()
    report = site.wait_finished(action)
    assert report['result'] == 'success', report['redeploy']['status']
    assert report['owner'] != owner
    node = site.node('ctl02')
    assert node.driver_internal_info['wiped_disks'] == {
        'disks': DISKS[:1], 'os_disk_only': True}
    # Polled, never asked again: one deploy by deploy_site, one now.
    assert _count(node, 'Deploy requested') == 2
    assert node.provision_state == states.ACTIVE
    assert site.etcd.member_names(2) == ['node-2']


def test_failure_paths(site):
    _deploy_once(site)
    # 400 before anything: a grace period longer than the timeout.
    response = site.create('redeploy_server', node='ctl01', **dict(
        FAST, **{'drain-node-grace-period': 60}))
    assert response.status_code == 400, response.text
    assert 'BadRequest' in response.text
    # 404 before anything: a node Ironside does not have; a revision that
    # does not exist.
    response = site.create('redeploy_server', node='ctl99')
    assert response.status_code == 404, response.text
    response = site.create('redeploy_server', node='ctl01',
                           **{'target-revision': 9})
    assert response.status_code == 404, response.text
    # NotFound: Kubernetes does not know ntp01; nothing changes.
    response = site.create('redeploy_server', node='ntp01', **FAST)
    report = site.wait_finished(response.json()['uuid'])
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == ('NotFound', 404)
    assert site.node('ntp01').provision_state == states.ACTIVE
    assert not site.node('ntp01').retired
    # DeleteNodeError: Kubernetes fails the delete (the 409 Conflict of a
    # node not drained is the unit tests' and test_kubernetes.py's).
    site.k8s.fault('DELETE', '/api/v1/nodes/ctl04', status=500)
    response = site.create('redeploy_server', node='ctl04', **FAST)
    report = site.wait_finished(response.json()['uuid'])
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == ('DeleteNodeError', 500)
    assert _steps(report)['destroy'] == ('succeeded', 'Success')
    assert site.node('ctl04').retired
    assert site.k8s.node('ctl04') is not None
    # DrainNodeError: a pod whose eviction a budget blocks, past the
    # drain's timeout.
    site.k8s.add_pod('guarded', 'ctl03', eviction_blocked=True)
    response = site.create('redeploy_server', node='ctl03', **dict(
        FAST, **{'drain-node-timeout': 2, 'drain-node-grace-period': 1}))
    report = site.wait_finished(response.json()['uuid'])
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == (
        'DisassociateStepFailure', 500)
    assert _steps(report)['drain-node'] == ('failed', 'DrainNodeError')
    assert site.node('ctl03').provision_state == states.ACTIVE
    assert site.etcd.member_names(0) == ['node-0', 'node-1', 'node-2']


# A site without Kubernetes or etcd: two servers, one task over SSH.

SERVERS = ('node-1', 'node-2')


def _bare_design(ssh, version: str) -> list[dict]:
    """The site's design: its servers, reached over SSH with the site's
    key, and one task that records the design's version on each."""
    return [
        configuration(), strategy(groups=[]),
        {'schema': 'ironside/TaskGraph/v1', 'metadata': {'name': 'tasks'},
         'data': {'tasks': [
             {'id': 'servers', 'type': 'group', 'role': ['server']},
             {'id': 'configure', 'type': 'shell', 'groups': ['servers'],
              'parameters': {'cmd': 'record configure %s' % version}}]}},
        {'schema': 'deckhand/PrivateKey/v1',
         'metadata': {'name': 'site-key', 'storagePolicy': 'encrypted'},
         'data': ssh.client_key}] + [
        node(name, roles=['server'], tags=[], os_access={
            'address': ssh[name].address, 'port': ssh[name].port,
            'user': ssh.user, 'known_host': ssh[name].host_key,
            'identity': 'site-key'})
        for name in SERVERS]


@pytest.fixture
def bare_site(split, ssh_nodes):
    """Deployed once from revision 1; no kubeconfig anywhere."""
    ssh = ssh_nodes(len(SERVERS))
    split.sections['site'] = {'action_check_interval': 0.2,
                              'node_poll_interval': 0.2}
    split.start_conductor(HOSTS[0])
    stage('site', *_bare_design(ssh, 'v1'))
    store.commit()
    with _site_api(split) as base:
        site = Site(split, base)
        site.ssh = ssh
        response = site.create('deploy_site')
        assert response.status_code == 201, response.text
        report = site.wait_finished(response.json()['uuid'])
        assert report['result'] == 'success', report
        yield site


def _ran(ssh) -> dict[str, list[str]]:
    ran: dict[str, list[str]] = {}
    for entry in ssh.journal():
        ran.setdefault(entry.node, []).append(entry.what)
    return ran


def test_redeploy_on_a_site_without_kubernetes_or_etcd(bare_site):
    site = bare_site
    assert _ran(site.ssh) == {'node-1': ['configure v1'],
                              'node-2': ['configure v1']}
    site.ssh.journal_path.write_text('')
    stage('site', *_bare_design(site.ssh, 'v2'))
    store.commit()
    response = site.create('redeploy_server', node='node-1',
                           **{'target-revision': 'committed'})
    assert response.status_code == 201, response.text
    report = site.wait_finished(response.json()['uuid'])
    assert report['result'] == 'success', report['redeploy']['status']
    assert report['revision'] == 2
    assert _steps(report) == {
        'drain-node': ('not applicable', 'Success'),
        'clear-labels': ('not applicable', 'Success'),
        'remove-etcd': ('not applicable', 'Success'),
        'etcd-ready': ('not applicable', 'Success'),
        'shutdown-kubelet': ('not applicable', 'Success'),
        'decommission': ('not applicable', 'Success'),
        'destroy': ('succeeded', 'Success'),
        'remove-from-cluster': ('not applicable', 'Success'),
        'redeploy': ('succeeded', 'Success')}
    # Destroyed and deployed again; its task ran over SSH from revision 2,
    # on it alone.
    node = site.node('node-1')
    assert _count(node, 'Clean step management.wipe_local_storage '
                  'started') == 1
    assert _count(node, 'Deploy requested') == 2
    assert node.provision_state == states.ACTIVE
    assert not node.retired
    assert _ran(site.ssh) == {'node-1': ['configure v2']}
    assert _count(site.node('node-2'), 'Deploy requested') == 1
    assert [(t.revision_id, t.tag) for t in designs_db.tags()] == [
        (1, 'site-action-success'), (2, 'site-action-success')]

    # Kubernetes declared, and no kubeconfig: 400, and nothing changes.
    stage('kubernetes', KUBERNETES)
    store.commit()
    actions_before = site.call('GET', '/actions').json()['actions']
    history_before = len(history_db.list_for_node(node.id))
    response = site.create('redeploy_server', node='node-1',
                           **{'target-revision': 'committed'})
    assert response.status_code == 400, response.text
    assert 'Design revision 3 declares a Kubernetes cluster (ironside/' \
        'KubernetesCluster/v1 kubernetes), and this Ironside has no ' \
        '[redeploy]kubeconfig to reach it' in response.text
    assert site.call('GET', '/actions').json()['actions'] == actions_before
    assert len(history_db.list_for_node(node.id)) == history_before
    assert site.node('node-1').provision_state == states.ACTIVE
    assert [(t.revision_id, t.tag) for t in designs_db.tags()] == [
        (1, 'site-action-success'), (2, 'site-action-success')]
    assert _ran(site.ssh) == {'node-1': ['configure v2']}
