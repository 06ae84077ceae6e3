"""Reads of nodes for API answers: only the columns asked for, as rows.

A list of a thousand nodes must not build a thousand node objects nor
run a query per node: these functions select the requested columns with
SQLAlchemy Core, join the allocation and chassis UUIDs when asked, and
fetch traits for the whole page in one more query. As everywhere in
``db/``, ``select_…`` reads return rows (:class:`Rows`, or dicts of
columns for the ``…_dict(s)`` ones); node objects to change and save
come from :mod:`ironside.db.nodes` (``get_node``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from collections.abc import Sequence
from typing import Any
from typing import NamedTuple

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import node_filters
from ironside.db import node_rows
from ironside.db import nodes as nodes_db
from ironside.db import resources
from ironside.db import session as db_session

NODE = resources.table(models.Node)
ALLOCATION = resources.table(models.Allocation)
CHASSIS = resources.table(models.Chassis)

COLUMNS = frozenset(NODE.c.keys())
# Values computed by joins rather than read from the nodes table.
JOINED = ('allocation_uuid', 'chassis_uuid')


JSON_COLUMNS = frozenset(node_rows.JSON_COLUMNS)
BOOLEAN_COLUMNS = frozenset(c.key for c in NODE.c
                            if isinstance(c.type, sa.Boolean))
TIME_COLUMNS = frozenset(c.key for c in NODE.c
                         if isinstance(c.type, sa.DateTime))


def _column(name: str, raw: bool) -> sa.ColumnElement[Any]:
    """A nodes column; with ``raw``, typed so SQLAlchemy leaves it as stored.

    Half the cost of reading a page of whole nodes is turning stored
    JSON, booleans and timestamps into Python values that the answer
    turns back into text; raw columns leave that to the caller, for the
    few values that need it.
    """
    column = NODE.c[name]
    if not raw:
        return column
    if name in JSON_COLUMNS or name in TIME_COLUMNS:
        return sa.type_coerce(column, sa.String).label(name)
    if name in BOOLEAN_COLUMNS:
        return sa.type_coerce(column, sa.Integer).label(name)
    return column


def _source(columns: Sequence[str], raw: bool
            ) -> tuple[list[sa.ColumnElement[Any]], sa.FromClause]:
    """The selected columns and the tables they come from."""
    selected, source = _built_source(tuple(columns), raw)
    return list(selected), source


@functools.lru_cache(maxsize=256)
def _built_source(columns: tuple[str, ...], raw: bool
                  ) -> tuple[tuple[sa.ColumnElement[Any], ...], sa.FromClause]:
    """:func:`_source`, built once per set of columns: a list request
    spent longer building its statement than SQLite took to run it."""
    selected = [_column(name, raw) for name in columns if name in COLUMNS]
    source: sa.FromClause = NODE
    if 'allocation_uuid' in columns:
        source = source.outerjoin(ALLOCATION,
                                  NODE.c.allocation_id == ALLOCATION.c.id)
        selected.append(ALLOCATION.c.uuid.label('allocation_uuid'))
    if 'chassis_uuid' in columns:
        source = source.outerjoin(CHASSIS, NODE.c.chassis_id == CHASSIS.c.id)
        selected.append(CHASSIS.c.uuid.label('chassis_uuid'))
    return tuple(selected), source


def _query(columns: Sequence[str], raw: bool = False) -> db_session.AnySelect:
    selected, source = _source(columns, raw)
    return sa.select(*selected).select_from(source)


def _fingerprint(columns: Sequence[str]) -> sa.ColumnElement[Any]:
    """One value per row that differs whenever any of ``columns`` does.

    The values as a JSON array, built by the database: reading one
    string per row costs a fraction of reading sixty columns as Python
    objects, and telling whether a node changed needs no more. The same
    set of columns gives the same fingerprint whatever their order (the
    query's source must join what ``columns`` name).
    """
    return _built_fingerprint(tuple(sorted(set(columns))),
                              db_session.get_engine().dialect.name)


@functools.lru_cache(maxsize=256)
def _built_fingerprint(names: tuple[str, ...], dialect: str
                       ) -> sa.ColumnElement[Any]:
    values = [_column(name, raw=True) for name in names if name in COLUMNS]
    if 'allocation_uuid' in names:
        values.append(ALLOCATION.c.uuid)
    if 'chassis_uuid' in names:
        values.append(CHASSIS.c.uuid)
    if dialect == 'postgresql':
        return sa.func.json_build_array(*values).label('fingerprint')
    return sa.func.json_array(*values).label('fingerprint')


def _filter_clauses(filters: dict[str, Any]
                    ) -> list[sa.ColumnElement[bool]]:
    filters = dict(filters)
    clauses = []
    chassis_uuid = filters.pop('chassis_uuid', None)
    if chassis_uuid is not None:
        clauses.append(NODE.c.chassis_id == sa.select(CHASSIS.c.id).where(
            CHASSIS.c.uuid == chassis_uuid).scalar_subquery())
    # As Ironic: without include_children, the nodes of a parent_node, or
    # those with no parent; with it, every node (parent_node is ignored).
    if filters.pop('include_children', None):
        filters.pop('parent_node', None)
    elif filters.get('parent_node') is None:
        clauses.append(NODE.c.parent_node.is_(None))
    instance_uuid = filters.pop('instance_uuid', None)
    if instance_uuid is not None:
        clauses.append(NODE.c.instance_uuid == instance_uuid)
    return clauses + node_filters.clauses(filters)


TRAIT = resources.table(models.NodeTrait)


def _id_in(column: sa.ColumnElement[int],
           ids: Iterable[int]) -> sa.ColumnElement[bool]:
    """``column IN (ids)``, the ids written into the SQL when it runs.

    They are integers read from the database, and a page has up to a
    thousand: binding each as a parameter costs more than the query. They
    are written in at execution (``literal_execute``), not into the
    statement: a statement holding them would be compiled again for
    every other set of ids (every node shown, every page's missing
    nodes) and fill the engine's compiled cache with statements used
    once, pushing out the ones used all the time.
    """
    return column.in_(sa.bindparam('ids', [int(i) for i in ids],
                                   expanding=True, literal_execute=True))


def _traits_of(connection: sa.Connection,
               node_ids: list[int]) -> dict[int, list[str]]:
    """Traits of a page of nodes, in one query."""
    found: dict[int, list[str]] = {node_id: [] for node_id in node_ids}
    if not found:
        return found
    query = sa.select(TRAIT.c.node_id, TRAIT.c.trait).where(
        _id_in(TRAIT.c.node_id, found)
    ).order_by(TRAIT.c.node_id, TRAIT.c.trait)
    for node_id, trait in connection.execute(query).all():
        found[node_id].append(trait)
    return found


class Rows(NamedTuple):
    """Nodes as tuples of ``keys``; ``traits`` by node id if asked."""

    keys: list[str]
    rows: Sequence[db_session.AnyRow]
    traits: dict[int, list[str]] | None

    def as_dicts(self) -> list[dict[str, Any]]:
        result = [dict(zip(self.keys, row, strict=True)) for row in self.rows]
        if self.traits is not None:
            for row in result:
                row['traits'] = self.traits[row['id']]
        return result


def _columns_for(columns: Sequence[str], traits: bool) -> list[str]:
    wanted = list(dict.fromkeys(columns))
    if traits and 'id' not in wanted:
        wanted.append('id')
    return wanted


def _select(query: db_session.AnySelect, traits: bool,
            params: dict[str, Any] | None = None) -> Rows:
    """Run a node query, and the traits query of its nodes, together."""
    with db_session.reader_connection() as connection:
        result = connection.execute(query, params)
        keys = list(result.keys())
        rows = result.all()
        found = None
        if traits:
            id_at = keys.index('id')
            found = _traits_of(connection, [row[id_at] for row in rows])
    return Rows(keys, rows, found)


_ID_OF_UUID = sa.select(NODE.c.id).where(NODE.c.uuid == sa.bindparam('uuid'))


def _marker_id(marker: str) -> int:
    """The id of the node a page starts after (NodeNotFound)."""
    with db_session.reader_connection() as connection:
        node_id: int | None = connection.execute(
            _ID_OF_UUID, {'uuid': marker}).scalar()
    if node_id is None:
        raise exception.NodeNotFound(node=marker)
    return node_id


def _page(query: db_session.AnySelect, filters: dict[str, Any] | None,
          limit: int | None, marker: str | None, sort_key: str,
          sort_dir: str) -> db_session.AnySelect:
    """``query`` narrowed to the nodes of one page, in order."""
    node_filters.check_sort_key(sort_key)
    marker_id = _marker_id(marker) if marker else None
    query = query.where(*_filter_clauses(filters or {}))
    return db_session.paginate(query, models.Node, limit, marker_id,
                               sort_key, sort_dir)


def select_nodes(columns: Sequence[str],
                 filters: dict[str, Any] | None = None,
                 limit: int | None = None, marker: str | None = None,
                 sort_key: str = 'id', sort_dir: str = 'asc',
                 traits: bool = False, raw: bool = False) -> Rows:
    """One page of nodes: ``columns`` (and ``traits``) of each.

    ``marker`` is the UUID of the last node of the previous page. With
    ``raw``, values are as stored (see :func:`_column`): JSON documents
    as text, booleans and timestamps as the driver gives them.
    """
    query = _query(_columns_for(columns, traits), raw)
    return _select(_page(query, filters, limit, marker, sort_key,
                         sort_dir), traits)


def select_fingerprints(columns: Sequence[str], shown: Sequence[str],
                        filters: dict[str, Any] | None = None,
                        limit: int | None = None, marker: str | None = None,
                        sort_key: str = 'id', sort_dir: str = 'asc',
                        traits: bool = False) -> Rows:
    """The page :func:`select_nodes` would read, as each node's id,
    ``shown`` columns, traits if asked, and the ``fingerprint`` of its
    ``columns`` (see :func:`_fingerprint`)."""
    _, source = _source(columns, raw=True)
    query = sa.select(NODE.c.id, *(NODE.c[name] for name in shown),
                      _fingerprint(columns)).select_from(source)
    return _select(_page(query, filters, limit, marker, sort_key,
                         sort_dir), traits)


def select_nodes_by_id(columns: Sequence[str], node_ids: Sequence[int],
                       traits: bool = False) -> Rows:
    """``columns`` of these nodes, raw, with the ``fingerprint`` of
    ``columns`` (as :func:`select_fingerprints` gives it); a node deleted
    meanwhile is left out."""
    selected, source = _source(_columns_for(list(columns) + ['id'], traits),
                               raw=True)
    query = sa.select(*selected, _fingerprint(columns)).select_from(
        source).where(
        _id_in(NODE.c.id, node_ids))
    return _select(query, traits)


def select_node_dicts(columns: Sequence[str],
                      filters: dict[str, Any] | None = None,
                      limit: int | None = None, marker: str | None = None,
                      sort_key: str = 'id', sort_dir: str = 'asc',
                      traits: bool = False) -> list[dict[str, Any]]:
    """As :func:`select_nodes`, as dicts (traits under ``traits``)."""
    return select_nodes(columns, filters, limit, marker, sort_key,
                        sort_dir, traits).as_dicts()


@functools.lru_cache(maxsize=256)
def _node_query(columns: tuple[str, ...], raw: bool, kind: str
                ) -> db_session.AnySelect:
    """The query of one node's ``columns``, built once per set of columns
    (a show is the API's most frequent read; building the statement and
    its cache key afresh cost more than running it)."""
    return _query(columns, raw).where(NODE.c[kind] == sa.bindparam('ident'))


def select_node(ident: str | int, columns: Sequence[str],
                traits: bool = False, raw: bool = False) -> Rows:
    """One node by id, UUID or name (NodeNotFound)."""
    query = _node_query(tuple(_columns_for(columns, traits)), raw,
                        nodes_db.ident_column(ident))
    found = _select(query, traits, {'ident': ident})
    if not found.rows:
        raise exception.NodeNotFound(node=ident)
    return found


def select_node_dict(ident: str | int, columns: Sequence[str],
                     traits: bool = False) -> dict[str, Any]:
    """As :func:`select_node`, as a dict."""
    return select_node(ident, columns, traits).as_dicts()[0]


def shards() -> list[dict[str, Any]]:
    """Shard names and how many nodes each has."""
    query = sa.select(NODE.c.shard, sa.func.count()).where(
        NODE.c.shard.isnot(None)).group_by(NODE.c.shard).order_by(
        NODE.c.shard)
    with db_session.reader_connection() as connection:
        return [{'name': name, 'count': count}
                for name, count in connection.execute(query)]
