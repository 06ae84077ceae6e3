"""Reads of nodes for API answers: only the columns asked for.

A list of a thousand nodes must not build a thousand ORM objects nor run
a query per node: these functions select the requested columns with
SQLAlchemy Core, join the allocation and chassis UUIDs when asked, and
fetch traits for the whole page in one more query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session

NODE = models.Node.__table__
ALLOCATION = models.Allocation.__table__
CHASSIS = models.Chassis.__table__

COLUMNS = frozenset(NODE.c.keys())
# Values computed by joins rather than read from the nodes table.
JOINED = ('allocation_uuid', 'chassis_uuid')


def _query(columns: Sequence[str]) -> sa.Select:
    selected = [NODE.c[name] for name in columns if name in COLUMNS]
    source = NODE
    if 'allocation_uuid' in columns:
        source = source.outerjoin(ALLOCATION,
                                  NODE.c.allocation_id == ALLOCATION.c.id)
        selected.append(ALLOCATION.c.uuid.label('allocation_uuid'))
    if 'chassis_uuid' in columns:
        source = source.outerjoin(CHASSIS, NODE.c.chassis_id == CHASSIS.c.id)
        selected.append(CHASSIS.c.uuid.label('chassis_uuid'))
    return sa.select(*selected).select_from(source)


def _filter_clauses(filters: dict[str, Any]) -> list:
    filters = dict(filters)
    clauses = []
    chassis_uuid = filters.pop('chassis_uuid', None)
    if chassis_uuid is not None:
        clauses.append(NODE.c.chassis_id == sa.select(CHASSIS.c.id).where(
            CHASSIS.c.uuid == chassis_uuid).scalar_subquery())
    include_children = filters.pop('include_children', None)
    if not include_children and filters.get('parent_node') is None:
        clauses.append(NODE.c.parent_node.is_(None))
    instance_uuid = filters.pop('instance_uuid', None)
    if instance_uuid is not None:
        clauses.append(NODE.c.instance_uuid == instance_uuid)
    return clauses + nodes_db.filter_clauses(filters)


def _with_traits(rows: list[dict[str, Any]]) -> None:
    traits = nodes_db.traits_by_node([row['id'] for row in rows])
    for row in rows:
        row['traits'] = traits[row['id']]


def _columns_for(columns: Sequence[str], traits: bool) -> list[str]:
    wanted = list(dict.fromkeys(columns))
    if traits and 'id' not in wanted:
        wanted.append('id')
    return wanted


def list_nodes(columns: Sequence[str], filters: dict[str, Any] | None = None,
               limit: int | None = None, marker: str | None = None,
               sort_key: str = 'id', sort_dir: str = 'asc',
               traits: bool = False) -> list[dict[str, Any]]:
    """One page of nodes as dicts of ``columns`` (and ``traits``).

    ``marker`` is the UUID of the last node of the previous page.
    """
    if sort_key not in nodes_db.SORTABLE_COLUMNS:
        raise exception.InvalidParameterValue(
            err='The sort_key value "%s" is an invalid field for sorting'
                % sort_key)
    marker_id = nodes_db.node_id_for(marker) if marker else None
    query = _query(_columns_for(columns, traits)).where(
        *_filter_clauses(filters or {}))
    query = db_session.paginate(query, models.Node, limit, marker_id,
                                sort_key, sort_dir)
    with db_session.reader() as session:
        rows = [dict(row._mapping) for row in session.execute(query)]
    if traits and rows:
        _with_traits(rows)
    return rows


def get_node(ident: str | int, columns: Sequence[str],
             traits: bool = False) -> dict[str, Any]:
    """One node by id, UUID or name, as a dict (NodeNotFound)."""
    query = _query(_columns_for(columns, traits)).where(
        nodes_db._ident_clause(ident))
    with db_session.reader() as session:
        row = session.execute(query).first()
    if row is None:
        raise exception.NodeNotFound(node=ident)
    result = dict(row._mapping)
    if traits:
        _with_traits([result])
    return result


def shards() -> list[dict[str, Any]]:
    """Shard names and how many nodes each has."""
    query = sa.select(NODE.c.shard, sa.func.count()).where(
        NODE.c.shard.isnot(None)).group_by(NODE.c.shard).order_by(
        NODE.c.shard)
    with db_session.reader() as session:
        return [{'name': name, 'count': count}
                for name, count in session.execute(query)]
