"""Queries on inspection rules, and on the inventory inspection stores.

Rules are identified by UUID only (as Ironic's); they are read as plain
dicts. A node has at most one stored inventory: the last inspection's.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

RULES = resources.Resource(
    model=models.InspectionRule,
    not_found=lambda ident: exception.InspectionRuleNotFound(rule=ident),
    duplicates={'uuid': lambda v: exception.Conflict(
        'An inspection rule with UUID %s already exists.' % v.get('uuid'))})

create = RULES.create
get = RULES.get
update = RULES.update
destroy = RULES.destroy


def list_rules(phase: str | None = None, limit: int | None = None,
               marker: str | None = None, sort_key: str = 'id',
               sort_dir: str = 'asc') -> list[dict[str, Any]]:
    clauses = [RULES.table.c.phase == phase] if phase else []
    return RULES.list(clauses, limit, marker, sort_key, sort_dir)


def rules_to_apply(phase: str) -> list[dict[str, Any]]:
    """The phase's rules, highest priority first (ties: oldest first)."""
    table = RULES.table
    with db_session.reader() as session:
        return [dict(row._mapping) for row in session.execute(
            sa.select(table).where(table.c.phase == phase)
            .order_by(table.c.priority.desc(), table.c.id))]


def destroy_all() -> None:
    with db_session.writer() as session:
        session.execute(sa.delete(models.InspectionRule))


def store_inventory(node_id: int, inventory: dict[str, Any],
                    plugin_data: dict[str, Any]) -> None:
    """Keep what an inspection found, replacing the previous one's."""
    with db_session.writer() as session:
        row = session.get(models.NodeInventory, node_id)
        if row is None:
            session.add(models.NodeInventory(
                node_id=node_id, inventory=inventory,
                plugin_data=plugin_data))
        else:
            row.inventory = inventory
            row.plugin_data = plugin_data


def get_inventory(node_id: int, node_ident: str) -> dict[str, Any]:
    with db_session.reader() as session:
        row = session.get(models.NodeInventory, node_id)
        if row is None:
            raise exception.NotFound(
                'Inventory for node %s could not be found.' % node_ident)
        return {'inventory': row.inventory or {},
                'plugin_data': row.plugin_data or {}}
