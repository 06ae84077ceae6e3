"""Aborting a site action: in the database, in the runner (against the
in-memory site), through the API and in the report."""

from __future__ import annotations

import itertools
import threading

import pytest

from ironside.common import exception
from ironside.db import site as site_db
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy.run import runner
from tests.unit.strategy.conftest import SPEC_STRATEGY
from tests.unit.strategy.conftest import fault
from tests.unit.strategy.conftest import start_action
from tests.unit.strategy.memory_limit import InFlightLimit
from tests.unit.strategy.test_runner_rules import StopAfter
from tests.unit.strategy.test_runner_rules import group
from tests.unit.strategy.test_runner_rules import site
from tests.unit.strategy.test_runner_rules import strategy

BASE = '/site/v1'


class AbortAfter:
    """A seam that asks for the action's abort at its ``reads``-th state
    read, and notes which nodes had been asked for anything at the read
    after it (by then the runner has seen the abort)."""

    def __init__(self, nodes, reads: int, uuid: str) -> None:
        self.nodes = nodes
        self.reads = reads
        self.uuid = uuid
        self.started: set[str] | None = None

    def __getattr__(self, name):
        return getattr(self.nodes, name)

    def read_states(self, uuids):
        self.reads -= 1
        if self.reads == 0:
            site_db.abort_action(self.uuid)
        elif self.reads == -1:
            self.started = {uuid for uuid, _verb in self.nodes.requests}
        return self.nodes.read_states(uuids)


def _runner(uuid: str, host: str, nodes, stop=None) -> runner.ActionRunner:
    made = runner.ActionRunner(uuid, host, nodes, InFlightLimit(100),
                               stop)
    # Read the abort at every round, not every action_check_interval.
    made.abort.clock = itertools.count().__next__
    return made


def _waves_site():
    strategy(group('a', strategy={'type': 'parallel', 'amount': 2}),
             group('b', depends_on=['a']))
    return site(a=['a1', 'a2', 'a3', 'a4'], b=['b1', 'b2'])


def test_abort_lets_nodes_in_flight_finish_and_starts_no_more(db):
    nodes = _waves_site()
    row = start_action(nodes, 'test-strategy')
    seam = AbortAfter(nodes, 2, row.uuid)
    assert _runner(row.uuid, 'test-host', seam).run() is True
    assert seam.started, 'no node was in flight when the abort came'
    # No node was asked for anything after the abort was seen, but those
    # already going went on to the end of their phase.
    assert {uuid for uuid, _verb in nodes.requests} == seam.started
    report = actions.action_report(row.uuid)
    assert (report['state'], report['result']) == ('aborted', 'aborted')
    assert report['finished_at'] is not None
    by_name = {n['name']: n for n in report['nodes']}
    flown = {nodes.by_name(n).node.uuid for n in by_name
             if by_name[n]['status'] != 'not started'}
    assert flown == seam.started
    assert all(n['in_flight'] is None for n in report['nodes'])
    assert {by_name[n]['status'] for n in ('b1', 'b2')} == {'not started'}
    groups = {g['name']: g for g in report['groups']}
    assert 'aborted' in {groups['a'][p]['result']
                         for p in ('prepare', 'deploy')}
    assert groups['b']['prepare'] == {'result': 'pending'}
    assert site_db.node_claims(list(seam.started)) == {}
    flow = report_text.flow_text(report)
    assert flow.endswith('Aborted')
    assert 'ABORTED' in flow
    assert report_text.text(report).endswith('Result: aborted')


def test_conductor_taking_over_an_aborting_action_finishes_the_abort(db):
    nodes = _waves_site()
    row = start_action(nodes, 'test-strategy', host='conductor-1')
    stop = threading.Event()
    first = _runner(row.uuid, 'conductor-1', StopAfter(nodes, 2, stop), stop)
    assert first.run() is False
    in_flight = {n.node_uuid for n in site_db.action_nodes(row.id)
                 if n.phase}
    assert in_flight
    assert site_db.abort_action(row.uuid).state == 'aborting'
    # conductor-1 died; conductor-2 claims the action as it saw it, and
    # reads the abort from the database.
    seen = site_db.get_action(row.uuid)
    assert site_db.claim_action(row.id, 'conductor-2', seen.owner,
                                seen.heartbeat_at)
    assert site_db.get_action(row.uuid).state == 'aborting'
    asked = len(nodes.requests)
    assert _runner(row.uuid, 'conductor-2', nodes).run() is True
    assert {uuid for uuid, _verb in nodes.requests[asked:]} <= in_flight
    ended = site_db.get_action(row.uuid)
    assert (ended.state, ended.result) == ('aborted', 'aborted')


def test_queued_action_is_aborted_at_once_and_frees_its_nodes(db):
    nodes = _waves_site()
    row = actions.create_action(nodes, 'deploy_site', 'test-strategy')
    aborted = site_db.abort_action(row.uuid)
    assert (aborted.state, aborted.result) == ('aborted', 'aborted')
    assert aborted.finished_at is not None
    # No conductor picks it up, and its nodes are free for another.
    assert not site_db.claim_action(row.id, 'test-host', None, None)
    assert actions.create_action(nodes, 'deploy_site', 'test-strategy')


def test_an_ended_action_can_not_be_aborted(db):
    nodes = _waves_site()
    row = actions.create_action(nodes, 'deploy_site', 'test-strategy')
    site_db.abort_action(row.uuid)
    with pytest.raises(exception.SiteActionEnded):
        site_db.abort_action(row.uuid)
    with pytest.raises(exception.SiteActionNotFound):
        site_db.abort_action('f00b0000-0000-4000-8000-000000000000')


def test_abort_api(client, enrolled):
    client.simulate_post(BASE + '/strategies',
                         json={'document': SPEC_STRATEGY})
    uuid = client.simulate_post(BASE + '/actions', json={
        'action': 'deploy_site',
        'strategy': 'deployment-strategy'}).json['uuid']
    row = site_db.get_action(uuid)
    assert site_db.claim_action(row.id, 'test-host', None, None)
    response = client.simulate_post(BASE + '/actions/%s/abort' % uuid)
    assert response.status_code == 202
    assert response.json['state'] == 'aborting'
    # Asked twice: still aborting, still accepted.
    again = client.simulate_post(BASE + '/actions/%s/abort' % uuid)
    assert again.status_code == 202
    listed = client.simulate_get(BASE + '/actions').json['actions']
    assert listed[0]['state'] == 'aborting'

    site_db.save_progress(row.id, 'test-host', result='aborted',
                          state='aborted')
    ended = client.simulate_post(BASE + '/actions/%s/abort' % uuid)
    assert ended.status_code == 409
    assert fault(ended) == ('Site action %s has already ended (aborted); '
                            'there is nothing to abort.' % uuid)
    unknown = client.simulate_post(BASE + '/actions/nope/abort')
    assert unknown.status_code == 404
    assert fault(unknown) == 'Site action nope could not be found.'
