"""The statements a state change sends: no more than it needs.

Every provision state change takes a node's lock, saves the node and
gives the lock back; these tests pin how many statements each of those
sends, so a change that adds a read to the path shows up here.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from ironside.conductor.step_state import StepState
from ironside.db import history as history_db
from ironside.db import models
from ironside.db import node_rows
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from tests import dbs
from tests import utils


@contextlib.contextmanager
def _listening(record: Callable[..., None]) -> Iterator[None]:
    """``record`` called before each statement sent while the block runs
    (on the writer's and the readers' engines)."""
    engines = dbs.engines()
    for engine in engines:
        sa.event.listen(engine, 'before_cursor_execute', record)
    try:
        yield
    finally:
        for engine in engines:
            sa.event.remove(engine, 'before_cursor_execute', record)


@contextlib.contextmanager
def statements() -> Iterator[list[str]]:
    """The statements sent while the block runs (BEGIN left out)."""
    sent: list[str] = []

    def _record(conn, cursor, statement, parameters, context, executemany):
        if not statement.upper().startswith('BEGIN'):
            sent.append(statement)

    with _listening(_record):
        yield sent


@contextlib.contextmanager
def compiled_statements() -> Iterator[list[tuple[str, Any]]]:
    """Each statement SQLAlchemy sent while the block runs, with the
    compiled statement it came from (one sent by db/fast_sqlite has no
    execution context, and is left out)."""
    sent: list[tuple[str, Any]] = []

    def _record(conn, cursor, statement, parameters, context, executemany):
        if context is not None and context.compiled is not None:
            sent.append((statement, context.compiled))

    with _listening(_record):
        yield sent


def _returning() -> bool:
    return db_session.get_engine().dialect.update_returning


def test_taking_a_lock_is_one_statement_where_update_returns_rows(db):
    node = nodes_db.create_node(utils.fake_node_values())
    with statements() as sent:
        locked = nodes_db.reserve_node('host-a', node.uuid)
    assert locked.reservation == 'host-a'
    assert locked.uuid == node.uuid
    assert locked.driver_info == node.driver_info
    assert len(sent) == (1 if _returning() else 2)
    assert sent[0].startswith('UPDATE nodes')


def test_creating_a_node_is_one_insert_per_table(db):
    """Where INSERT returns rows, the node as stored (its defaults) comes
    back with it; elsewhere a read of it follows."""
    with statements() as sent:
        node = nodes_db.create_node(utils.fake_node_values(
            traits=['CUSTOM_A', 'CUSTOM_B']))
    returning = db_session.get_engine().dialect.insert_returning
    assert [s.split()[0] for s in sent] == \
        ['INSERT'] + ([] if returning else ['SELECT']) + ['INSERT']
    assert sent[0].startswith('INSERT INTO nodes')
    assert sent[-1].startswith('INSERT INTO node_traits')
    assert node.id is not None and node.created_at is not None
    assert node.maintenance is False
    assert sa.inspect(node).detached


def test_a_lock_taken_by_name_or_id_loads_the_node(db):
    node = nodes_db.create_node(utils.fake_node_values(name='by-name'))
    assert nodes_db.reserve_node('h', 'by-name').id == node.id
    nodes_db.release_node('h', node.id)
    assert nodes_db.reserve_node('h', node.id).uuid == node.uuid


def test_save_with_release_is_one_update_per_table(db):
    node = nodes_db.reserve_node(
        'host-a', nodes_db.create_node(utils.fake_node_values()).uuid)
    node.provision_state = 'manageable'
    node.driver_internal_info['step'] = {'nested': [1, 2]}
    record = history_db.new_record('done', 'verifying', conductor='host-a')
    with statements() as sent:
        nodes_db.save_node(node, [record], release='host-a')
    assert [s.split()[0] for s in sent] == ['UPDATE', 'INSERT', 'UPDATE']
    again = nodes_db.get_node(node.uuid)
    assert again.provision_state == 'manageable'
    assert again.driver_internal_info['step'] == {'nested': [1, 2]}
    assert again.reservation is None
    assert [r.event for r in history_db.list_for_node(node.id)] == ['done']


def test_saving_nothing_sends_nothing(db):
    node = nodes_db.create_node(utils.fake_node_values())
    with statements() as sent:
        nodes_db.save_node(node)
    assert sent == []


def assert_holds_the_writers_turn(block) -> None:
    """While a thread is inside ``block()``, the process's writer turn is
    taken; once it has left, the turn is free."""
    inside = threading.Event()
    proceed = threading.Event()

    def writer() -> None:
        with block():
            inside.set()
            proceed.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    assert inside.wait(10)
    try:
        assert not db_session._WRITE_TURN.acquire(blocking=False)
    finally:
        proceed.set()
        thread.join(10)
    assert db_session._WRITE_TURN.acquire(blocking=False)
    db_session._WRITE_TURN.release()


@contextlib.contextmanager
def _nested_writers() -> Iterator[None]:
    with db_session.writer():
        with db_session.writer():
            yield


def test_writers_of_one_process_take_turns(db):
    """A writer holds the process's turn until its transaction ends; a
    nested writer joins its outer transaction without waiting for
    itself."""
    if not db_session._serialise_writers:
        return  # only the writers of a SQLite file queue
    assert_holds_the_writers_turn(_nested_writers)


def _updated_columns(sent: list[str]) -> list[str]:
    """The columns of the nodes UPDATEs sent (``updated_at`` and the
    ``row_version`` every save counts aside)."""
    return sorted(column.strip().split('=')[0] for statement in sent
                  if statement.startswith('UPDATE nodes SET')
                  for column in statement[len('UPDATE nodes SET'):]
                  .split(' WHERE')[0].split(',')
                  if column.strip().split('=')[0] not in ('updated_at',
                                                          'row_version'))


def test_a_document_is_written_only_when_it_changes(db):
    node = nodes_db.create_node(utils.fake_node_values(
        driver_internal_info={'kept': 1}))
    node.driver_internal_info.pop('absent', None)
    with statements() as sent:
        nodes_db.save_node(node)
    assert sent == []
    assert node.driver_internal_info.pop('kept') == 1
    with statements() as sent:
        nodes_db.save_node(node)
    assert _updated_columns(sent) == ['driver_internal_info']
    assert nodes_db.get_node(node.id).driver_internal_info == {}


def test_step_state_written_again_unchanged_sends_nothing(db):
    node = nodes_db.create_node(utils.fake_node_values())
    StepState('deploy', steps=[{'step': 'deploy'}], index=0).save_to(node)
    nodes_db.save_node(node)
    StepState.of(node, 'deploy').save_to(node)
    with statements() as sent:
        nodes_db.save_node(node)
    assert sent == []
    StepState('deploy', steps=[{'step': 'deploy'}], index=1).save_to(node)
    assert node.driver_internal_info['deploy_step_index'] == 1
    with statements() as sent:
        nodes_db.save_node(node)
    assert _updated_columns(sent) == ['driver_internal_info']


def test_a_locked_node_is_the_node_a_query_loads(db):
    node = nodes_db.create_node(utils.fake_node_values(
        name='same', driver_internal_info={'a': [1]}, extra={'b': 2}))
    loaded = nodes_db.get_node(node.uuid)
    locked = nodes_db.reserve_node('host-a', node.uuid)
    for column in models.Node.__table__.columns:
        key = sa.inspect(models.Node).get_property_by_column(column).key
        if key not in ('reservation', 'updated_at'):
            assert getattr(locked, key) == getattr(loaded, key), key
    assert sa.inspect(locked).detached
    assert node_rows.changed_columns(locked) == {}
    locked.driver_internal_info['a'].append(2)
    locked.name = 'renamed'
    nodes_db.save_node(locked, release='host-a')
    again = nodes_db.get_node(node.uuid)
    assert again.driver_internal_info == {'a': [1, 2]}
    assert again.name == 'renamed'
    assert again.reservation is None


def test_a_fresh_process_can_lock_before_any_query():
    """A conductor restarted under load locks a node for its first RPC
    before the ORM loaded anything: the node built from the lock's row
    needs the mappers configured (it failed with "'NoneType' object has
    no attribute 'get'", a 500 for each deploy the restarted conductor
    got first; found by the conductor-killed-and-restarted fault test).
    A new interpreter, since this one has configured them already."""
    script = (
        'from ironside.db import models, node_rows\n'
        'names = [c.name for c in models.Node.__table__.columns]\n'
        'row = [None] * len(names)\n'
        'row[names.index("id")] = 7\n'
        'row[names.index("uuid")] = "u-7"\n'
        'node = node_rows.detached_node(row)\n'
        'print(node.id, node.uuid)\n')
    done = subprocess.run([sys.executable, '-c', script],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ['7', 'u-7']
