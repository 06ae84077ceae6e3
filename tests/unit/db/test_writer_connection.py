"""writer_connection() keeps its transaction's semantics on every
backend, also where SQLite gives it the engine's transaction directly:
commit at the end, rollback on error, the writer's turn held, joining
an outer transaction and being joined."""

from __future__ import annotations

import sqlite3

import pytest
import sqlalchemy as sa

from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from tests import utils
from tests.unit.db.test_hot_path import assert_holds_the_writers_turn

NODES = models.Node.__table__


def _rename(connection: sa.Connection, node_id: int, name: str) -> None:
    connection.execute(sa.update(NODES).where(NODES.c.id == node_id)
                       .values(name=name))


def _name(connection: sa.Connection, node_id: int) -> str:
    return connection.execute(sa.select(NODES.c.name)
                              .where(NODES.c.id == node_id)).scalar_one()


def test_commits_when_the_block_ends_and_rolls_back_when_it_raises(db):
    node_id = nodes_db.create_node(utils.fake_node_values(name='a')).id
    with db_session.writer_connection() as conn:
        _rename(conn, node_id, 'b')
    assert nodes_db.get_node(node_id).name == 'b'
    with pytest.raises(LookupError):
        with db_session.writer_connection() as conn:
            _rename(conn, node_id, 'c')
            raise LookupError()
    assert nodes_db.get_node(node_id).name == 'b'


def test_blocks_inside_join_its_transaction(db):
    node_id = nodes_db.create_node(utils.fake_node_values(name='a')).id
    with pytest.raises(LookupError):
        with db_session.writer_connection() as outer:
            with db_session.writer_connection() as inner:
                _rename(inner, node_id, 'b')
            with db_session.reader_connection() as reading:
                assert _name(reading, node_id) == 'b'
            assert _name(outer, node_id) == 'b'
            raise LookupError()
    assert nodes_db.get_node(node_id).name == 'a'


def test_it_joins_an_outer_writer(db):
    node_id = nodes_db.create_node(utils.fake_node_values(name='a')).id
    with pytest.raises(LookupError):
        with db_session.writer() as session:
            with db_session.writer_connection() as conn:
                _rename(conn, node_id, 'b')
            assert session.scalar(sa.select(models.Node.name).where(
                models.Node.id == node_id)) == 'b'
            raise LookupError()
    assert nodes_db.get_node(node_id).name == 'a'


def test_a_session_inside_it_on_sqlite_says_it_cannot_join(db):
    if not db_session._serialise_writers:
        return  # elsewhere it is oslo.db's transaction, which sessions join
    for session in (db_session.writer, db_session.reader):
        with db_session.writer_connection():
            with pytest.raises(RuntimeError, match='open the session'):
                with session():
                    pass
    # Nothing is left behind: the next blocks open as usual.
    with db_session.writer():
        with db_session.writer_connection():
            pass


def test_it_holds_the_writers_turn(db):
    if not db_session._serialise_writers:
        return  # only the writers of a SQLite file queue
    assert_holds_the_writers_turn(db_session.writer_connection)


def test_it_takes_sqlites_write_lock_when_it_begins(db):
    """BEGIN IMMEDIATE, as oslo.db's transactions here begin: another
    connection cannot write while the block is open."""
    if not db_session._serialise_writers:
        return
    url = sa.engine.make_url(db_session.get_engine().url)
    other = sqlite3.connect(url.database, timeout=0, isolation_level=None)
    try:
        with db_session.writer_connection():
            with pytest.raises(sqlite3.OperationalError, match='locked'):
                other.execute('BEGIN IMMEDIATE')
        other.execute('BEGIN IMMEDIATE')
        other.execute('ROLLBACK')
    finally:
        other.close()
