"""CRUD on simple tables (ports, port groups, allocations, chassis).

Each is identified by id, UUID or (if it has one) name, and read as a
plain dict: the table's columns plus the UUIDs of the rows it refers to,
joined in the same query, so an API answer needs no query per item.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import cast

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from ironside.common import exception
from ironside.db import models
from ironside.db import session as db_session


def require_unchanged(kind: str, ident: str,
                      current: Mapping[str, Any] | sa.RowMapping,
                      expected: Mapping[str, Any]) -> None:
    """Compare-and-set: refuse a write computed from values that another
    writer has since changed (409, nothing written).

    ``current`` holds the stored values of (some of) the fields in
    ``expected``; fields it does not hold are not compared.
    """
    changed = sorted(name for name in expected
                     if name in current and current[name] != expected[name])
    if changed:
        raise exception.ChangedMeanwhile(kind=kind.rstrip('s').title(),
                                         ident=ident,
                                         fields=', '.join(changed))


def table(model: type[models.Base]) -> sa.Table:
    """The table a model class maps.

    SQLAlchemy types ``__table__`` as a FromClause, since an imperative
    mapping may map any selectable; every Ironside model is declarative,
    so it is a Table (and its ``c`` are Columns).
    """
    return cast(sa.Table, model.__table__)


@dataclasses.dataclass(frozen=True)
class Join:
    """Columns of another table, read through a foreign key."""

    on: Callable[[], Any]                   # the join condition
    columns: tuple[tuple[str, sa.Column[Any]], ...]  # (key in row, column)


# Queries of "every row of one node", by (table, sort key); see of_node.
_OF_NODE: dict[tuple[str, str], db_session.AnySelect] = {}


@dataclasses.dataclass(frozen=True)
class Resource:
    model: type[models.Base]
    not_found: Callable[[str | int], exception.IronsideException]
    # Unique column -> exception for a duplicate, given the values.
    duplicates: dict[str, Callable[[dict[str, Any]],
                                   exception.IronsideException]]
    joins: tuple[Join, ...] = ()

    @property
    def table(self) -> sa.Table:
        return table(self.model)

    def ident_clause(self, ident: str | int) -> sa.ColumnElement[bool]:
        columns = self.table.c
        if isinstance(ident, int):
            return columns.id == ident
        if uuidutils.is_uuid_like(ident):
            return columns.uuid == ident
        if 'name' in columns:
            return columns.name == ident
        return columns.uuid == ident

    def of_node(self, node_id: int, sort_key: str = 'id'
                ) -> list[dict[str, Any]]:
        """Every row of one node, as :meth:`list` gives them, with a
        statement built once: what the conductor reads of a node's ports,
        port groups or volumes at each deploy and tear down."""
        key = (self.table.name, sort_key)
        query = _OF_NODE.get(key)
        if query is None:
            query = _OF_NODE[key] = db_session.paginate(
                self.select().where(
                    self.table.c.node_id == sa.bindparam('node_id')),
                self.model, None, None, sort_key, 'asc')
        with db_session.reader_connection() as connection:
            return [dict(row._mapping) for row in connection.execute(
                query, {'node_id': node_id})]

    def select(self) -> db_session.AnySelect:
        source: sa.FromClause = self.table
        selected: list[sa.ColumnElement[Any]] = list(self.table.c)
        for join in self.joins:
            source = source.outerjoin(join.columns[0][1].table, join.on())
            selected.extend(column.label(label)
                            for label, column in join.columns)
        return sa.select(*selected).select_from(source)

    def _duplicate(self, exc: db_exc.DBDuplicateEntry,
                   values: dict[str, Any]) -> exception.IronsideException:
        columns = db_session.duplicate_columns(exc)
        for column, error in self.duplicates.items():
            if column in columns:
                return error(values)
        return self.duplicates['uuid'](values)

    def create(self, values: dict[str, Any]) -> dict[str, Any]:
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        try:
            with db_session.writer() as session:
                session.add(self.model(**values))
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from None
        return self.get(values['uuid'])

    def get(self, ident: str | int) -> dict[str, Any]:
        with db_session.reader() as session:
            row = session.execute(self.select().where(
                self.ident_clause(ident))).first()
        if row is None:
            raise self.not_found(ident)
        return dict(row._mapping)

    def id_for(self, ident: str | int, code: int | None = None) -> int:
        with db_session.reader() as session:
            found: int | None = session.scalar(
                sa.select(self.table.c.id).where(self.ident_clause(ident)))
        if found is None:
            error = self.not_found(ident)
            if code is not None:
                error.code = code
            raise error
        return found

    def update(self, ident: str | int, values: dict[str, Any],
               expected: dict[str, Any] | None = None) -> dict[str, Any]:
        """Write ``values``; with ``expected`` (the fields as the caller
        read them), only if none of those changed meanwhile.

        The row is read for update in the writing transaction, so two
        read-modify-write requests cannot both succeed on one read.
        """
        values = dict(values)
        if values:
            values['updated_at'] = models.utcnow()
        try:
            with db_session.writer() as session:
                row_id = session.scalar(sa.select(self.table.c.id).where(
                    self.ident_clause(ident)))
                if row_id is None:
                    raise self.not_found(ident)
                columns = [self.table.c[name] for name in expected
                           if name in self.table.c] if expected else []
                if expected and columns:
                    current = session.execute(
                        sa.select(*columns).where(
                            self.table.c.id == row_id).with_for_update()
                    ).one()._mapping
                    require_unchanged(self.table.name, str(ident),
                                      current, expected)
                if values:
                    session.execute(sa.update(self.model).where(
                        self.table.c.id == row_id).values(**values))
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from None
        return self.get(row_id)

    def destroy(self, ident: str | int) -> None:
        with db_session.writer() as session:
            result = session.execute(sa.delete(self.model).where(
                self.ident_clause(ident)))
            if db_session.changed_rows(result) == 0:
                raise self.not_found(ident)

    def destroy_unused(self, ident: str | int, user: sa.Column[Any],
                       error: exception.IronsideException) -> None:
        """Delete a row no row of ``user``'s table refers to; else error."""
        row_id = self.id_for(ident)
        with db_session.writer() as session:
            if session.scalar(sa.select(user).where(user == row_id)
                              .limit(1)) is not None:
                raise error
            session.execute(sa.delete(self.model).where(
                self.table.c.id == row_id))

    def list(self, clauses: Sequence[sa.ColumnElement[bool]] = (),
             limit: int | None = None,
             marker: str | None = None, sort_key: str = 'id',
             sort_dir: str = 'asc') -> list[dict[str, Any]]:
        """One page of rows matching ``clauses``; ``marker`` is a UUID."""
        if sort_key not in self.table.c or isinstance(
                self.table.c[sort_key].type, models.JsonEncoded):
            raise exception.InvalidParameterValue(
                err='The sort_key value "%s" is an invalid field for '
                    'sorting' % sort_key)
        marker_id = self.id_for(marker) if marker else None
        query = db_session.paginate(self.select().where(*clauses),
                                    self.model, limit, marker_id, sort_key,
                                    sort_dir)
        with db_session.reader() as session:
            return [dict(row._mapping) for row in session.execute(query)]


NODE = table(models.Node)


def node_child_clauses(table: sa.Table, filters: dict[str, Any]
                       ) -> list[sa.ColumnElement[bool]]:
    """Filters of rows that belong to a node (ports, port groups).

    ``node_id``, ``address``, ``shard`` (a list), ``conductor_groups``
    and ``project`` (the node's owner or lessee); the query must join the
    nodes table.
    """
    clauses = []
    if filters.get('node_id') is not None:
        clauses.append(table.c.node_id == filters['node_id'])
    if filters.get('address') is not None:
        clauses.append(table.c.address == filters['address'])
    if filters.get('shard'):
        clauses.append(NODE.c.shard.in_(filters['shard']))
    if filters.get('conductor_groups'):
        clauses.append(NODE.c.conductor_group.in_(
            filters['conductor_groups']))
    if filters.get('project'):
        clauses.append((NODE.c.owner == filters['project']) |
                       (NODE.c.lessee == filters['project']))
    return clauses
