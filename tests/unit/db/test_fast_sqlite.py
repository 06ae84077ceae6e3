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
import re
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


def _assert_stored_alike(ran: list[bool], fast: models.Node,
                         slow: models.Node) -> None:
    """Both statements ran on the driver (SQLite), and both nodes' rows
    hold the same but for their ids and names (a None document is
    stored as {})."""
    if _sqlite():
        assert ran == [True, True]
    stored = [_without(_stored('nodes', 'id = :id', id=node.id)[0],
                       'id', 'uuid', 'name', 'created_at')
              for node in (fast, slow)]
    assert stored[0] == stored[1]
    assert stored[0]['instance_info'] == '{}'


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
    _assert_stored_alike(ran, fast, slow)
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


def test_a_created_node_stores_what_sqlalchemy_stores(db, monkeypatch):
    """The node's INSERT, its defaults (created_at, the booleans, the
    conductor group) and its traits' INSERT."""
    values = {name: utils.fake_node_values(
        name=name, driver_internal_info={'a': [1, None]}, instance_info=None,
        maintenance=True, provision_updated_at=WHEN, description='é',
        traits=['CUSTOM_B', 'CUSTOM_A']) for name in ('fast', 'slow')}
    start = models.utcnow().replace(microsecond=0)  # MariaDB: seconds
    with driver_runs(monkeypatch) as ran:
        fast = nodes_db.create_node(values['fast'])
    with sqlalchemy_only(monkeypatch):
        slow = nodes_db.create_node(values['slow'])
    _assert_stored_alike(ran, fast, slow)
    for node in (fast, slow):
        assert nodes_db.get_node_traits(node.id) == ['CUSTOM_A', 'CUSTOM_B']
        assert start <= node.created_at <= models.utcnow()
        assert node.maintenance is True
        assert node.conductor_group == ''
        assert node.provision_state == 'enroll'


_TIME = re.compile(r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\Z')


def _close(sent: object, expected: object) -> bool:
    """Equal, but for the times defaults took at each run (a second)."""
    if isinstance(sent, (list, tuple)) and \
            isinstance(expected, (list, tuple)):
        return len(sent) == len(expected) and all(
            _close(a, b) for a, b in zip(sent, expected, strict=True))
    if isinstance(sent, str) and isinstance(expected, str) and \
            _TIME.match(sent) and _TIME.match(expected):
        sent = datetime.datetime.fromisoformat(sent)
        expected = datetime.datetime.fromisoformat(expected)
    if isinstance(sent, datetime.datetime) and \
            isinstance(expected, datetime.datetime):
        return abs(sent - expected) < datetime.timedelta(seconds=1)
    return sent == expected


def _kept_statements(node: models.Node) -> dict[str, tuple]:
    """Every statement the product keeps for fast_sqlite, with values of
    every kind its columns take."""
    history = [dict(row, node_id=node.id) for row in _history()]
    return {
        'read a node': (nodes_db._row_statement('uuid'),
                        {'ident': node.uuid}),
        'lock': (nodes_db._reserve_statement('id', True),
                 {'ident': node.id, 'tag': 'h'}),
        'save': (nodes_db._save_statement(
            ('conductor_affinity', 'description', 'driver_internal_info',
             'instance_info', 'maintenance', 'provision_updated_at')),
            {'node_id': node.id, 'v_conductor_affinity': 7,
             'v_description': 'é', 'v_driver_internal_info': {'a': [None]},
             'v_instance_info': None, 'v_maintenance': True,
             'v_provision_updated_at': WHEN}),
        'history': (nodes_db._INSERT_HISTORY, history),
        'release': (nodes_db._RELEASE, {'node_id': node.id, 'tag': 'h'}),
        'release of hosts': (nodes_db._RELEASE_HOSTS,
                             {'ids': [node.id, node.id + 1],
                              'hosts': ['h', 'g']}),
        'create': (nodes_db._insert_statement(True), utils.fake_node_values(
            uuid='5b4a1c2e-0d7f-4e59-9a31-8f2c6d0b7e14', name='new',
            extra={'n': 2 ** 40}, maintenance=False,
            provision_updated_at=LATER)),
        'traits': (nodes_db._INSERT_TRAIT,
                   [{'node_id': node.id, 'trait': t}
                    for t in ('CUSTOM_A', 'CUSTOM_B')]),
        'unlink an allocation': (nodes_db._UNLINK_ALLOCATION,
                                 {'allocation': 7}),
        'fleet cap lock': (fleet._LOCK, {'cap': 'deploy'}),
        'fleet count': (fleet._COUNT, {'states': ['active', 'deploying']}),
    }


def _sent_and_answered(statement, params) -> tuple[list, object]:
    """What running ``statement`` sent to the driver (SQL, parameters)
    and gave back, in a transaction rolled back afterwards."""
    sent: list = []

    def _record(conn, cursor, sql, parameters, context, executemany):
        sent.append((sql, parameters))

    engine = db_session.get_engine()
    sa.event.listen(engine, 'before_cursor_execute', _record)
    try:
        with engine.connect() as connection:
            transaction = connection.begin()
            try:
                if statement.exported_columns:
                    row = fast_sqlite.first(connection, statement, params)
                    answer = None if row is None else tuple(row)
                else:
                    answer = fast_sqlite.execute(connection, statement,
                                                 params)
            finally:
                transaction.rollback()
    finally:
        sa.event.remove(engine, 'before_cursor_execute', _record)
    return [entry for entry in sent
            if not entry[0].upper().startswith('BEGIN')], answer


def test_every_kept_statement_runs_on_the_driver_as_sqlalchemy_would(
        db, monkeypatch):
    """The guard of this module against an SQLAlchemy upgrade: each kept
    statement is still compiled for the driver (else the hot path would
    silently fall back to SQLAlchemy's, several times slower), and sends
    the SQL and values, and gives back the row, that SQLAlchemy does."""
    if not _sqlite():
        pytest.skip('the driver path is SQLite\'s only')
    node = nodes_db.create_node(utils.fake_node_values(
        name='kept', driver_internal_info={'a': 1}))
    for name, (statement, params) in _kept_statements(node).items():
        with driver_runs(monkeypatch) as ran:
            fast = _sent_and_answered(statement, params)
        with sqlalchemy_only(monkeypatch):
            slow = _sent_and_answered(statement, params)
        assert ran == [True], name
        assert len(fast[0]) == 1, name
        assert fast[0][0][0] == slow[0][-1][0], name
        assert _close(fast[0][0][1], slow[0][-1][1]), (name, fast, slow)
        assert _close(fast[1], slow[1]), (name, fast[1], slow[1])
