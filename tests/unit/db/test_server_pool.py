"""A database server's pooled connections: kept open after a burst, and
pinged only after they sat idle, not before every transaction (oslo.db's
``pool_pre_ping``): a connection that died while idle is still replaced
before use, and one that died within the second fails its first
statement as a lost connection, after which the pool connects again."""

from __future__ import annotations

import threading
from concurrent import futures

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironside.db import session as db_session
from tests import dbs
from tests.utils import wait_for

pytestmark = pytest.mark.skipif(dbs.backend() == 'sqlite',
                                reason='a SQLite file is never pinged')


def _backend_id(connection: sa.Connection) -> int:
    query = 'SELECT pg_backend_pid()' \
        if connection.dialect.name == 'postgresql' \
        else 'SELECT CONNECTION_ID()'
    return connection.execute(sa.text(query)).scalar_one()


def _kill(backend_id: int) -> None:
    """End a connection from the server's side, as a restart does."""
    admin = sa.create_engine(db_session.get_engine().url,
                             isolation_level='AUTOCOMMIT',
                             poolclass=sa.pool.NullPool)
    try:
        with admin.connect() as conn:
            if admin.dialect.name == 'postgresql':
                conn.execute(sa.text('SELECT pg_terminate_backend(:id)'),
                             {'id': backend_id})
                gone = 'SELECT count(*) FROM pg_stat_activity WHERE pid = :id'
            else:
                conn.execute(sa.text('KILL %d' % backend_id))
                gone = ('SELECT count(*) FROM information_schema.processlist '
                        'WHERE id = :id')
            wait_for(lambda: not conn.execute(sa.text(gone),
                                              {'id': backend_id}).scalar(),
                     what='connection %d to end' % backend_id)
    finally:
        admin.dispose()


@pytest.fixture
def one_connection(db):
    """The pools emptied, so that one thread's blocks share one
    connection of each engine."""
    for engine in dbs.engines():
        engine.pool.dispose()


@pytest.fixture
def pings(monkeypatch):
    counted = []
    for dialect in {engine.dialect for engine in dbs.engines()}:
        def _counted(dbapi_connection, ping=dialect.do_ping):
            counted.append(dbapi_connection)
            return ping(dbapi_connection)

        monkeypatch.setattr(dialect, 'do_ping', _counted)
    return counted


def test_a_connection_used_within_the_second_is_not_pinged(one_connection,
                                                            pings):
    for _ in range(5):
        with db_session.writer_connection() as conn:
            conn.execute(sa.text('SELECT 1'))
        with db_session.reader_connection() as conn:
            conn.execute(sa.text('SELECT 1'))
    assert pings == []


def test_an_idle_connection_is_pinged(one_connection, pings, monkeypatch):
    monkeypatch.setattr(db_session, '_IDLE_PING_SECONDS', 0.0)
    for _ in range(3):
        with db_session.reader_connection() as conn:
            conn.execute(sa.text('SELECT 1'))
    assert len(pings) == 3


def test_a_connection_dropped_while_idle_is_replaced_before_use(
        one_connection, monkeypatch):
    with db_session.reader_connection() as conn:
        first = _backend_id(conn)
    _kill(first)
    monkeypatch.setattr(db_session, '_IDLE_PING_SECONDS', 0.0)
    with db_session.reader_connection() as conn:
        assert _backend_id(conn) != first


def test_a_connection_dropped_within_the_second_fails_once(one_connection):
    with db_session.reader_connection() as conn:
        first = _backend_id(conn)
    _kill(first)
    with pytest.raises(db_exc.DBConnectionError):
        with db_session.reader_connection() as conn:
            _backend_id(conn)
    with db_session.reader_connection() as conn:
        assert _backend_id(conn) != first


def test_the_connections_of_a_burst_stay_open_for_the_next(one_connection):
    # Ten at once, twice: the second burst finds the first one's
    # connections in the pool (with oslo.db's pool of 5, five of them
    # were closed on return and five new ones made).
    at_once = 10
    barrier = threading.Barrier(at_once)

    def _hold(_index: int) -> int:
        with db_session.reader_connection() as conn:
            backend = _backend_id(conn)
            barrier.wait(timeout=30)
            return backend

    with futures.ThreadPoolExecutor(at_once) as pool:
        first = set(pool.map(_hold, range(at_once)))
        second = set(pool.map(_hold, range(at_once)))
    assert len(first) == at_once
    assert second == first
