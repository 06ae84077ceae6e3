"""redeploy_server on the example site: two ironside-conductor processes
over RabbitMQ with fake-hardware nodes, a real 3-member etcd cluster
(Debian's etcd-server), and the Kubernetes API emulator (an emulator, not
a real API server: none can run here); kubectl reads the emulator as a
second opinion. This process plays the API, as in test_site_split.py.

The etcd and Kubernetes outcomes are read back from the peers, the
node's from Ironside's database.
"""

from __future__ import annotations

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
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import stage_example

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

HOSTS = ('redeploy-conductor-1', 'redeploy-conductor-2')
CTX = ironside_context.get_admin_context()
# The example's control nodes host the etcd members node-0..node-2.
ETCD_HOSTS = ('ctl01', 'ctl02', 'ctl03')
DISKS = [{'name': '/dev/sda', 'serial': 'os-disk', 'size': 100},
         {'name': '/dev/sdb', 'serial': 'data-1', 'size': 1000},
         {'name': '/dev/sdc', 'serial': 'data-2', 'size': 1000}]
FAST = {'drain-node-timeout': 30, 'drain-node-grace-period': 5,
        'clear-labels-timeout': 30, 'remove-etcd-timeout': 30,
        'etcd-ready-timeout': 30}


class Site:
    def __init__(self, split, base, emulator, etcd, kubeconfig, tmp_path):
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


@pytest.fixture
def site(split, tmp_path):
    with KubernetesEmulator() as emulator, EtcdCluster(3) as etcd:
        kubeconfig = emulator.kubeconfig(tmp_path / 'kubeconfig')
        split.sections['site'] = {'action_check_interval': 0.2,
                                  'node_poll_interval': 0.2}
        split.sections['redeploy'] = {'kubeconfig': kubeconfig,
                                      'kubernetes_poll_interval': 0.05,
                                      'etcd_poll_interval': 0.2}
        for host in HOSTS:
            split.start_conductor(host)
        document = etcd.document(minimum_healthy_members=1)
        members = document['data']['clusters'][0]['members']
        for member, node in zip(members, ETCD_HOSTS, strict=True):
            member['name'] = member['node']
            member['node'] = node
        stage_example()
        stage('etcd', document)
        store.commit()
        server = wsgi.Server(('127.0.0.1', 0), api_app.build_app(
            split.rpc,
            extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))
        server.prepare()
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        try:
            yield Site(split, 'http://127.0.0.1:%d/site/v1'
                       % server.bind_addr[1], emulator, etcd, kubeconfig,
                       tmp_path)
        finally:
            server.stop()
            thread.join(10)


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
