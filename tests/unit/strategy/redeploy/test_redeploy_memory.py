"""redeploy_server on the in-memory node twin (memory_nodes), with the
Kubernetes and etcd twins of the decommission's unit tests: a unit test
runs no etcd and no Kubernetes API (the functional tests do, in
tests/functional/decommission/test_redeploy_server.py)."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.db import designs as designs_db
from ironside.db import session as db_session
from ironside.db import site as site_db
from ironside.db.design_models import SITE_ACTION_FAILURE
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy.decommission import status as st
from ironside.strategy.designs import store
from ironside.strategy.run import peers as site_peers
from ironside.strategy.run import runner
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.decommission.test_sequence import EtcdTwin
from tests.unit.strategy.decommission.test_sequence import KubernetesTwin
from tests.unit.strategy.design_fixtures import config
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import stage_example
from tests.unit.strategy.memory_limit import InFlightLimit

NODE = 'ctl01'
LABEL = 'ucp_control_plane'
# The conductor's kubeconfig, as action create sees it: the twins stand in
# for the cluster it reaches.
KUBECONFIG = '/etc/ironside/kubeconfig-of-the-twins'
KUBERNETES = {'schema': 'ironside/KubernetesCluster/v1',
              'metadata': {'name': 'kubernetes'},
              'data': {'description': 'the twins'}}


class Kubernetes(KubernetesTwin):
    def __init__(self, **kwargs):
        super().__init__(nodes=kwargs.pop('nodes', (NODE, 'ctl02')),
                         labels={LABEL: 'enabled'}, **kwargs)
        self.deleted = []

    def remove_from_cluster(self, node):
        self.calls.append('remove_from_cluster')
        if node not in self.nodes:
            return st.not_found(node)
        if 'remove_from_cluster' in self.fail:
            return st.failure(self.fail['remove_from_cluster'], 'refused')
        extra = set(self.nodes[node]) - {'promenade-decomission'}
        if node not in self.cordoned or extra:
            return st.failure(st.CONFLICT, 'Node %s cannot be deleted: %s'
                              % (node, sorted(extra)))
        del self.nodes[node]
        self.deleted.append(node)
        return st.success('deleted')


class Site:
    """The example site, deployed once by deploy_site; its design
    declares Kubernetes unless ``kubernetes`` is False."""

    def __init__(self, kubernetes=True):
        stage_example()
        if kubernetes:
            stage('kubernetes', KUBERNETES)
        store.commit()
        self.nodes = memory_nodes.MemoryNodes()
        self.kube = Kubernetes()
        self.etcd = EtcdTwin(members=(NODE, 'ctl02', 'ctl03'))
        self.deployed = actions.create_action(self.nodes, 'deploy_site')
        assert self.run(self.deployed)['result'] == 'success'
        self.node = self.nodes.by_name(NODE)
        assert self.node.provision_state == states.ACTIVE
        self.nodes.requests.clear()

    def peers(self, action):
        return site_peers.Peers(self.kube, self.etcd)

    def runner(self, row, host='test-host', **kwargs):
        """The one runner, whatever the action (redeploy_server's steps
        reach the Kubernetes and etcd twins)."""
        return runner.ActionRunner(row.uuid, host, self.nodes,
                                   InFlightLimit(100), peers=self.peers,
                                   **kwargs)

    def run(self, row, host='test-host'):
        assert site_db.claim_action(row.id, host, None, None)
        assert self.runner(row, host).run()
        return actions.action_report(row.uuid)

    def create(self, **parameters):
        parameters.setdefault('node', NODE)
        return actions.create_action(self.nodes, 'redeploy_server',
                                     parameters=parameters)

    def redeploy(self, **parameters):
        return self.run(self.create(**parameters))


@pytest.fixture
def site(db, conf):
    conf.set('redeploy', kubeconfig=KUBECONFIG)
    return Site()


def _steps(report):
    return {s['step']: (s['state'], s['status'] and s['status']['reason'])
            for s in report['redeploy']['steps']}


def _tags():
    return [(t.revision_id, t.tag) for t in designs_db.tags()]


def test_redeploy_a_control_node(site):
    report = site.redeploy()
    assert report['result'] == 'success', report['redeploy']['status']
    status = report['redeploy']['status']
    assert (status['status'], status['reason'], status['code']) == (
        'Success', 'Success', 200)
    assert [m['name'] for m in status['details']['messageList']] == [
        'decommission', 'destroy', 'remove-from-cluster', 'redeploy']
    assert all(state == 'succeeded' for state, _ in _steps(report).values())
    assert site.kube.deleted == [NODE]
    assert site.etcd.removed == [NODE]
    assert site.nodes.requests_for(NODE) == [
        'retire', 'deleted', 'clean', 'power off', 'unretire', 'provide',
        'deploy']
    assert site.node.clean_steps == [[{
        'interface': 'management', 'step': 'wipe_local_storage',
        'args': {'preserve_local_storage': False}}]]
    assert site.node.provision_state == states.ACTIVE
    assert not site.node.retired
    # Only this node: the other nodes were not asked for anything.
    assert {u for u, _ in site.nodes.requests} == {site.node.node.uuid}
    assert report['revision'] == 1
    assert report['parameters']['target-revision'] == \
        'successful-site-action'
    assert report['log'][-1]['message'] == (
        'Decommission: Kubernetes: ironside/KubernetesCluster/v1 '
        'kubernetes; etcd: not applicable, the design names no etcd '
        'clusters')
    assert _tags() == [(1, 'site-action-success'), (1, 'site-action-success')]
    assert [n['name'] for n in report['nodes']] == [NODE]


def test_the_one_runner_runs_its_steps_then_its_groups(site):
    """redeploy_server is a plan like the others: its own steps, then the
    groups every plan ends with, through the runner's step seam."""
    row = site.create()
    assert [step.name for step in site.runner(row).steps] == [
        'decommission', 'destroy', 'remove-from-cluster', 'redeploy',
        'groups']
    assert [step.name for step in site.runner(site.deployed).steps] == [
        'groups']


def test_the_report_as_text(site):
    site.kube.fail['remove_from_cluster'] = 'Conflict'
    lines = report_text.text(site.redeploy()).splitlines()
    assert 'Redeploy of ctl01 (every disk wiped):' in lines
    assert '  destroy              succeeded (Success 200: Node ctl01 ' \
        'destroyed: out of service (retired), every disk wiped, powered ' \
        'off)' in lines
    assert '  redeploy             pending' in lines
    assert 'Status: Conflict 409: redeploy_server of node ctl01 failed at ' \
        'step remove-from-cluster: refused' in lines
    assert '  ERROR remove-from-cluster: Conflict: refused' in lines
    assert lines[-1] == 'Result: failed: redeploy_server at step ' \
        'remove-from-cluster (Conflict 409)'
    assert 'Finish (failed: redeploy_server at step remove-from-cluster ' \
        '(Conflict 409))' in lines


def test_preserve_local_storage_wipes_the_os_disk_only(site):
    report = site.redeploy(**{'preserve-local-storage': 'true'})
    assert report['result'] == 'success'
    assert site.node.clean_steps[0][0]['args'] == {
        'preserve_local_storage': True}


def test_grace_period_longer_than_timeout_is_a_bad_request(site):
    with pytest.raises(exception.DecommissionFailed) as err:
        site.create(**{'drain-node-timeout': '10',
                       'drain-node-grace-period': '20'})
    assert err.value.code == 400
    assert err.value.status.reason == 'BadRequest'
    assert site_db.list_actions() and \
        all(a.action == 'deploy_site' for a in site_db.list_actions())
    assert site.nodes.requests == []


def test_bad_values_and_missing_node_are_refused(site):
    with pytest.raises(exception.InvalidActionParameters) as err:
        site.create(**{'etcd-ready-timeout': 'soon'})
    assert err.value.code == 400
    assert 'etcd-ready-timeout' in str(err.value)
    with pytest.raises(exception.InvalidActionParameters):
        actions.create_action(site.nodes, 'redeploy_server', parameters={})
    with pytest.raises(exception.InvalidActionParameters):
        site.create(tasks='x')


def test_node_unknown_to_ironside_is_not_found(site):
    with pytest.raises(exception.NodeNotFound) as err:
        site.create(node='nowhere')
    assert err.value.code == 404
    assert site.nodes.requests == []


def test_unknown_target_revision_fails_before_anything(site):
    with pytest.raises(exception.DesignVersionNotFound) as err:
        site.create(**{'target-revision': '7'})
    assert err.value.code == 404
    assert site.nodes.requests == []


def test_intermediate_commit_guard(site):
    for _ in range(2):
        stage('c', config('x', designs_db.latest_revision()))
        store.commit()
    with pytest.raises(exception.IntermediateCommits):
        site.create(**{'target-revision': 'committed'})
    report = site.redeploy(**{'target-revision': 'committed',
                              'allow-intermediate-commits': 'true'})
    assert report['result'] == 'success'
    assert report['revision'] == 3
    assert any('intermediate-commit check is skipped' in e['message']
               for e in report['log'])


def test_node_not_in_kubernetes_is_not_found_and_changes_nothing(site):
    site.kube.nodes.pop(NODE)
    report = site.redeploy()
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == ('NotFound', 404)
    assert report['result'].startswith('failed')
    assert _steps(report)['destroy'] == ('pending', None)
    assert site.nodes.requests == [] and site.etcd.calls == []
    assert _tags() == [(1, 'site-action-success')]


@pytest.mark.parametrize('where,reason,step', [
    ('drain', 'DrainNodeError', 'drain-node'),
    ('clear_labels', 'ClearLabelsError', 'clear-labels'),
    ('remove', 'RemoveEtcdError', 'remove-etcd'),
    ('remove', 'EtcdNotAccessible', 'remove-etcd'),
    ('wait', 'RemoveEtcdError', 'etcd-ready')])
def test_a_decommission_step_fails(site, where, reason, step):
    twin = site.etcd if where in ('remove', 'wait') else site.kube
    twin.fail[where] = reason
    report = site.redeploy()
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == (
        'DisassociateStepFailure', 500)
    assert _steps(report)[step] == ('failed', reason)
    assert _steps(report)['decommission'] == (
        'failed', 'DisassociateStepFailure')
    assert site.nodes.requests == []
    assert site.node.provision_state == states.ACTIVE
    assert _tags()[-1] == (1, 'site-action-failure')


def test_kubelet_shutdown_failure_does_not_hold_up(site):
    site.kube.fail['shutdown_kubelet'] = 'ShutdownKubeletError'
    report = site.redeploy()
    assert _steps(report)['shutdown-kubelet'] == (
        'failed', 'ShutdownKubeletError')
    assert _steps(report)['decommission'] == ('succeeded', 'Success')
    # The kubelet label is missing, but the node was drained and cleared.
    assert report['result'] == 'success'


def test_removal_refused_with_conflict(site):
    site.kube.fail['remove_from_cluster'] = 'Conflict'
    report = site.redeploy()
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == ('Conflict', 409)
    assert _steps(report)['remove-from-cluster'] == ('failed', 'Conflict')
    assert _steps(report)['destroy'][0] == 'succeeded'
    assert _steps(report)['redeploy'] == ('pending', None)
    assert site.node.provision_state == states.MANAGEABLE
    assert site.node.retired


def test_removal_error(site):
    site.kube.fail['remove_from_cluster'] = 'DeleteNodeError'
    report = site.redeploy()
    assert report['redeploy']['status']['reason'] == 'DeleteNodeError'
    assert report['redeploy']['status']['code'] == 500


def test_destroy_failure(site):
    site.node.fail_clean_step = 'management.wipe_local_storage'
    report = site.redeploy()
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == ('DestroyNodeError', 500)
    assert 'wipe_local_storage failed' in status['message']
    assert site.kube.deleted == []


def test_power_off_refused(site):
    site.node.refuse_power_off = 1
    report = site.redeploy()
    assert report['redeploy']['status']['reason'] == 'DestroyNodeError'
    assert 'refused power off' in report['redeploy']['status']['message']


def test_redeploy_failure(site):
    site.node.fail_deploy = True
    report = site.redeploy()
    status = report['redeploy']['status']
    assert (status['reason'], status['code']) == ('DeployNodeError', 500)
    assert report['result'].startswith('failed')
    assert _tags()[-1] == (1, 'site-action-failure')


def test_kubernetes_declared_without_kubeconfig_is_refused(site, conf):
    """Refused at create (400) when this Ironside has no kubeconfig;
    nothing is queued, asked of a node or tagged."""
    conf.set('redeploy', kubeconfig=None)
    before = [a.uuid for a in site_db.list_actions()]
    with pytest.raises(exception.DecommissionFailed) as err:
        site.create()
    assert err.value.code == 400
    assert err.value.status.reason == 'BadRequest'
    assert err.value.status.message == (
        'Design revision 1 declares a Kubernetes cluster (ironside/'
        'KubernetesCluster/v1 kubernetes), and this Ironside has no '
        '[redeploy]kubeconfig to reach it: set it on the API and the '
        'conductors')
    assert [a.uuid for a in site_db.list_actions()] == before
    assert site.nodes.requests == []
    assert _tags() == [(1, 'site-action-success')]


def test_a_conductor_without_kubeconfig_changes_nothing(site, conf):
    """Created where a kubeconfig is set, run by a conductor without
    one: the first step fails before anything changed."""
    row = site.create()
    conf.set('redeploy', kubeconfig=None)
    site.peers = site_peers.from_config
    report = site.run(row)
    status = report['redeploy']['status']
    assert status['reason'] == 'DisassociateStepFailure'
    assert 'has no [redeploy]kubeconfig' in status['message']
    assert site.nodes.requests == []
    assert _tags() == [(1, 'site-action-success')]


@pytest.fixture
def bare_site(db):
    """The example site: no Kubernetes, no etcd clusters, no kubeconfig."""
    return Site(kubernetes=False)


def test_a_site_without_kubernetes_or_etcd_is_destroyed_and_deployed(
        bare_site):
    site = bare_site
    site.peers = site_peers.from_config
    report = site.redeploy()
    assert report['result'] == 'success', report['redeploy']['status']
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
    messages = {m['name']: m['message'] for m in
                report['redeploy']['status']['details']['messageList']}
    assert messages['remove-from-cluster'] == (
        'not applicable: the site design declares no Kubernetes cluster '
        '(no ironside/KubernetesCluster/v1 document)')
    assert messages['decommission'] == (
        'Nothing to decommission node ctl01 from: the site design '
        'declares no Kubernetes cluster and names no etcd clusters')
    assert site.nodes.requests_for(NODE) == [
        'retire', 'deleted', 'clean', 'power off', 'unretire', 'provide',
        'deploy']
    assert site.node.provision_state == states.ACTIVE
    assert _tags() == [(1, 'site-action-success'), (1, 'site-action-success')]
    assert report['log'][-1]['message'] == (
        'Decommission: Kubernetes: not applicable, the design declares '
        'none; etcd: not applicable, the design names no etcd clusters')
    text = report_text.text(report).splitlines()
    assert '  drain-node           not applicable (Success 200: not ' \
        'applicable: the site design declares no Kubernetes cluster (no ' \
        'ironside/KubernetesCluster/v1 document))' in text


def test_a_site_with_etcd_and_no_kubernetes(bare_site):
    """The etcd steps run; the Kubernetes ones are not applicable."""
    site = bare_site
    site.peers = lambda action: site_peers.Peers(None, site.etcd)
    report = site.redeploy()
    assert report['result'] == 'success', report['redeploy']['status']
    steps = _steps(report)
    assert steps['remove-etcd'] == steps['etcd-ready'] == (
        'succeeded', 'Success')
    assert steps['decommission'] == ('succeeded', 'Success')
    assert steps['drain-node'] == steps['remove-from-cluster'] == (
        'not applicable', 'Success')
    assert site.etcd.removed == [NODE]
    assert site.kube.calls == []


def test_an_etcd_failure_on_a_site_without_kubernetes(bare_site):
    """The decommission fails at its first step that applies; the node
    is left alone."""
    site = bare_site
    site.etcd.fail['remove'] = 'EtcdNotAccessible'
    site.peers = lambda action: site_peers.Peers(None, site.etcd)
    report = site.redeploy()
    assert report['redeploy']['status']['reason'] == \
        'DisassociateStepFailure'
    assert _steps(report)['remove-etcd'] == ('failed', 'EtcdNotAccessible')
    assert _steps(report)['drain-node'] == ('not applicable', 'Success')
    assert site.nodes.requests == []
    assert _tags()[-1] == (1, 'site-action-failure')


class Interrupt(Exception):
    pass


@pytest.mark.parametrize('step', [
    'remove-etcd', 'etcd-ready', 'destroy', 'remove-from-cluster',
    'redeploy'])
def test_taken_over_at_the_step_it_was_in(site, step, monkeypatch):
    """The first conductor stops as its step starts (its record says
    running); the second carries on from the database."""
    row = site.create()
    assert site_db.claim_action(row.id, 'first', None, None)
    saved = site_db.save_progress
    seen = []

    def save(action_id, host, progress=None, *args, **kwargs):
        saved(action_id, host, progress, *args, **kwargs)
        record = (progress or {}).get('redeploy', {}).get('steps', {}).get(
            step)
        if host == 'first' and record and record['state'] == 'running' \
                and not seen:
            seen.append(step)
            raise Interrupt()

    monkeypatch.setattr(site_db, 'save_progress', save)
    with pytest.raises(Interrupt):
        site.runner(row, 'first').run()
    monkeypatch.setattr(site_db, 'save_progress', saved)
    assert site_db.claim_action(row.id, 'second', 'first',
                                site_db.get_action(row.uuid).heartbeat_at)
    assert site.runner(row, 'second').run()
    report = actions.action_report(row.uuid)
    assert report['result'] == 'success', report['redeploy']['status']
    assert site.etcd.removed == [NODE]
    assert site.kube.deleted == [NODE]
    assert site.nodes.requests_for(NODE) == [
        'retire', 'deleted', 'clean', 'power off', 'unretire', 'provide',
        'deploy']


def test_target_revision_names_choose_the_design(site):
    """Revision 2 was committed and a site action on it failed: the last
    site action's revision is 2 (the last successful one is still 1, the
    default, which test_redeploy_a_control_node deploys)."""
    stage('c', config('x', designs_db.latest_revision()))
    store.commit()
    with db_session.writer() as session:
        designs_db.add_tag(session, 2, SITE_ACTION_FAILURE, 'a-failed-one')
    report = site.redeploy(**{'target-revision': 'last-site-action'})
    assert report['result'] == 'success', report['redeploy']['status']
    assert report['revision'] == 2
    assert report['parameters']['target-revision'] == 'last-site-action'
