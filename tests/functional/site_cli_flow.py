"""One site deploy through the real CLIs, for the tests that check it
under each authentication strategy."""

from __future__ import annotations

import pathlib

import yaml

from tests.functional.fixtures import clients
from tests.utils import wait_for


def deploy_a_rack(baremetal: clients.InProcessCli,
                  site: clients.InProcessCli, workdir: pathlib.Path,
                  name: str) -> str:
    """Enroll two fake nodes in rack ``<name>-rack`` with ``openstack
    baremetal``, store a strategy ``name`` of one group of that rack and
    deploy it with ``openstack site``; the finished action's UUID."""
    rack = '%s-rack' % name
    for node in ('%s-1' % name, '%s-2' % name):
        baremetal('node', 'create', '--driver', 'fake-hardware', '--name',
                  node, '--resource-class', 'baremetal', '--extra',
                  'rack=%s' % rack, '-f', 'json')
    path = workdir / ('%s.yaml' % name)
    path.write_text(yaml.safe_dump({
        'schema': 'shipyard/DeploymentStrategy/v1',
        'metadata': {'schema': 'metadata/Document/v1', 'name': name},
        'data': {'groups': [
            {'name': 'all', 'critical': True, 'depends_on': [],
             'selectors': [{'rack_names': [rack]}],
             'success_criteria': {'percent_successful_nodes': 100}}]}}))
    assert site('strategy', 'create', str(path), '-f', 'json')['name'] == \
        name
    selected = site('node', 'filter', '--rack', rack, '-f', 'json')
    assert sorted(n['Name'] for n in selected) == ['%s-1' % name,
                                                   '%s-2' % name]
    created = site('action', 'create', 'deploy_site', '--strategy', name,
                   '-f', 'json')
    uuid = created['uuid']
    assert (created['action'], created['strategy']) == ('deploy_site', name)
    wait_for(lambda: site('action', 'show', uuid, '-f', 'value', '-c',
                          'state') == 'finished\n', timeout=120,
             interval=0.5, what='the action to complete')
    assert site('action', 'show', uuid, '-f', 'json')['result'] == 'success'
    status = site('node', 'status', '-f', 'json')
    assert {n['Provision State'] for n in status} == {'active'}
    return uuid
