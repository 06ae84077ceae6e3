"""What a list of nodes may be filtered and sorted by.

One set of filters for every read of several nodes: the API's lists
(:mod:`ironside.db.node_views`) and the conductor's periodic jobs
(:func:`ironside.db.nodes.select_node_columns`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import resources

NODES = resources.table(models.Node)

# The columns nodes may be sorted by: all but the JSON documents.
SORTABLE_COLUMNS = frozenset(c.key for c in NODES.columns
                             if not isinstance(c.type, models.JsonEncoded))


def _one_or_many(column: sa.Column[Any]
                 ) -> Callable[[Any], sa.ColumnElement[Any]]:
    return lambda v: (column.in_(v) if isinstance(v, (list, tuple, set))
                      else column == v)


def _present(column: sa.Column[Any]) -> Callable[[Any], sa.ColumnElement[Any]]:
    """Whether ``column`` is set (true) or NULL (false)."""
    return lambda v: column.isnot(None) if v else column.is_(None)


# Filter name -> function(value) -> clause.
_FILTERS: dict[str, Callable[[Any], sa.ColumnElement[Any]]] = {
    'provision_state': _one_or_many(NODES.c.provision_state),
    'driver': lambda v: NODES.c.driver == v,
    'maintenance': lambda v: NODES.c.maintenance == bool(v),
    'associated': _present(NODES.c.instance_uuid),
    'instance_uuid': lambda v: NODES.c.instance_uuid == v,
    'resource_class': lambda v: NODES.c.resource_class == v,
    'conductor_group': lambda v: NODES.c.conductor_group == v.lower(),
    'fault': lambda v: NODES.c.fault == v,
    'owner': lambda v: NODES.c.owner == v,
    'lessee': lambda v: NODES.c.lessee == v,
    'project': lambda v: sa.or_(NODES.c.owner == v, NODES.c.lessee == v),
    'chassis_id': lambda v: NODES.c.chassis_id == v,
    'retired': lambda v: NODES.c.retired == bool(v),
    'reserved': _present(NODES.c.reservation),
    'reserved_by': lambda v: NODES.c.reservation.in_(v),
    'shard': lambda v: NODES.c.shard.in_(v),
    'sharded': _present(NODES.c.shard),
    'parent_node': lambda v: NODES.c.parent_node == v,
    'description_contains': lambda v: NODES.c.description.contains(v),
    'instance_name': lambda v: NODES.c.instance_name == v,
    'uuid_in': lambda v: NODES.c.uuid.in_(v),
    'name_in': lambda v: NODES.c.name.in_(v),
    'provisioned_before': lambda v: NODES.c.provision_updated_at < v,
    'driver_in': lambda v: NODES.c.driver.in_(v),
}


def clauses(filters: dict[str, Any] | None) -> list[sa.ColumnElement[Any]]:
    """The WHERE clauses of ``filters`` (a None value filters nothing,
    but for ``instance_uuid``); 400 for an unknown filter."""
    found = []
    for key, value in (filters or {}).items():
        if value is None and key != 'instance_uuid':
            continue
        try:
            found.append(_FILTERS[key](value))
        except KeyError:
            raise exception.InvalidParameterValue(
                err='Unknown node filter %s' % key) from None
    return found


def check_sort_key(sort_key: str) -> None:
    """400 unless nodes may be sorted by ``sort_key``."""
    if sort_key not in SORTABLE_COLUMNS:
        raise exception.InvalidParameterValue(
            err='The sort_key value "%s" is an invalid field for sorting'
            % sort_key)
