"""Readers on PostgreSQL: each statement in a transaction of its own, so
a read is one round trip, not BEGIN, SELECT and ROLLBACK; read-only; and
inside a writer's block, that writer's transaction."""

from __future__ import annotations

import psycopg2.extensions
import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironside.db import session as db_session
from tests import dbs

pytestmark = pytest.mark.skipif(
    dbs.backend() != 'postgresql',
    reason="PostgreSQL's READ COMMITTED readers only")


def _transaction_open(connection: sa.Connection) -> bool:
    dbapi_conn = connection.connection.dbapi_connection
    return dbapi_conn.get_transaction_status() != \
        psycopg2.extensions.TRANSACTION_STATUS_IDLE


def _add_conductor(connection: sa.Connection, hostname: str) -> None:
    connection.execute(sa.text(
        "INSERT INTO conductors (hostname, online, conductor_group,"
        " hardware_types, heartbeat_at, created_at) VALUES "
        "(:hostname, true, '', '[]', now(), now())"), {'hostname': hostname})


def test_a_read_opens_no_transaction(db):
    with db_session.reader_connection() as conn:
        conn.execute(sa.text('SELECT 1'))
        assert not _transaction_open(conn)
    with db_session.reader() as session:
        session.execute(sa.text('SELECT 1'))
        assert not _transaction_open(session.connection())


def test_a_write_in_a_reader_fails_and_writes_nothing(db):
    with pytest.raises(db_exc.DBError, match='read-only transaction'):
        with db_session.reader_connection() as conn:
            _add_conductor(conn, 'reader')
    with db_session.reader_connection() as conn:
        assert conn.execute(sa.text(
            'SELECT count(*) FROM conductors')).scalar_one() == 0


def test_a_reader_inside_a_writer_sees_its_uncommitted_writes(db):
    with db_session.writer_connection() as writer:
        _add_conductor(writer, 'writer')
        with db_session.reader_connection() as conn:
            assert conn.execute(sa.text(
                'SELECT hostname FROM conductors')).scalar_one() == 'writer'
