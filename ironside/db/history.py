"""Queries on node history: what happened to a node, and when."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from oslo_utils import uuidutils

from ironside.common import exception
from ironside.db import models
from ironside.db import session as db_session

INFO = 'INFO'
WARNING = 'WARNING'
ERROR = 'ERROR'


def new_record(event: str, event_type: str, severity: str = INFO,
               conductor: str | None = None, user: str | None = None,
               node_id: int | None = None) -> models.NodeHistory:
    """A history record, to be written with the node change it explains."""
    return models.NodeHistory(uuid=uuidutils.generate_uuid(), event=event,
                              event_type=event_type, severity=severity,
                              conductor=conductor, user=user,
                              node_id=node_id, created_at=models.utcnow())


def new_row(event: str, event_type: str, severity: str = INFO,
            conductor: str | None = None, user: str | None = None
            ) -> dict[str, Any]:
    """A history record as the values of its row, for
    :func:`ironside.db.nodes.save_node`: a task records a few at every
    state change, and a plain dict costs a fraction of a mapped object."""
    return {'uuid': uuidutils.generate_uuid(), 'event': event,
            'event_type': event_type, 'severity': severity,
            'conductor': conductor, 'user': user,
            'created_at': models.utcnow()}


def record(node_id: int, event: str, event_type: str,
           severity: str = INFO, conductor: str | None = None,
           user: str | None = None) -> None:
    with db_session.writer() as session:
        session.add(new_record(event, event_type, severity, conductor, user,
                               node_id))


def list_for_node(node_id: int, limit: int | None = None,
                  marker: str | None = None,
                  sort_dir: str = 'asc') -> list[models.NodeHistory]:
    query = sa.select(models.NodeHistory).where(
        models.NodeHistory.node_id == node_id)
    ascending = sort_dir != 'desc'
    if marker:
        with db_session.reader() as session:
            marker_id = session.scalar(sa.select(models.NodeHistory.id).where(
                models.NodeHistory.uuid == marker))
        if marker_id is None:
            raise exception.NodeHistoryNotFound(history=marker)
        query = query.where(models.NodeHistory.id > marker_id if ascending
                            else models.NodeHistory.id < marker_id)
    query = query.order_by(models.NodeHistory.id.asc() if ascending
                           else models.NodeHistory.id.desc())
    if limit:
        query = query.limit(limit)
    with db_session.reader() as session:
        return list(session.scalars(query))


def get(node_id: int, history_uuid: str) -> models.NodeHistory:
    with db_session.reader() as session:
        row = session.scalars(sa.select(models.NodeHistory).where(
            models.NodeHistory.node_id == node_id,
            models.NodeHistory.uuid == history_uuid)).first()
    if row is None:
        raise exception.NodeHistoryNotFound(history=history_uuid)
    return row


def prune(max_entries: int) -> int:
    """Keep the newest ``max_entries`` records of each node."""
    if max_entries <= 0:
        return 0
    ranked = sa.select(
        models.NodeHistory.id,
        sa.func.row_number().over(
            partition_by=models.NodeHistory.node_id,
            order_by=models.NodeHistory.id.desc()).label('rank')
    ).subquery()
    with db_session.writer() as session:
        doomed = list(session.scalars(
            sa.select(ranked.c.id).where(ranked.c.rank > max_entries)))
        for start in range(0, len(doomed), 500):
            session.execute(sa.delete(models.NodeHistory).where(
                models.NodeHistory.id.in_(doomed[start:start + 500])))
    return len(doomed)
