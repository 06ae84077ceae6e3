"""The site action service: claiming, running, taking over, releasing."""

from __future__ import annotations

import datetime
import threading

import pytest
from oslo_db import exception as db_exc

from ironside.db import conductors as conductors_db
from ironside.db import models
from ironside.db import session as db_session
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy import service as site_service
from tests.unit.strategy import spec_flows
from tests.unit.strategy.conftest import start_action
from tests.utils import wait_for


def _register(host):
    conductors_db.register_conductor(host, '', ['fake-hardware'], [],
                                     heartbeat_timeout=60)


@pytest.fixture
def service(db):
    services = []

    def _make(nodes, host='conductor-1'):
        _register(host)
        made = site_service.SiteActionService(host, nodes)
        services.append(made)
        made.start()
        return made

    yield _make
    for made in services:
        made.stop()


def _finished(uuid):
    action = site_db.get_action(uuid)
    return action if action.state == site_models.FINISHED else None


def test_queued_action_is_claimed_and_run(spec_strategy, memory_site,
                                          service):
    service(memory_site)
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    action = wait_for(lambda: _finished(row.uuid), what='action to finish')
    assert action.owner == 'conductor-1'
    assert action.result == 'success'
    assert report_text.flow_text(actions.action_report(row.uuid)) == \
        spec_flows.ALL_SUCCESS


def test_action_of_a_dead_conductor_is_taken_over(spec_strategy,
                                                  memory_site, service):
    row = start_action(memory_site, host='conductor-dead')
    service(memory_site)
    action = wait_for(lambda: _finished(row.uuid), what='takeover')
    assert action.owner == 'conductor-1'
    assert action.result == 'success'


def test_action_of_a_live_conductor_is_left_alone(spec_strategy,
                                                  memory_site, service):
    _register('conductor-2')
    row = start_action(memory_site, host='conductor-2')
    running = service(memory_site)
    running.check()
    assert running.running() == []
    assert site_db.get_action(row.uuid).owner == 'conductor-2'


def test_action_that_stopped_heartbeating_is_taken_over(
        spec_strategy, memory_site, service, conf):
    conf.set('conductor', heartbeat_timeout=10)
    _register('conductor-2')
    row = start_action(memory_site, host='conductor-2')
    long_ago = models.utcnow() - datetime.timedelta(seconds=11)
    with db_session.writer() as session:
        session.get(site_models.SiteAction, row.id).heartbeat_at = long_ago
    service(memory_site)
    assert wait_for(lambda: _finished(row.uuid)).owner == 'conductor-1'


def test_stop_releases_unfinished_actions(spec_strategy, memory_site,
                                          service):
    memory_site.by_name('ntp01').frozen = True
    running = service(memory_site)
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    wait_for(lambda: [n for n in site_db.action_nodes(row.id) if n.phase],
             what='a node in flight')
    running.stop()
    action = site_db.get_action(row.uuid)
    assert action.owner is None
    assert action.state == site_models.RUNNING
    assert running.running() == []
    # Another conductor resumes it at once.
    memory_site.by_name('ntp01').frozen = False
    service(memory_site, host='conductor-2')
    assert wait_for(lambda: _finished(row.uuid)).owner == 'conductor-2'
    assert memory_site.requests_for('ntp01') == ['manage', 'provide',
                                                 'deploy']


def test_runner_stops_when_another_conductor_took_the_action(
        spec_strategy, memory_site, service):
    memory_site.by_name('ntp01').frozen = True
    running = service(memory_site)
    # A live conductor: conductor-1's next check must not take the action
    # back as one whose owner is gone.
    _register('conductor-9')
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    wait_for(lambda: running.running(), what='the runner to start')

    def _take():
        action = site_db.get_action(row.uuid)
        return site_db.claim_action(row.id, 'conductor-9', action.owner,
                                    action.heartbeat_at)

    # The runner heartbeats as it writes: try until we saw the latest.
    wait_for(_take, what='conductor-9 to claim the action')
    running.check()
    wait_for(lambda: not running.running(), what='the runner to stop')
    assert site_db.get_action(row.uuid).owner == 'conductor-9'


def test_restarted_conductor_resumes_its_own_actions_at_once(
        spec_strategy, memory_site, service):
    """Same host name, fresh process: no need to wait for a timeout."""
    row = start_action(memory_site, host='conductor-1')
    service(memory_site, host='conductor-1')
    assert wait_for(lambda: _finished(row.uuid)).owner == 'conductor-1'


def test_actions_on_different_nodes_run_side_by_side(db, memory_site,
                                                     service):
    for name, rack in (('rack-1', 'rack01'), ('rack-2', 'rack02')):
        actions.create_strategy({
            'schema': 'ironside/DeploymentStrategy/v1',
            'metadata': {'name': name},
            'data': {'groups': [{'name': 'all', 'critical': True,
                                 'depends_on': [],
                                 'selectors': [{'rack_names': [rack]}]}]}})
    memory_site.by_name('mon01').frozen = True
    running = service(memory_site)
    first = actions.create_action(memory_site, 'deploy_site', 'rack-1')
    second = actions.create_action(memory_site, 'deploy_site', 'rack-2')
    assert wait_for(lambda: _finished(second.uuid)).result == 'success'
    assert site_db.get_action(first.uuid).state == site_models.RUNNING
    # The second runner's thread leaves the list just after it finished.
    wait_for(lambda: running.running() == [first.id],
             what='only the first action to be running')
    memory_site.by_name('mon01').frozen = False
    assert wait_for(lambda: _finished(first.uuid)).result == 'success'


def test_runner_that_cannot_release_its_action_is_forgotten(
        spec_strategy, memory_site, service, monkeypatch):
    """A runner that stops while the database is away cannot release its
    action; the service must still forget it, so that its next check
    claims the action again (it is this host's) and runs it to the end.
    The outage is simulated (release_action raising), as a unit test
    cannot take SQLite away between two statements."""
    memory_site.by_name('ntp01').frozen = True
    running = service(memory_site)
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    wait_for(lambda: running.running(), what='the runner to start')
    released = site_db.release_action
    calls = []

    def _database_away(action_id, host):
        calls.append(action_id)
        if len(calls) == 1:
            raise db_exc.DBConnectionError('database is away')
        released(action_id, host)

    monkeypatch.setattr(site_db, 'release_action', _database_away)
    with running._lock:
        (_thread, stop), = running._runners.values()
    stop.set()
    wait_for(lambda: calls, what='the runner to stop')
    memory_site.by_name('ntp01').frozen = False
    running.check()
    assert wait_for(lambda: _finished(row.uuid)).result == 'success'
    # The runner records the result, then forgets itself.
    wait_for(lambda: running.running() == [], what='the runner to end')


def test_two_checks_at_once_start_one_runner(spec_strategy, memory_site,
                                             monkeypatch):
    """The service's own loop and a caller (a test, an operator's nudge)
    may check at the same moment. Here a second check runs, in another
    thread, just after the first has claimed the action and before it
    has started its runner (the interleaving is forced through
    claim_action, as it cannot be caused on purpose otherwise): it must
    not start a second runner of the same action."""
    _register('conductor-1')
    memory_site.by_name('ntp01').frozen = True
    made = site_service.SiteActionService('conductor-1', memory_site)
    started = []
    start_runner = made._start_runner

    def _counted(action_id, uuid):
        started.append(action_id)
        start_runner(action_id, uuid)

    monkeypatch.setattr(made, '_start_runner', _counted)
    claim = site_db.claim_action
    others = []

    def _claim_then_another_check(*args):
        claimed = claim(*args)
        if not others:
            other = threading.Thread(target=made.check)
            others.append(other)
            other.start()
            other.join(2)
        return claimed

    monkeypatch.setattr(site_db, 'claim_action', _claim_then_another_check)
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    try:
        made.check()
        others[0].join(10)
        assert started == [row.id]
    finally:
        memory_site.by_name('ntp01').frozen = False
        made.stop()
