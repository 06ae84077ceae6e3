"""Counts for monitoring: nodes by state, site actions by state.

Each is one GROUP BY over indexed columns (or the progress of the few
unfinished actions), cheap enough to run at every metrics scrape.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ironside.db import models
from ironside.db import session as db_session
from ironside.db import site_models
from ironside.db.site_models import SiteAction
from ironside.db.site_models import SiteActionNode

UNFINISHED = site_models.UNFINISHED


def nodes_by_provision_state() -> dict[str | None, int]:
    with db_session.reader() as session:
        return dict(session.execute(
            sa.select(models.Node.provision_state, sa.func.count())
            .group_by(models.Node.provision_state)).all())


def maintenance_by_fault() -> dict[str | None, int]:
    """Nodes in maintenance, by fault (None: put there by hand)."""
    with db_session.reader() as session:
        return dict(session.execute(
            sa.select(models.Node.fault, sa.func.count())
            .where(models.Node.maintenance.is_(True))
            .group_by(models.Node.fault)).all())


def site_actions_by_state() -> list[tuple[str, str | None, int]]:
    """(state, result, count) of every site action."""
    with db_session.reader() as session:
        rows = session.execute(
            sa.select(SiteAction.state, SiteAction.result, sa.func.count())
            .group_by(SiteAction.state, SiteAction.result))
        return [(state, result, count) for state, result, count in rows]


def unfinished_progress() -> list[dict[str, Any]]:
    """The progress documents of queued and running actions."""
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(SiteAction.progress)
            .where(SiteAction.state.in_(UNFINISHED))))


def unfinished_action_nodes() -> list[tuple[str, bool, int]]:
    """(status, in flight, count) of the nodes of unfinished actions."""
    in_flight = SiteActionNode.phase.isnot(None)
    with db_session.reader() as session:
        return [(status, bool(flying), count) for status, flying, count in
                session.execute(
                    sa.select(SiteActionNode.status, in_flight,
                              sa.func.count())
                    .join(SiteAction,
                          SiteAction.id == SiteActionNode.action_id)
                    .where(SiteAction.state.in_(UNFINISHED))
                    .group_by(SiteActionNode.status, in_flight))]
