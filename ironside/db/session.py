"""Database engine and transactions, through oslo.db's enginefacade.

Every query module opens its transactions with ``reader()`` or
``writer()``. On SQLite a writer begins with ``BEGIN IMMEDIATE`` so two
threads that read-then-write never deadlock on the lock upgrade, while
readers use a second engine on the same file and never wait for writers
(the database runs in WAL mode). Writers of one process on a SQLite
file also take turns on a lock of the process before they begin (see
``_write_turn``). On PostgreSQL readers also have an engine of their
own, whose connections read in autocommit (see ``_read_in_autocommit``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any
from typing import TypeAlias
from typing import TypeVar
from typing import TypeVarTuple
from typing import Unpack

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from sqlalchemy import orm
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.engine.interfaces import ExecutionContext

from ironside.common import metrics
from ironside.common.conf import CONF

LOG = logging.getLogger(__name__)
T = TypeVar('T')
Ts = TypeVarTuple('Ts')

# A row, and a SELECT, of columns of any number and types.
AnyRow: TypeAlias = sa.Row[Unpack[tuple[Any, ...]]]
AnySelect: TypeAlias = sa.Select[Unpack[tuple[Any, ...]]]

_LOCK = threading.Lock()
_FACADE: enginefacade._TransactionContextManager | None = None
_CONTEXT = threading.local()

SQLITE_BUSY_TIMEOUT_MS = 30000
# Connections kept open to a SQLite file; see _repool.
SQLITE_POOL_SIZE = 5

# Writers of this process to a SQLite file queue here; see _write_turn.
_WRITE_TURN = threading.RLock()
_serialise_writers = False

# Per thread: how many blocks of this module are open (``depth``), and
# the connection of a lean write transaction (``lean``); see
# writer_connection.
_OPEN = threading.local()


def _sqlite_file_url(url: str) -> bool:
    return url.startswith('sqlite') and ':memory:' not in url and \
        url.rstrip('/') not in ('sqlite:', 'sqlite:/')


def _tune_sqlite(engine: sa.Engine, immediate: bool) -> None:
    @sa.event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn: DBAPIConnection,
                    _record: sa.pool.ConnectionPoolEntry) -> None:
        cursor = dbapi_conn.cursor()
        cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA synchronous=NORMAL')
        cursor.execute('PRAGMA busy_timeout=%d' % SQLITE_BUSY_TIMEOUT_MS)
        cursor.close()

    _emit_begin_directly(engine, 'BEGIN IMMEDIATE' if immediate else 'BEGIN')


def _emit_begin_directly(engine: sa.Engine, begin: str) -> None:
    """Begin transactions with one call of the driver.

    oslo.db turns pysqlite's own transaction handling off and sends
    ``BEGIN`` itself as a SQLAlchemy statement when a transaction starts:
    a whole statement execution (cache key, compiled-cache lookup,
    context, events, result), about a third of the cost of a short read.
    The driver's connection takes the same BEGIN directly; oslo.db's
    marker of an open transaction is kept, so its commit and rollback
    listeners work as before, and the statement is still counted.

    Writers begin with ``BEGIN IMMEDIATE``: a deferred transaction that
    reads, then writes after another writer committed, fails at once with
    "database is locked" (the busy timeout does not apply), so writers
    take the write lock when they begin.
    """
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', '') == '_sqlite_emit_begin':
            sa.event.remove(engine, 'begin', listener)

    @sa.event.listens_for(engine, 'begin')
    def _begin(conn: sa.Connection) -> None:
        if 'in_transaction' not in conn.info:
            driver = conn.connection.dbapi_connection
            # A connection that begins a transaction is open.
            assert driver is not None
            driver.execute(begin)
            conn.info['in_transaction'] = True
            metrics.db_statement(begin)


def _repool(engine: sa.Engine) -> None:
    """Give the engine a pool of its own making, without a ping before
    every checkout.

    On a SQLite file oslo.db puts a NullPool: every transaction would
    open the file again (about half a millisecond with WAL, more than
    the query of a node show). A file cannot drop a connection, so it is
    never pinged. At most ``SQLITE_POOL_SIZE`` of them are kept (as
    many may be open at once as on a server): each holds a page cache
    of its own (up to 2 MiB), and the writers take turns anyway.

    On a database server oslo.db sets ``pool_pre_ping``: a ``SELECT 1``
    before every transaction, a round trip of its own beside the
    transaction's BEGIN, statements and COMMIT (about a fifth of a node
    state change's round trips, each ~60 µs of the machine's CPU between
    the client and the server). Here a connection is pinged only when it
    sat in the pool longer than ``_IDLE_PING_SECONDS`` (see
    :func:`_ping_when_idle`). The events registered on the engine travel
    with its pool dispatcher.
    """
    old = engine.pool
    pool_size = CONF.database.max_pool_size or 5
    overflow = CONF.database.max_overflow or 0
    if engine.dialect.name == 'sqlite' and pool_size > SQLITE_POOL_SIZE:
        # As many at once, fewer kept.
        if overflow >= 0:
            overflow += pool_size - SQLITE_POOL_SIZE
        pool_size = SQLITE_POOL_SIZE
    engine.pool = sa.pool.QueuePool(
        old._creator, pool_size=pool_size, max_overflow=overflow,
        timeout=CONF.database.pool_timeout or 30, recycle=old._recycle,
        pre_ping=False, reset_on_return=old._reset_on_return,
        _dispatch=old.dispatch, dialect=old._dialect)
    old.dispose()
    if engine.dialect.name != 'sqlite':
        _ping_when_idle(engine)


# A pooled connection returned this recently is used without a ping.
_IDLE_PING_SECONDS = 1.0


def _ping_when_idle(engine: sa.Engine) -> None:
    """Ping a connection at checkout if it sat idle, as SQLAlchemy's
    "pessimistic disconnect handling" recipe does with the pool's events.

    A new connection counts as just used. One that fails the ping is
    thrown away and the pool connects again (the pool does that for a
    DisconnectionError raised here). One returned within the last
    second is not pinged: if the server went away in that second, its
    first statement fails as a lost connection, which oslo.db reports
    as DBConnectionError and SQLAlchemy answers by discarding every
    older connection of the pool; the writes that must not be lost
    retry it (:func:`through_outage`), and the API answers 503.
    """
    dialect = engine.dialect

    def _used(dbapi_conn: DBAPIConnection | None,
              record: sa.pool.ConnectionPoolEntry) -> None:
        record.info['used_at'] = time.monotonic()

    sa.event.listen(engine.pool, 'connect', _used)
    sa.event.listen(engine.pool, 'checkin', _used)

    @sa.event.listens_for(engine.pool, 'checkout')
    def _checkout(dbapi_conn: DBAPIConnection,
                  record: sa.pool.ConnectionPoolEntry,
                  proxy: sa.pool.PoolProxiedConnection) -> None:
        used_at = record.info.get('used_at', 0.0)
        if time.monotonic() - used_at < _IDLE_PING_SECONDS:
            return
        try:
            dialect.do_ping(dbapi_conn)
        except dialect.loaded_dbapi.Error as exc:
            if dialect.is_disconnect(exc, dbapi_conn, None):
                raise sa.exc.DisconnectionError(str(exc)) from exc
            raise


def _count_statements(engine: sa.Engine) -> None:
    """Count the statements sent (``ironside_db_statements``): the
    database's share of a request or a step, for capacity planning."""
    @sa.event.listens_for(engine, 'before_cursor_execute')
    def _count(conn: sa.Connection, cursor: DBAPICursor, statement: str,
               parameters: Any, context: ExecutionContext | None,
               executemany: bool) -> None:
        metrics.db_statement(statement)


def _read_in_autocommit(engine: sa.Engine) -> None:
    """Readers' statements on PostgreSQL, each in a transaction of its own.

    A read in a transaction is three round trips: the driver's implicit
    ``BEGIN``, the ``SELECT`` and the pool's ``ROLLBACK`` when the
    connection goes back; most of the API's reads are one ``SELECT``.
    Under PostgreSQL's READ COMMITTED, the level oslo.db leaves in place,
    every statement of a transaction takes a snapshot of its own anyway,
    so a reader sees what it saw before. Readers are made read-only as
    well (a write there fails instead of committing alone). A reader
    inside a writer's block is that writer's transaction, as before.
    MariaDB's REPEATABLE READ gives a reader one snapshot for all its
    statements, which autocommit would take away: it keeps its
    transactions.
    """
    @sa.event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn: DBAPIConnection,
                    _record: sa.pool.ConnectionPoolEntry) -> None:
        dbapi_conn.autocommit = True
        cursor = dbapi_conn.cursor()
        cursor.execute('SET default_transaction_read_only = on')
        cursor.close()


def _make_facade() -> enginefacade._TransactionContextManager:
    url = CONF.database.connection
    facade = enginefacade.transaction_context()
    # thread_checkin yields to other greenthreads on every connection
    # return; with real threads it is only a cost.
    kwargs = {'connection': url, 'sqlite_fk': True, 'thread_checkin': False}
    postgresql = sa.engine.make_url(url).get_backend_name() == 'postgresql'
    if _sqlite_file_url(url):
        directory = os.path.dirname(sa.engine.make_url(url).database or '')
        if directory:
            os.makedirs(directory, exist_ok=True)
        # A separate engine for readers; see the module docstring.
        kwargs.update(slave_connection=url, synchronous_reader=False,
                      max_pool_size=None)
    elif postgresql:
        # Readers apart too, to read in autocommit (_read_in_autocommit).
        kwargs.update(slave_connection=url, synchronous_reader=False)
    facade.configure(**kwargs)
    if _sqlite_file_url(url):
        writer_engine = facade.writer.get_engine()
        _tune_sqlite(writer_engine, immediate=True)
        reader_engine = facade.reader.get_engine()
        if reader_engine is not writer_engine:
            _tune_sqlite(reader_engine, immediate=False)
    writer_engine = facade.writer.get_engine()
    # An in-memory SQLite database keeps oslo.db's one static connection.
    own_pool = _sqlite_file_url(url) or writer_engine.dialect.name != 'sqlite'
    if own_pool:
        _repool(writer_engine)
    _count_statements(writer_engine)
    reader_engine = facade.reader.get_engine()
    if reader_engine is not writer_engine:
        if own_pool:
            _repool(reader_engine)
        if postgresql:
            _read_in_autocommit(reader_engine)
        _count_statements(reader_engine)
    return facade


def _facade() -> enginefacade._TransactionContextManager:
    global _FACADE, _serialise_writers
    if _FACADE is None:
        with _LOCK:
            if _FACADE is None:
                _FACADE = _make_facade()
                _serialise_writers = _sqlite_file_url(
                    CONF.database.connection)
    return _FACADE


def get_engine() -> sa.Engine:
    engine: sa.Engine = _facade().writer.get_engine()  # oslo.db: untyped
    return engine


def changed_rows(result: sa.Result[Any]) -> int:
    """How many rows an UPDATE or DELETE matched. Session.execute is
    typed to give a Result; for those statements it is a CursorResult,
    which counts them."""
    if not isinstance(result, sa.CursorResult):
        raise TypeError('not the result of an UPDATE or DELETE: %r'
                        % result)
    return result.rowcount


def dispose() -> None:
    """Forget the engine, e.g. after [database]connection changed."""
    global _FACADE
    with _LOCK:
        if _FACADE is not None:
            _FACADE.dispose_pool()
        _FACADE = None


# What a database that cannot be reached raises: oslo.db's translation,
# and SQLAlchemy's own errors where oslo.db's filters do not reach (a
# PostgreSQL restarting answers "the database system is starting up" on
# a new connection, which arrives as a plain OperationalError).
OUTAGE_ERRORS = (db_exc.DBConnectionError, sa.exc.OperationalError,
                 sa.exc.InterfaceError)


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached right now."""
    if isinstance(exc, OUTAGE_ERRORS):
        return True
    inner = getattr(exc, 'inner_exception', None)
    return isinstance(exc, db_exc.DBError) and \
        isinstance(inner, OUTAGE_ERRORS)


def through_outage(write: Callable[[], T], what: str,
                   timeout: float | None = None) -> T:
    """Run ``write``, retrying while the database cannot be reached.

    For the writes that must not be lost when the database blips (a
    node's outcome, the release of its lock): backoff from 0.1 s doubling
    to 5 s, for up to ``[database] outage_write_timeout`` seconds, then
    the last error is raised.
    """
    deadline = time.monotonic() + (
        CONF.database.outage_write_timeout if timeout is None else timeout)
    delay = 0.1
    attempt = 0
    while True:
        try:
            return write()
        except Exception as exc:
            if not is_outage(exc):
                raise
            attempt += 1
            if time.monotonic() + delay > deadline:
                raise
            if attempt == 1 or attempt % 10 == 0:
                LOG.warning('The database cannot be reached to %s; '
                            'retrying (attempt %d)', what, attempt)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)


@contextlib.contextmanager
def _write_turn() -> Iterator[None]:
    """Wait for this process's other SQLite writers to finish first.

    SQLite has one writer at a time. A writer that finds the file locked
    is put to sleep by SQLite's busy handler (1 ms, then longer, up to
    100 ms per try) and often wakes long after the lock came free, while
    the others pile up behind it: under load most writers waited in
    those sleeps. A lock of the process hands the turn over at once. It
    is re-entrant (a nested writer joins its outer transaction). It is
    held from the block's start, not from its first statement as
    SQLite's lock is: a writer must not wait for other threads' writes
    inside its block, which under SQLite's lock would have failed after
    the busy timeout anyway. A writer that waited as long as that
    timeout goes on without the turn, to SQLite's own waiting. Other
    processes on the same file, and other databases, are not affected.
    """
    if not _serialise_writers:
        yield
        return
    turn = _WRITE_TURN.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
    try:
        yield
    finally:
        if turn:
            _WRITE_TURN.release()


def _lean_connection(what: str) -> sa.Connection | None:
    """The lean write transaction this thread has open, if any; a
    session cannot join it (see writer_connection)."""
    lean = getattr(_OPEN, 'lean', None)
    if lean is not None and what == 'session':
        raise RuntimeError('A session cannot join the transaction of '
                           'db_session.writer_connection() on SQLite; '
                           'open the session first')
    return lean


def _depth() -> int:
    return getattr(_OPEN, 'depth', 0)


@contextlib.contextmanager
def writer() -> Iterator[orm.Session]:
    """A read-write transaction, committed when the block ends."""
    facade = _facade()
    _lean_connection('session')
    _OPEN.depth = _depth() + 1
    try:
        with _write_turn(), facade.writer.using(_CONTEXT) as session:
            session.expire_on_commit = False
            yield session
    finally:
        _OPEN.depth -= 1


@contextlib.contextmanager
def writer_connection() -> Iterator[sa.Connection]:
    """A read-write transaction on a connection, for Core statements.

    What :func:`writer` gives without the ORM session around it (its
    identity map, snapshots and close), which costs more than the short
    statements of a state change. Inside a writer's block it is that
    writer's transaction.

    On a SQLite file, outside any other block of this module, it is the
    engine's own connection and transaction, without oslo.db's
    transaction context: about 35 µs less of a state change's 20 or so
    write transactions. The engine and its listeners are the same (the
    BEGIN IMMEDIATE, oslo.db's markers and error translation), and so
    are the writer's turn, the commit when the block ends and the
    rollback when it raises. A :func:`writer_connection` or
    :func:`reader_connection` inside it joins it, as inside oslo.db's;
    a session (:func:`writer`, :func:`reader`) cannot, and says so
    (nothing opens one there: open the session first, then this).
    """
    facade = _facade()
    lean = _lean_connection('connection')
    if lean is not None:
        yield lean
        return
    if not _serialise_writers or _depth():
        _OPEN.depth = _depth() + 1
        try:
            with _write_turn(), \
                    facade.writer.connection.using(_CONTEXT) as conn:
                yield conn
        finally:
            _OPEN.depth -= 1
        return
    with _write_turn(), facade.writer.get_engine().connect() as conn, \
            conn.begin():
        _OPEN.lean = conn
        try:
            yield conn
        finally:
            _OPEN.lean = None


@contextlib.contextmanager
def reader_connection() -> Iterator[sa.Connection]:
    """A read-only transaction on a connection, for Core statements."""
    lean = _lean_connection('connection')
    if lean is not None:
        yield lean
        return
    _OPEN.depth = _depth() + 1
    try:
        with _facade().reader.connection.using(_CONTEXT) as connection:
            yield connection
    finally:
        _OPEN.depth -= 1


@contextlib.contextmanager
def reader() -> Iterator[orm.Session]:
    """A read-only transaction."""
    _lean_connection('session')
    _OPEN.depth = _depth() + 1
    try:
        with _facade().reader.using(_CONTEXT) as session:
            session.expire_on_commit = False
            yield session
    finally:
        _OPEN.depth -= 1


def duplicate_columns(exc: db_exc.DBDuplicateEntry) -> set[str]:
    """Names of the columns a unique violation is about, on any backend.

    Unique constraints are named ``uniq_<table>0<column>`` (see
    models.NAMING), which oslo.db turns into column names for MariaDB;
    SQLite and PostgreSQL report the columns themselves.
    """
    return {column.rsplit('.', 1)[-1] for column in exc.columns or ()}


def paginate(query: sa.Select[Unpack[Ts]], model: type[Any],
             limit: int | None, marker_id: int | None, sort_key: str,
             sort_dir: str) -> sa.Select[Unpack[Ts]]:
    """Keyset pagination on (sort_key, id), as Ironic's marker semantics.

    ``model`` is a mapped class with an ``id`` column.
    """
    column = getattr(model, sort_key)
    ascending = sort_dir != 'desc'
    order = [column.asc() if ascending else column.desc()]
    if sort_key != 'id':
        order.append(model.id.asc() if ascending else model.id.desc())
    query = query.order_by(*order)
    if marker_id is not None:
        marker_value = sa.select(column).where(model.id == marker_id)\
            .scalar_subquery()
        if sort_key == 'id':
            query = query.where(model.id > marker_id if ascending
                                else model.id < marker_id)
        else:
            after = column > marker_value if ascending \
                else column < marker_value
            tie = model.id > marker_id if ascending else model.id < marker_id
            query = query.where(sa.or_(after, sa.and_(column == marker_value,
                                                       tie)))
    if limit:
        query = query.limit(limit)
    return query
