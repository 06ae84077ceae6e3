"""Changes of an idle node without its lock (nodes_db.merge_node), and
the lock's refusal that names its holder (issue 26).

The races are real: another thread writes the node, on its own
connection, between a merge's read and its write (``change`` is where a
merge computes its columns from what it read, so another writer started
from there comes in between for sure).
"""

from __future__ import annotations

import concurrent.futures
import threading

import pytest
import sqlalchemy as sa

from ironside.common import exception
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from tests import utils


def _node(**kw):
    return nodes_db.create_node(utils.fake_node_values(**kw))


def _read(node_id):
    return lambda: nodes_db.get_node(node_id).as_dict()


def _elsewhere(write) -> None:
    """Run ``write`` on another thread (another connection), to its end."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(write).result(timeout=30)


def _save_extra(node_id: int, key: str, value) -> None:
    node = nodes_db.get_node(node_id)
    node.extra[key] = value
    nodes_db.save_node(node)


def test_every_save_counts_in_the_row_version(db):
    node = _node()
    assert node.row_version == 0
    node.extra['a'] = 1
    nodes_db.save_node(node)
    assert node.row_version == 1
    assert nodes_db.get_node(node.id).row_version == 1
    nodes_db.save_node(node)  # nothing changed: nothing written
    assert nodes_db.get_node(node.id).row_version == 1


def test_a_merge_that_lost_the_race_is_applied_again_to_the_new_row(db):
    node = _node(extra={'a': 1})
    seen = []

    def change(row):
        seen.append(dict(row['extra']))
        if len(seen) == 1:
            _elsewhere(lambda: _save_extra(node.id, 'b', 2))
        return {'extra': dict(row['extra'], c=3)}

    nodes_db.merge_node(node.id, _read(node.id), change)
    assert seen == [{'a': 1}, {'a': 1, 'b': 2}]
    stored = nodes_db.get_node(node.id)
    assert stored.extra == {'a': 1, 'b': 2, 'c': 3}
    assert stored.row_version == 2


def test_a_merge_always_overtaken_is_refused_and_writes_nothing(db):
    node = _node(extra={})
    calls = []

    def change(row):
        calls.append(row['row_version'])
        _elsewhere(lambda: _save_extra(node.id, 'other%d' % len(calls), 1))
        return {'extra': dict(row['extra'], mine=1)}

    with pytest.raises(exception.ChangedMeanwhile, match='extra'):
        nodes_db.merge_node(node.id, _read(node.id), change)
    assert len(calls) == nodes_db.MERGE_ATTEMPTS
    stored = nodes_db.get_node(node.id)
    assert 'mine' not in stored.extra
    assert len(stored.extra) == nodes_db.MERGE_ATTEMPTS


def test_concurrent_merges_in_one_process_take_turns(db):
    """Sixteen threads merge keys of one node: all land, and none had to
    compute its change twice."""
    node = _node(extra={})
    calls = []

    def merge(i: int) -> None:
        def change(row):
            calls.append(i)
            return {'extra': dict(row['extra'], **{'k%d' % i: i})}
        nodes_db.merge_node(node.id, _read(node.id), change)

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(merge, range(16)))
    assert nodes_db.get_node(node.id).extra == {'k%d' % i: i
                                                for i in range(16)}
    assert sorted(calls) == list(range(16))


def test_a_merge_of_a_held_node_names_the_holder(db, conf):
    conf.set('conductor', node_locked_retry_attempts=1,
             node_locked_retry_interval=0.01)
    node = _node(extra={})
    nodes_db.reserve_node('conductor-7', node.id)
    changes = []
    with pytest.raises(exception.NodeLocked, match='conductor-7'):
        nodes_db.merge_node(node.id, _read(node.id),
                            lambda row: changes.append(row) or {'extra': {}})
    assert changes == []


def test_a_node_locked_between_read_and_write_is_not_written(db, conf):
    """The write itself refuses a held node: the lock taken after the
    merge read the node keeps the merge out (then 409 naming it)."""
    conf.set('conductor', node_locked_retry_attempts=0)
    node = _node(extra={})

    def change(row):
        _elsewhere(lambda: nodes_db.reserve_node('conductor-9', node.id))
        return {'extra': {'mine': 1}}

    with pytest.raises(exception.NodeLocked, match='conductor-9'):
        nodes_db.merge_node(node.id, _read(node.id), change)
    assert nodes_db.get_node(node.id).extra == {}


def test_a_lock_released_before_its_holder_is_read_is_taken(db):
    """A conductor's lock refused, then freed before the refusal reads
    who held it: the lock is taken, never "locked by host None".

    The release runs on another connection right after the refused
    UPDATE. On PostgreSQL that is the race; SQLite (one writer at a
    time) and MariaDB (the refused UPDATE keeps the row locked) make the
    release wait for the end of the refused lock's transaction, so there
    the refusal names the holder.
    """
    node = _node()
    nodes_db.reserve_node('conductor-a', node.id)
    engine = db_session.get_engine()
    released = threading.Event()
    refused = []

    def release_after_refusal(conn, cursor, statement, parameters,
                              context, executemany):
        if statement.lstrip().upper().startswith('UPDATE NODES SET '
                                                 'RESERVATION') \
                and cursor.rowcount == 0 and not refused:
            refused.append(statement)
            worker = threading.Thread(
                target=lambda: (nodes_db.release_node('conductor-a',
                                                      node.id),
                                released.set()))
            worker.start()
            worker.join(timeout=3)

    sa.event.listen(engine, 'after_cursor_execute', release_after_refusal)
    try:
        try:
            locked = nodes_db.reserve_node('conductor-b', node.id)
        except exception.NodeLocked as exc:
            assert 'None' not in str(exc)
            assert 'conductor-a' in str(exc)
            assert engine.dialect.name != 'postgresql'
        else:
            assert locked.reservation == 'conductor-b'
    finally:
        sa.event.remove(engine, 'after_cursor_execute',
                        release_after_refusal)
        released.wait(timeout=35)
    assert refused
