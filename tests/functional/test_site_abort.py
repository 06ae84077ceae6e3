"""``openstack site action abort`` against a real all-in-one Ironside.

Six fake-hardware nodes, whose cleaning takes seconds, in two groups:
``first`` (four nodes, in waves of two) and ``second`` after it. The
operator aborts the action while the first wave is being prepared: those
two nodes finish their cleaning, nothing else starts, and the action
ends ``aborted`` — seen by ``openstack site`` with each output format.
Then an action that fails, found by ``site action list --state failed``.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process
from tests.utils import wait_for

pytestmark = pytest.mark.functional

CLEANING_SECONDS = 3
STRATEGY = {
    'schema': 'ironside/DeploymentStrategy/v1',
    'metadata': {'name': 'abort-strategy'},
    'data': {'groups': [
        {'name': 'first', 'critical': True, 'depends_on': [],
         'strategy': {'type': 'parallel', 'amount': 2},
         'selectors': [{'node_tags': ['first']}]},
        {'name': 'second', 'critical': False, 'depends_on': ['first'],
         'selectors': [{'node_tags': ['second']}]},
    ]},
}
FAILING_STRATEGY = {
    'schema': 'ironside/DeploymentStrategy/v1',
    'metadata': {'name': 'failing-strategy'},
    'data': {'groups': [
        {'name': 'only', 'critical': True, 'depends_on': [],
         'selectors': [{'node_tags': ['failing']}],
         'success_criteria': {'percent_successful_nodes': 100}}]},
}
NODES = {'first': ['abort-1', 'abort-2', 'abort-3', 'abort-4'],
         'second': ['abort-5', 'abort-6']}


@pytest.fixture
def ironside(tmp_path):
    yield from ironside_process.serve(
        tmp_path / 'ironside',
        options={'site': {'action_check_interval': 0.2,
                          'node_poll_interval': 0.1}})


def test_abort_while_the_first_wave_is_prepared(ironside, tmp_path):
    for tag, names in NODES.items():
        for name in names:
            status, body = ironside.api('POST', '/v1/nodes', {
                'name': name, 'driver': 'fake-hardware',
                'resource_class': 'baremetal', 'extra': {'tags': [tag]},
                'driver_info': {'fake_step_delays': {
                    'deploy.erase_devices_metadata': CLEANING_SECONDS}}})
            assert status == 201, body
    site = clients.InProcessCli(ironside.endpoint, 'site')
    path = tmp_path / 'abort-strategy.yaml'
    path.write_text(yaml.safe_dump(STRATEGY))
    created = site('strategy', 'create', str(path), '-f', 'json')
    assert (created['name'], created['group_count']) == ('abort-strategy', 2)
    # The action created, as the API answers it.
    created = site('action', 'create', 'deploy_site', '--strategy',
                   'abort-strategy', '-f', 'json')
    uuid = created['uuid']
    # The answer is the action's report read after it was stored; the
    # site action service, which runs in the all-in-one's one process,
    # may have started it by then (seen in CI).
    assert (created['action'], created['strategy']) == (
        'deploy_site', 'abort-strategy')
    assert created['state'] in ('queued', 'running'), created
    assert sorted(n['name'] for n in created['nodes']) == sorted(
        NODES['first'] + NODES['second'])

    def in_flight() -> list[str]:
        report = site('action', 'show', uuid, '-f', 'json')
        return [n['name'] for n in report['nodes'] if n['in_flight']]
    wait_for(in_flight, timeout=60, interval=0.1)

    aborting = site('action', 'abort', uuid, '-f', 'json')
    assert (aborting['uuid'], aborting['state']) == (uuid, 'aborting')
    assert site('action', 'list', '-f', 'value', '-c', 'UUID', '-c',
                'State').split() == [uuid, 'aborting']
    wait_for(lambda: site('action', 'show', uuid, '-f', 'value', '-c',
                          'state') == 'aborted\n', timeout=60, interval=0.2)

    report = site('action', 'show', uuid, '-f', 'json')
    assert report['result'] == 'aborted'
    statuses = {n['name']: n['status'] for n in report['nodes']}
    assert all(n['in_flight'] is None for n in report['nodes'])
    # The first wave finished its cleaning; nothing else ever started.
    first = sorted(statuses[name] for name in NODES['first'])
    assert first == ['not started', 'not started', 'prepared', 'prepared']
    assert [statuses[name] for name in NODES['second']] == \
        ['not started', 'not started']
    for name, status in statuses.items():
        node = ironside.cli('node', 'show', name, '-f', 'json')
        assert node['provision_state'] == (
            'available' if status == 'prepared' else 'enroll'), name
    groups = {g['name']: g for g in report['groups']}
    assert groups['first']['prepare'] == {'result': 'aborted'}
    assert groups['second']['prepare'] == {'result': 'pending'}

    text = site('action', 'show', uuid, '--report')
    assert '| prepare first' in text and '<ABORTED>' in text
    assert text.rstrip().endswith('Result: aborted')
    listed = site('action', 'list', '-f', 'json')
    assert [(a['UUID'], a['State'], a['Result']) for a in listed] == \
        [(uuid, 'aborted', 'aborted')]

    again = site('action', 'abort', uuid, check=False)
    assert 'Site action %s has already ended (aborted); there is nothing ' \
        'to abort. (HTTP 409)' % uuid in again.stderr
    status, body = ironside.api('POST', '/site/v1/actions/nope/abort')
    assert status == 404
    assert json.loads(body['error_message'])['faultstring'] == \
        'Site action nope could not be found.'
    # The nodes are free: another action may take them.
    status, body = ironside.api('POST', '/site/v1/actions', {
        'action': 'deploy_site', 'strategy': 'abort-strategy'})
    assert status == 201, body
    status, body = ironside.api(
        'POST', '/site/v1/actions/%s/abort' % body['uuid'])
    assert status == 202, body
    second = body['uuid']
    # Aborted at once while queued; once the service has started it
    # (in the all-in-one's one process it may have), when its runner
    # stops.
    wait_for(lambda: site('action', 'show', second, '-f', 'value', '-c',
                          'state') == 'aborted\n', timeout=60, interval=0.2)

    # An action that fails (its one critical node fails its cleaning):
    # the list finds it by how it ended, and by its state and action.
    status, body = ironside.api('POST', '/v1/nodes', {
        'name': 'abort-failing', 'driver': 'fake-hardware',
        'resource_class': 'baremetal', 'extra': {'tags': ['failing']},
        'driver_info': {'fake_fail_steps': ['deploy.erase_devices_metadata']}})
    assert status == 201, body
    path.write_text(yaml.safe_dump(FAILING_STRATEGY))
    site('strategy', 'create', str(path), '-f', 'json')
    failing = site('action', 'create', 'deploy_site', '--strategy',
                   'failing-strategy', '-f', 'json')['uuid']
    wait_for(lambda: site('action', 'show', failing, '-f', 'value', '-c',
                          'state') == 'finished\n', timeout=60, interval=0.2)
    failed = site('action', 'list', '--state', 'failed', '-f', 'json')
    assert [(a['UUID'], a['Result']) for a in failed] == [
        (failing, 'failed: critical group only failed')]
    assert site('action', 'list', '--state', 'aborted', '--sort',
                'created_at:asc', '-f', 'value', '-c', 'UUID').split() == \
        [uuid, second]
    assert site('action', 'list', '--state', 'success', '-f', 'json') == []
    assert site('action', 'list', '--limit', '1', '--marker', failing,
                '-f', 'value', '-c', 'UUID').split() == [second]
    refused = site('action', 'list', '--state', 'broken', check=False)
    assert 'Invalid state "broken"; expected one of queued, running, ' \
        'aborting, finished, aborted, success, failed (HTTP 400)' in \
        refused.stderr
