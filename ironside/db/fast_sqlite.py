"""The conductor's kept statements sent to SQLite's driver directly.

Every state change runs the same few statements (a node's lock, its
save, its history, its release, a fleet cap's lock and count). Through
SQLAlchemy one costs about 40 µs (cache key, compiled-cache lookup,
execution context, result object), against about 2 µs for the same SQL
on the sqlite3 connection: on SQLite most of the conductor's time in the
database was that machinery. Here each kept statement is compiled once
by SQLAlchemy itself (per set of parameter names): its SQL, the order of
its parameters, the bind processors of its columns' types (so DateTime,
Boolean and the JSON columns are stored exactly as SQLAlchemy stores
them), the Python defaults it adds itself (``updated_at``'s
``onupdate``), and for ``RETURNING`` the result processors. Then a call
is a tuple of values and one driver call.

What stays the same:

- statements are still seen by the engine's ``before_cursor_execute``
  and ``after_cursor_execute`` listeners (the statement metrics, tests
  that count statements), dispatched here as SQLAlchemy does, with no
  execution context;
- any error, of the driver or of a value's conversion, falls back to
  running the same statement (for the rows not written yet) through
  SQLAlchemy, so oslo.db translates the error as before
  (DBDuplicateEntry, outages). A failed SQLite statement changed
  nothing, so running it again is what SQLAlchemy would have run. If the
  error ended the transaction (SQLite rolls back on a full disk, an I/O
  error), running it again would commit it alone: the error is raised
  as SQLAlchemy wraps it instead;
- only on SQLite's own driver (pysqlite), and only inside a transaction
  (so the block's commit or rollback covers the statement); anywhere
  else, SQLAlchemy runs it.

It uses SQLAlchemy's public API only: a statement's compiled form (its
SQL, ``positiontup``, ``binds``, ``construct_expanded_state()``, the
columns whose Python defaults it prefetches), each bound parameter's
type's ``dialect_impl(dialect).bind_processor(dialect)`` and each
returned column's ``result_processor``, the dialect's
``use_insertmanyvalues`` flags, and the connection's event dispatch.
tests/unit/db/test_fast_sqlite.py checks that every kept statement runs
on the driver and sends the SQL and values SQLAlchemy sends, and that
both ways store the same: an SQLAlchemy upgrade that changes any of
that fails there.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.selectable import ExecutableReturnsRows

Params = Mapping[str, Any]
# A kept statement: an INSERT, UPDATE or SELECT (all of which may
# return rows).
Statement = ExecutableReturnsRows


class _Plan(NamedTuple):
    """A kept statement compiled for the driver."""

    sql: str
    # Per positional parameter: (name, index in its list for an expanded
    # IN parameter or None, SQLAlchemy's bind processor or None).
    slots: tuple[tuple[str, int | None, Callable[..., Any] | None], ...]
    # Values SQLAlchemy fills in itself: the statement's own literals,
    # and columns' Python defaults (``onupdate``) called at each run
    # (taken from the column once, as SQLAlchemy keeps them).
    fixed: dict[str, Any]
    defaults: tuple[tuple[str, Callable[..., Any]], ...]
    # Result processors of the returned columns (RETURNING, SELECT).
    results: tuple[Callable[..., Any] | None, ...] | None


# (statement, dialect, names, lengths of expanded lists, many) -> plan,
# or None for a statement this module leaves to SQLAlchemy. Only kept
# statements come here, so it stays small.
_PLANS: dict[tuple[Any, ...], _Plan | None] = {}


def _compile(statement: Statement, dialect: sa.Dialect,
             keys: tuple[str, ...], lengths: tuple[tuple[str, int], ...],
             many: bool) -> _Plan | None:
    """Compile as SQLAlchemy does at execution (the same column keys and
    executemany flag), or None for what this module does not do."""
    if many and _insert_many_values(statement, dialect):
        return None
    compiled = statement.compile(dialect=dialect, column_keys=sorted(keys),
                                 for_executemany=many)
    if not isinstance(compiled, SQLCompiler):
        return None  # DDL: never a kept statement
    if compiled.literal_execute_params or compiled.escaped_bind_names or \
            compiled.positiontup is None:
        return None
    expanding = dict(lengths)
    if {p.key for p in compiled.post_compile_params} != set(expanding):
        return None
    if any(isinstance(bind.type, sa.types.TupleType)
           for bind in compiled.binds.values()):
        return None
    state = compiled.construct_expanded_state(
        {key: [None] * expanding[key] if key in expanding else None
         for key in keys})
    expanded = {name: (key, index)
                for key, names in state.parameter_expansion.items()
                for index, name in enumerate(names)}
    defaults = {}
    fixed = {}
    prefetch = [(column, column.onupdate)
                for column in compiled.update_prefetch] + \
        [(column, column.default) for column in compiled.insert_prefetch]
    for column, default in prefetch:
        if not isinstance(default, sa.ColumnDefault) or \
                not (default.is_callable or default.is_scalar):
            return None
        if default.is_callable:
            defaults[column.key] = default.arg
        else:
            fixed[column.key] = default.arg
    positions = state.positiontup
    if positions is None:  # compiled.positiontup was not None
        return None
    slots: list[tuple[str, int | None, Callable[..., Any] | None]] = []
    for name in positions:
        if name in expanded:
            # Each value of an IN list is processed as its parameter's
            # type says.
            key, index = expanded[name]
            slots.append((key, index,
                          _bind_processor(compiled.binds[key], dialect)))
            continue
        bind = compiled.binds.get(name)
        if bind is None:
            return None
        if name not in keys and name not in defaults and name not in fixed:
            if bind.required or bind.callable is not None:
                return None
            fixed[name] = state.parameters[name]
        slots.append((name, None, _bind_processor(bind, dialect)))
    # A default's parameter must be the one named after its column (as
    # SQLAlchemy names it), and no caller's parameter may shadow it.
    if (set(fixed) | set(defaults)) & set(keys) or \
            not set(defaults) <= set(positions):
        return None
    results = None
    if statement.exported_columns:
        results = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None)
            for column in statement.exported_columns)
    return _Plan(state.statement, tuple(slots), fixed,
                 tuple(defaults.items()), results)


def _insert_many_values(statement: Statement,
                        dialect: sa.Dialect) -> bool:
    """Whether SQLAlchemy sends the rows of an executemany of
    ``statement`` as one INSERT of many VALUES ("insertmanyvalues"):
    this module sends one row at a time, so it leaves those to it."""
    return isinstance(statement, sa.Insert) and \
        dialect.use_insertmanyvalues and \
        (bool(statement.exported_columns) or
         dialect.use_insertmanyvalues_wo_returning)


def _bind_processor(bind: sa.BindParameter[Any], dialect: sa.Dialect
                    ) -> Callable[..., Any] | None:
    """What SQLAlchemy makes of a value of ``bind`` for the driver: its
    type's processor for the dialect (a TypeDecorator's
    ``process_bind_param`` included)."""
    return bind.type.dialect_impl(dialect).bind_processor(dialect)


# statement -> names of its expanding (IN) parameters.
_EXPANDING: dict[Statement, frozenset[str]] = {}


def _expanding(statement: Statement) -> frozenset[str]:
    try:
        return _EXPANDING[statement]
    except KeyError:
        names = _EXPANDING[statement] = frozenset(
            element.key for element in sa.sql.visitors.iterate(statement)
            if isinstance(element, sa.BindParameter) and element.expanding)
        return names


def _plan(connection: sa.Connection, statement: Statement,
          rows: Sequence[Params]) -> _Plan | None:
    first = rows[0]
    keys = tuple(first)
    if any(row.keys() != first.keys() for row in rows[1:]):
        return None
    lengths = tuple((key, len(first[key])) for key in _expanding(statement)
                    if key in first)
    if any(len(row[key]) != n for row in rows[1:] for key, n in lengths):
        return None
    dialect = connection.dialect
    many = len(rows) > 1
    index = (statement, dialect, keys, lengths, many)
    try:
        return _PLANS[index]
    except KeyError:
        plan = _PLANS[index] = _compile(statement, dialect, keys, lengths,
                                        many)
        return plan


def _driver(connection: sa.Connection) -> sqlite3.Connection | None:
    """The sqlite3 connection under ``connection`` if its transaction is
    open on the driver too; else None (SQLAlchemy runs the statement)."""
    dialect = connection.dialect
    if dialect.name != 'sqlite' or dialect.driver != 'pysqlite' or \
            not connection.in_transaction():
        return None
    # Listeners of whole executions want SQLAlchemy's objects.
    if connection.dispatch.before_execute or \
            connection.dispatch.after_execute:
        return None
    driver = connection.connection.dbapi_connection
    if not isinstance(driver, sqlite3.Connection) or \
            not driver.in_transaction:
        return None
    return driver


def _values(plan: _Plan, row: Params) -> tuple[Any, ...]:
    """The driver's parameters, as SQLAlchemy's execution makes them:
    processors run on every value, None too (a JSON column's None is
    stored as its empty document)."""
    values = row
    if plan.fixed or plan.defaults:
        values = plan.fixed | dict(row)
        for name, default in plan.defaults:
            # No execution context: a default that needs one fails here,
            # and SQLAlchemy runs the statement instead.
            values[name] = default(None)
    args = []
    for name, index, process in plan.slots:
        value = values[name] if index is None else values[name][index]
        args.append(value if process is None else process(value))
    return tuple(args)


class _Done(NamedTuple):
    rowcount: int
    rows: list[tuple[Any, ...]]


def _run(connection: sa.Connection, statement: Statement,
         rows: Sequence[Params]) -> _Done | int:
    """Run ``statement`` once per row on the driver: its result, or the
    index of the first row SQLAlchemy must run (nothing was run from that
    row on).

    As SQLAlchemy does, every row's values are made before anything is
    sent, and the listeners see the statement once, however many rows
    (an executemany counts once). The rows are sent one by one, as the
    driver's executemany does, so a failed row is known: the rows before
    it stay written, as they do when the driver's executemany fails.
    """
    driver = _driver(connection) if rows else None
    if driver is None:
        return 0
    plan = _plan(connection, statement, rows)
    if plan is None:
        return 0
    many = len(rows) > 1
    cursor = driver.cursor()
    sql = plan.sql
    try:
        values = [_values(plan, row) for row in rows]
        parameters: Any = values if many else values[0]
        for listener in connection.dispatch.before_cursor_execute:
            sql, parameters = listener(connection, cursor, sql, parameters,
                                       None, many)
    except Exception:
        # Nothing was sent: SQLAlchemy fails as it does.
        return 0
    rowcount = 0
    fetched: list[tuple[Any, ...]] = []
    for done, args in enumerate(parameters if many else [parameters]):
        try:
            cursor.execute(sql, args)
            if plan.results is not None:
                fetched.extend(cursor.fetchall())
        except Exception as exc:
            if driver.in_transaction:
                return done
            raise sa.exc.DBAPIError.instance(
                sql, args, exc, sqlite3.Error) from exc
        rowcount += cursor.rowcount
    for listener in connection.dispatch.after_cursor_execute:
        listener(connection, cursor, sql, parameters, None, many)
    if plan.results is not None:
        fetched = [tuple(value if process is None else process(value)
                         for process, value in zip(plan.results, raw,
                                                   strict=True))
                   for raw in fetched]
    return _Done(rowcount, fetched)


def _rows(params: Params | Sequence[Params]) -> Sequence[Params]:
    return [params] if isinstance(params, Mapping) else params


def execute(connection: sa.Connection, statement: Statement,
            params: Params | Sequence[Params]) -> int:
    """Run a kept UPDATE or INSERT (a list of parameter sets runs it once
    for each, as an executemany); the number of rows it changed."""
    rows = _rows(params)
    done = _run(connection, statement, rows)
    if isinstance(done, _Done):
        return done.rowcount
    rest = rows[done:]
    return connection.execute(
        statement, rest[0] if len(rest) == 1 else rest).rowcount


def first(connection: sa.Connection, statement: Statement,
          params: Params) -> Sequence[Any] | None:
    """The first row of a kept statement that returns rows, or None."""
    done = _run(connection, statement, [params])
    if isinstance(done, _Done):
        return done.rows[0] if done.rows else None
    return connection.execute(statement, params).first()


def scalar_one(connection: sa.Connection, statement: Statement,
               params: Params) -> Any:
    """The one value a kept statement returns (a count)."""
    done = _run(connection, statement, [params])
    if isinstance(done, _Done) and len(done.rows) == 1 and \
            len(done.rows[0]) == 1:
        return done.rows[0][0]
    return connection.execute(statement, params).scalar_one()
