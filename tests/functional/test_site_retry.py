"""A site action run again retries the node the first one left failed,
on a real all-in-one Ironside.

A design of three fake-hardware nodes in one critical group that needs
all of them; one node's deploy step fails (fake-hardware's
``fake_fail_steps``, in its driver_info as the design enrolled it). The
first ``deploy_site`` ends failed with that node in ``deploy failed``,
and tags the revision ``site-action-failure``. Once the fault is
removed from the node (its driver_info, as an operator would fix a
BMC), the same action on the same revision takes the node back
(undeploy, cleaning) and deploys it, with no hand step between: every
node ends ``active`` and the revision is tagged ``site-action-success``.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process
from tests.utils import wait_for

pytestmark = pytest.mark.functional

NODES = ['retry-1', 'retry-2', 'retry-3']
FAILING = 'retry-2'
FAULT = {'fake_fail_steps': ['deploy.write_image']}


@pytest.fixture
def ironside(tmp_path):
    yield from ironside_process.serve(
        tmp_path / 'ironside',
        options={'site': {'action_check_interval': 0.1,
                          'node_poll_interval': 0.05}})


def _documents() -> dict[str, list[dict]]:
    site = [
        {'schema': 'ironside/DeploymentConfiguration/v1',
         'metadata': {'name': 'deployment-configuration'},
         'data': {'physical_provisioner': {
             'deployment_strategy': 'deployment-strategy'}}},
        {'schema': 'ironside/DeploymentStrategy/v1',
         'metadata': {'name': 'deployment-strategy'},
         'data': {'groups': [
             {'name': 'retry-nodes', 'critical': True, 'depends_on': [],
              'selectors': [{'node_tags': ['retry']}],
              'success_criteria': {'percent_successful_nodes': 100}}]}}]
    nodes = [{'schema': 'ironside/BaremetalNode/v1',
              'metadata': {'schema': 'metadata/Document/v1', 'name': name},
              'data': {'rack': 'rack01', 'tags': ['retry'],
                       'driver': 'fake-hardware',
                       'resource_class': 'baremetal',
                       'driver_info': FAULT if name == FAILING else {}}}
             for name in NODES]
    return {'site': site, 'nodes': nodes}


def _deploy_site(server) -> dict:
    """Run deploy_site on the committed revision to its end; its report."""
    status, created = server.api('POST', '/site/v1/actions',
                                 {'action': 'deploy_site'})
    assert status == 201, created
    path = '/site/v1/actions/%s' % created['uuid']

    def _finished():
        status, report = server.api('GET', path)
        assert status == 200, report
        return report if report['state'] == 'finished' else None
    return wait_for(_finished, timeout=30, interval=0.1,
                    what='the site action to finish')


def _provision_states(server) -> dict[str, str]:
    states = {}
    for name in NODES:
        status, node = server.api('GET', '/v1/nodes/%s' % name)
        assert status == 200, node
        states[name] = node['provision_state']
    return states


def _tags(server) -> list[tuple[int, str, str]]:
    status, body = server.api('GET', '/site/v1/revisions')
    assert status == 200, body
    return [(r['revision'], t['tag'], t['action'])
            for r in body['revisions'] for t in r['tags']]


def test_a_failed_node_is_retried_by_the_next_action(ironside, tmp_path):
    site = clients.InProcessCli(ironside.endpoint, 'site')
    for collection, documents in _documents().items():
        path = tmp_path / ('%s.yaml' % collection)
        path.write_text(yaml.safe_dump_all(documents))
        site('design', 'create', collection, '--file', str(path))
    site('design', 'commit')

    first = _deploy_site(ironside)
    assert first['result'] == 'failed: critical group retry-nodes failed'
    reasons = {n['name']: n['reason'] for n in first['nodes']
               if n['status'] == 'failure'}
    assert list(reasons) == [FAILING]
    assert 'deploy.write_image' in reasons[FAILING]
    assert _provision_states(ironside) == {
        'retry-1': 'active', 'retry-2': 'deploy failed',
        'retry-3': 'active'}
    assert _tags(ironside) == [(1, 'site-action-failure', first['uuid'])]

    # The fault removed, as an operator fixes a machine: nothing else.
    status, body = ironside.api('PATCH', '/v1/nodes/%s' % FAILING, [
        {'op': 'remove', 'path': '/driver_info/fake_fail_steps'}])
    assert status == 200, body

    second = _deploy_site(ironside)
    assert second['revision'] == first['revision'] == 1
    assert second["result"] == "success", json.dumps(second)[:4000]
    assert {n['name']: n['status'] for n in second['nodes']} == dict.fromkeys(
        NODES, 'success')
    assert set(_provision_states(ironside).values()) == {'active'}
    assert [e['message'] for e in second['log']
            if e['message'].startswith('node ')] == [
        'node retry-2 taken back from state "deploy failed" (Deploy step '
        'deploy.write_image failed: Step deploy.write_image failed: fake '
        'failure requested by driver_info fake_fail_steps): undeploy '
        'requested (it is cleaned, then available)']
    assert _tags(ironside) == [(1, 'site-action-failure', first['uuid']),
                               (1, 'site-action-success', second['uuid'])]
