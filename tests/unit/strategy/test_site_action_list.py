"""``GET /site/v1/actions``: its filters, sorting and paging, done in the
database, and the 400s for values it does not take."""

from __future__ import annotations

import pytest

from ironside.db import design_models
from ironside.db import models
from ironside.db import session as db_session
from ironside.db import site as site_db
from ironside.db import site_models
from tests.unit.strategy.conftest import fault

BASE = '/site/v1/actions'


def _revision(number: int) -> None:
    with db_session.writer() as session:
        session.add(design_models.DesignRevision(
            id=number, created_at=models.utcnow(), documents=0,
            forced=False, warnings=[]))


def _action(name: str, action: str = 'deploy_site',
            revision: int | None = None, result: str | None = None,
            abort: bool = False, running: bool = False) -> str:
    """An action on its own node, left queued, running, finished with
    ``result`` or aborted; its UUID."""
    row = site_db.create_action(action, 's', {}, {}, [(name, name)],
                                revision_id=revision)
    if running or result:
        assert site_db.claim_action(row.id, 'h', None, None)
    if result:
        site_db.save_progress(row.id, 'h', result=result)
    if abort:
        site_db.abort_action(row.uuid)
    return row.uuid


@pytest.fixture
def listed(db):
    """Six actions, oldest first, by the name of their node."""
    _revision(1)
    _revision(2)
    return {
        'ok': _action('ok', revision=1, result='success'),
        'partly': _action('partly', 'update_site', revision=2,
                          result='success with some nodes or groups '
                                 'failed'),
        'broke': _action('broke', revision=2,
                         result='failed: critical group ctl failed'),
        'stopped': _action('stopped', abort=True),
        'going': _action('going', 'update_site', revision=1,
                         running=True),
        'waiting': _action('waiting', 'redeploy_server', revision=2),
    }


def _uuids(client, **params) -> list[str]:
    response = client.simulate_get(BASE, params=params)
    assert response.status_code == 200, response.text
    return [a['uuid'] for a in response.json['actions']]


def _names(listed: dict[str, str], *names: str) -> list[str]:
    return [listed[name] for name in names]


def test_newest_first_by_default(client, listed):
    assert _uuids(client) == _names(listed, 'waiting', 'going', 'stopped',
                                    'broke', 'partly', 'ok')


@pytest.mark.parametrize('state, names', [
    ('queued', ['waiting']),
    ('running', ['going']),
    ('aborted', ['stopped']),
    ('finished', ['broke', 'partly', 'ok']),
    # How a finished action ended: its result says failed, or not.
    ('failed', ['broke']),
    ('success', ['partly', 'ok']),
    ('failed,aborted', ['stopped', 'broke']),
    ('QUEUED,running', ['waiting', 'going']),
])
def test_state_filter(client, listed, state, names):
    assert _uuids(client, state=state) == _names(listed, *names)


def test_action_and_revision_filters(client, listed):
    assert _uuids(client, action='update_site') == _names(
        listed, 'going', 'partly')
    assert _uuids(client, action='redeploy_server,update_site') == \
        _names(listed, 'waiting', 'going', 'partly')
    assert _uuids(client, revision='2') == _names(
        listed, 'waiting', 'broke', 'partly')
    assert _uuids(client, revision='2', action='deploy_site',
                  state='finished') == _names(listed, 'broke')
    assert _uuids(client, revision='7') == []


def test_sort(client, listed):
    assert _uuids(client, sort_dir='asc') == _names(
        listed, 'ok', 'partly', 'broke', 'stopped', 'going', 'waiting')
    # Ties keep their order by creation, in the same direction.
    assert _uuids(client, sort_key='state', sort_dir='asc') == _names(
        listed, 'stopped', 'ok', 'partly', 'broke', 'waiting', 'going')
    assert _uuids(client, sort_key='action') == _names(
        listed, 'going', 'partly', 'waiting', 'stopped', 'broke', 'ok')


def test_pages_with_limit_and_marker(client, listed):
    first = _uuids(client, limit='2')
    assert first == _names(listed, 'waiting', 'going')
    second = _uuids(client, limit='2', marker=first[-1])
    assert second == _names(listed, 'stopped', 'broke')
    assert _uuids(client, limit='2', marker=second[-1]) == _names(
        listed, 'partly', 'ok')
    assert _uuids(client, marker=listed['ok']) == []
    # The marker pages the sorted and filtered list.
    assert _uuids(client, sort_key='action', sort_dir='asc',
                  marker=listed['waiting']) == _names(listed, 'partly',
                                                      'going')
    assert _uuids(client, state='finished', marker=listed['broke']) == \
        _names(listed, 'partly', 'ok')


@pytest.mark.parametrize('params, message', [
    ({'state': 'done'},
     'Invalid state "done"; expected one of queued, running, aborting, '
     'finished, aborted, success, failed'),
    ({'state': 'failed,nope'},
     'Invalid state "nope"; expected one of queued, running, aborting, '
     'finished, aborted, success, failed'),
    ({'action': 'destroy_site'},
     'Invalid action "destroy_site"; expected one of deploy_site, '
     'update_site, redeploy_server'),
    ({'sort_key': 'owner'},
     'Invalid sort_key "owner"; expected one of created_at, action, '
     'state'),
    ({'sort_dir': 'up'},
     "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'"),
    ({'revision': 'committed'}, 'Expected an integer for revision: '
                                'committed'),
    ({'revision': '0'}, 'revision must be at least 1, not 0'),
    ({'limit': '0'}, 'limit must be at least 1, not 0'),
    ({'marker': 'not-a-uuid'}, 'Expected UUID for marker: not-a-uuid'),
    ({'marker': '0b6c4b0e-8f3a-4d0e-9b9a-3a4f2e1d7c55'},
     'Marker 0b6c4b0e-8f3a-4d0e-9b9a-3a4f2e1d7c55 could not be found: no '
     'site action has that UUID'),
    ({'owner': 'h'}, 'Unexpected arguments: owner'),
])
def test_bad_values_are_400(client, listed, params, message):
    response = client.simulate_get(BASE, params=params)
    assert response.status_code == 400
    assert fault(response) == message


def test_the_database_query(listed):
    """The filters are clauses of the query, not a sieve after it: a
    page of one holds the one matching action."""
    found = site_db.list_actions(1, states=['failed'])
    assert [a.uuid for a in found] == [listed['broke']]
    assert found[0].state == site_models.FINISHED
