"""The hot statements sent to SQLite's driver store what SQLAlchemy
stores, fail as SQLAlchemy fails, and are counted as SQLAlchemy's are.

Each test runs the same change both ways (the driver, and SQLAlchemy
with the driver path turned off) and compares the rows as the database
holds them. On PostgreSQL and MariaDB both ways are SQLAlchemy's, so the
comparisons hold trivially there; the checks that the driver was used
apply to SQLite only.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironside.common import exception
from ironside.common import metrics
from ironside.db import fast_sqlite
from ironside.db import fleet
from ironside.db import history as history_db
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from tests import utils
from tests.unit.db.test_hot_path import statements

WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901)
LATER = datetime.datetime(2026, 2, 3, 4, 5, 6, 7)


def _sqlite() -> bool:
    return db_session.get_engine().dialect.name == 'sqlite'


@contextlib.contextmanager
def sqlalchemy_only(monkeypatch) -> Iterator[None]:
    """Send every statement through SQLAlchemy, as before this module."""
    with monkeypatch.context() as patch:
        patch.setattr(fast_sqlite, '_driver', lambda connection: None)
        yield


@contextlib.contextmanager
def driver_runs(monkeypatch) -> Iterator[list[bool]]:
    """Whether each statement offered to the module ran on the driver."""
    ran: list[bool] = []
    real = fast_sqlite._run

    def _spy(connection, statement, rows):
        done = real(connection, statement, rows)
        ran.append(isinstance(done, fast_sqlite._Done))
        return done

    with monkeypatch.context() as patch:
        patch.setattr(fast_sqlite, '_run', _spy)
        yield ran


def _stored(table: str, where: str, **params) -> list[dict]:
    """Rows as the driver returns them, without SQLAlchemy's types."""
    with db_session.reader_connection() as connection:
        return [dict(row._mapping) for row in connection.execute(
            sa.text(f'SELECT * FROM {table} WHERE {where} ORDER BY id'),
            params)]


def _change(node: models.Node) -> None:
    """A change of every kind of column: text, None, integer, boolean,
    datetime, documents (nested, unicode, None stored as {})."""
    node.provision_state = 'active'
    node.last_error = None
    node.description = 'état: ok'
    node.conductor_affinity = 7
    node.maintenance = True
    node.console_enabled = True
    node.provision_updated_at = WHEN
    node.inspection_started_at = None
    node.driver_internal_info['steps'] = [{'a': None, 'b': [1, 2.5]}]
    node.properties['ü'] = 'é'
    node.instance_info = None
    node.extra = {'n': 2 ** 40, 't': True}


def _history() -> list[dict]:
    row = history_db.new_row('deployed', 'deploy', conductor='c',
                             user='u')
    return [row | {'created_at': WHEN},
            history_db.new_row('again', 'deploy') | {'created_at': LATER}]


def _without(row: dict, *keys: str) -> dict:
    return {key: value for key, value in row.items() if key not in keys}


def test_a_save_stores_what_sqlalchemy_stores(db, monkeypatch):
    # The save's own updated_at.
    monkeypatch.setattr(models, 'utcnow', lambda: LATER)
    fast, slow = (nodes_db.get_node(nodes_db.create_node(
        utils.fake_node_values(name=name, extra={'x': 1})).id)
        for name in ('fast', 'slow'))
    _change(fast)
    _change(slow)
    with driver_runs(monkeypatch) as ran:
        nodes_db.save_node(fast, _history())
    with sqlalchemy_only(monkeypatch):
        nodes_db.save_node(slow, _history())
    if _sqlite():
        assert ran == [True, True]
    stored = [_without(_stored('nodes', 'id = :id', id=node.id)[0],
                       'id', 'uuid', 'name', 'created_at')
              for node in (fast, slow)]
    assert stored[0] == stored[1]
    assert stored[0]['instance_info'] == '{}'
    # MariaDB's DATETIME keeps whole seconds.
    assert nodes_db.get_node(fast.id).updated_at.replace(microsecond=0) \
        == LATER.replace(microsecond=0)
    records = [[_without(row, 'id', 'uuid', 'node_id') for row in
                _stored('node_history', 'node_id = :id', id=node.id)]
               for node in (fast, slow)]
    assert records[0] == records[1]
    assert len(records[0]) == 2


def test_a_lock_and_its_release_store_what_sqlalchemy_stores(
        db, monkeypatch):
    """The UPDATEs SQLAlchemy adds ``updated_at`` to (its onupdate)."""
    ids = [nodes_db.create_node(utils.fake_node_values(name=name)).id
           for name in ('fast', 'slow')]
    start = models.utcnow().replace(microsecond=0)  # see above
    with driver_runs(monkeypatch) as ran:
        locked = nodes_db.reserve_node('h', ids[0])
        nodes_db.release_node('h', ids[0])
    end = models.utcnow()
    with sqlalchemy_only(monkeypatch):
        nodes_db.reserve_node('h', ids[1])
        nodes_db.release_node('h', ids[1])
    if _sqlite():
        assert ran == [True, True]
    fast, slow = (_stored('nodes', 'id = :id', id=i)[0] for i in ids)
    columns = ('id', 'uuid', 'name', 'created_at', 'updated_at')
    assert _without(fast, *columns) == _without(slow, *columns)
    assert fast['reservation'] is None
    # The time of the change, stored as SQLAlchemy stores it.
    assert type(fast['updated_at']) is type(slow['updated_at'])
    assert len(str(fast['updated_at'])) == len(str(slow['updated_at']))
    loaded = nodes_db.get_node(ids[0])
    assert start <= locked.updated_at <= loaded.updated_at <= end
    # The locked node is the row as a query loads it.
    for column in models.Node.__table__.columns:
        key = sa.inspect(models.Node).get_property_by_column(column).key
        if key not in ('reservation', 'updated_at'):
            assert getattr(locked, key) == getattr(loaded, key), key
    assert locked.reservation == 'h'
    assert locked.maintenance is False


def test_a_unique_violation_is_a_duplicate_entry(db, monkeypatch):
    nodes_db.create_node(utils.fake_node_values(name='taken'))
    node = nodes_db.create_node(utils.fake_node_values(name='free'))
    node.name = 'taken'
    with pytest.raises(exception.DuplicateName):
        nodes_db.save_node(node)
    assert nodes_db.get_node(node.id).name == 'free'

    if not _sqlite():
        return  # PostgreSQL ends a transaction at its first error
    update = nodes_db._save_statement(('name',))
    with statements() as sent, db_session.writer_connection() as conn:
        with pytest.raises(db_exc.DBDuplicateEntry) as caught:
            fast_sqlite.execute(conn, update,
                                {'node_id': node.id, 'v_name': 'taken'})
        # The transaction goes on: the failed statement changed nothing.
        assert fast_sqlite.execute(
            conn, update, {'node_id': node.id, 'v_name': 'other'}) == 1
    assert db_session.duplicate_columns(caught.value) == {'name'}
    # The driver tried first, then SQLAlchemy ran it again; then the
    # second statement.
    assert len(sent) == 3
    assert nodes_db.get_node(node.id).name == 'other'


def test_a_value_the_column_cannot_take_fails_as_in_sqlalchemy(
        db, monkeypatch):
    node = nodes_db.create_node(utils.fake_node_values(extra={'a': 1}))
    update = nodes_db._save_statement(('extra',))
    errors = []
    for way in (contextlib.nullcontext(), sqlalchemy_only(monkeypatch)):
        with way, pytest.raises(db_exc.DBError) as caught, \
                db_session.writer_connection() as conn:
            fast_sqlite.execute(conn, update,
                                {'node_id': node.id, 'v_extra': {object()}})
        errors.append(type(caught.value))
    assert errors[0] is errors[1]
    assert nodes_db.get_node(node.id).extra == {'a': 1}


def _metric(kind: str) -> float:
    return metrics.DB_STATEMENTS.labels(kind)._value.get()


def test_statements_are_counted_once_each(db):
    node = nodes_db.reserve_node('h', nodes_db.create_node(
        utils.fake_node_values()).id)
    node.provision_state = 'manageable'
    before = {kind: _metric(kind) for kind in ('update', 'insert')}
    with statements() as sent:
        nodes_db.save_node(node, _history(), release='h')
    assert [s.split()[0] for s in sent] == ['UPDATE', 'INSERT', 'UPDATE']
    assert sent[0].startswith('UPDATE nodes SET provision_state=')
    assert sent[2].startswith('UPDATE nodes SET reservation=')
    # Two history rows in one executemany: one statement.
    assert _metric('insert') - before['insert'] == 1
    assert _metric('update') - before['update'] == 2


@pytest.mark.parametrize('states', [[], ['active'],
                                    ['active', 'deploying', 'wait call-back']])
def test_a_fleet_count_is_sqlalchemys(db, monkeypatch, states):
    for state in ('active', 'active', 'deploying', 'available'):
        nodes_db.create_node(utils.fake_node_values(provision_state=state))
    with driver_runs(monkeypatch) as ran, db_session.writer() as session:
        fast = fleet.count_nodes(session, states)
    with sqlalchemy_only(monkeypatch), db_session.writer() as session:
        slow = fleet.count_nodes(session, states)
    if _sqlite():
        assert ran == [True]
    assert fast == slow == sum(
        state in states for state in ('active', 'active', 'deploying'))
