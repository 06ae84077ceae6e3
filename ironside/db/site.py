"""Queries of the site layer: strategies, site actions, nodes and claims.

A site action belongs to the conductor named in its ``owner`` column.
Every write the runner makes checks that it still is the owner, in the
same transaction, so a conductor that lost an action (another one took
it over) can never overwrite the new owner's progress.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from ironside.common import exception
from ironside.db import designs as designs_db
from ironside.db import models
from ironside.db import session as db_session
from ironside.db import site_models
from ironside.db.site_models import SiteAction
from ironside.db.site_models import SiteActionNode
from ironside.db.site_models import SiteActionTask
from ironside.db.site_models import SiteNodeClaim
from ironside.db.site_models import SiteStrategy

# Conflicting nodes named in an error message, at most.
_CONFLICT_NAMES = 10


class NotOwner(Exception):
    """This conductor no longer owns the site action it tried to write."""


# Strategies

def _strategy_clause(ident: str) -> sa.ColumnElement[bool]:
    if uuidutils.is_uuid_like(ident):
        return SiteStrategy.uuid == ident
    return SiteStrategy.name == ident


def create_strategy(name: str, schema: str, document: dict[str, Any],
                    source: str | None = None) -> SiteStrategy:
    strategy = SiteStrategy(uuid=uuidutils.generate_uuid(), name=name,
                            schema=schema, document=document, source=source)
    try:
        with db_session.writer() as session:
            session.add(strategy)
            session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.StrategyAlreadyExists(name=name) from None
    return strategy


def get_strategy(ident: str) -> SiteStrategy:
    """A strategy by name or UUID; StrategyNotFound if there is none."""
    with db_session.reader() as session:
        strategy = session.scalars(
            sa.select(SiteStrategy).where(_strategy_clause(ident))).first()
    if strategy is None:
        raise exception.StrategyNotFound(strategy=ident)
    return strategy


def list_strategies() -> list[SiteStrategy]:
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(SiteStrategy).order_by(SiteStrategy.name)))


def delete_strategy(ident: str) -> None:
    with db_session.writer() as session:
        result = session.execute(
            sa.delete(SiteStrategy).where(_strategy_clause(ident)))
    if db_session.changed_rows(result) == 0:
        raise exception.StrategyNotFound(strategy=ident)


# Actions

def _conflicts(session: sa.orm.Session, node_uuids: Sequence[str]
               ) -> list[db_session.AnyRow]:
    rows: list[db_session.AnyRow] = []
    for start in range(0, len(node_uuids), 500):
        rows.extend(session.execute(
            sa.select(SiteAction.uuid, SiteActionNode.node_name)
            .join(SiteNodeClaim, SiteNodeClaim.action_id == SiteAction.id)
            .join(SiteActionNode,
                  sa.and_(SiteActionNode.action_id == SiteAction.id,
                          SiteActionNode.node_uuid ==
                          SiteNodeClaim.node_uuid))
            .where(SiteNodeClaim.node_uuid.in_(
                list(node_uuids[start:start + 500])))
            .order_by(SiteActionNode.node_name)))
    return rows


def _conflict_error(rows: Sequence[db_session.AnyRow]
                    ) -> exception.SiteActionConflict:
    action = rows[0].uuid
    names = [r.node_name for r in rows if r.uuid == action]
    shown = ', '.join(names[:_CONFLICT_NAMES])
    if len(names) > _CONFLICT_NAMES:
        shown += ' and %d more' % (len(names) - _CONFLICT_NAMES)
    return exception.SiteActionConflict(action=action, nodes=shown)


def check_unclaimed(node_uuids: Sequence[str]) -> None:
    """SiteActionConflict if an unfinished action holds any of the nodes."""
    with db_session.reader() as session:
        conflicts = _conflicts(session, list(node_uuids))
    if conflicts:
        raise _conflict_error(conflicts)


def create_action(action: str, strategy_name: str, document: dict[str, Any],
                  progress: dict[str, Any],
                  nodes: Sequence[tuple[str, str]],
                  revision_id: int | None = None,
                  parameters: dict[str, Any] | None = None,
                  log: list[dict[str, str]] | None = None,
                  tasks: Sequence[dict[str, Any]] = ()) -> SiteAction:
    """Queue an action over ``nodes`` ((uuid, name) pairs), claiming them,
    with its task runs (``node_uuid``, ``task``, ``position``,
    ``stage``; each ``pending``).

    Refused with SiteActionConflict if an unfinished action holds any of
    the nodes; the claims' primary key makes this atomic. An action that
    runs a design revision names it in ``revision_id``.
    """
    uuids = [uuid for uuid, _name in nodes]
    row = SiteAction(uuid=uuidutils.generate_uuid(), action=action,
                     strategy_name=strategy_name, document=document,
                     state=site_models.QUEUED, progress=progress,
                     revision_id=revision_id, parameters=parameters or {},
                     log=log or [])
    try:
        with db_session.writer() as session:
            # Write first, then read: a transaction that reads first and
            # writes after another writer committed fails on SQLite.
            session.add(row)
            session.flush()
            conflicts = _conflicts(session, uuids)
            if conflicts:
                raise _conflict_error(conflicts)
            if uuids:
                session.execute(sa.insert(SiteActionNode), [
                    {'action_id': row.id, 'node_uuid': uuid,
                     'node_name': name, 'status': site_models.NOT_STARTED}
                    for uuid, name in nodes])
                session.execute(sa.insert(SiteNodeClaim), [
                    {'node_uuid': uuid, 'action_id': row.id,
                     'created_at': models.utcnow()} for uuid in uuids])
            if tasks:
                session.execute(sa.insert(SiteActionTask), [
                    dict(run, action_id=row.id, status=site_models.PENDING)
                    for run in tasks])
    except db_exc.DBDuplicateEntry:
        # Another action claimed a node between our check and insert.
        with db_session.reader() as session:
            conflicts = _conflicts(session, uuids)
        if conflicts:
            raise _conflict_error(conflicts) from None
        raise
    return row


def get_action(uuid: str) -> SiteAction:
    with db_session.reader() as session:
        action = session.scalars(
            sa.select(SiteAction).where(SiteAction.uuid == uuid)).first()
    if action is None:
        raise exception.SiteActionNotFound(action=uuid)
    return action


# What ``list_actions`` sorts by: columns every action has a value in
# (keyset pages need no NULLs).
ACTION_SORT_KEYS = ('created_at', 'action', 'state')
# How a finished action ended, as the ``states`` filter takes it beside
# the states: its result says ``failed...``, or it does not.
SUCCEEDED = 'success'
FAILED = 'failed'
ACTION_STATE_FILTERS = site_models.UNFINISHED + site_models.ENDED + (
    SUCCEEDED, FAILED)


def _state_clause(state: str) -> Any:
    failed = SiteAction.result.like(FAILED + '%')
    if state == SUCCEEDED:
        return sa.and_(SiteAction.state == site_models.FINISHED,
                       sa.not_(failed))
    if state == FAILED:
        return sa.and_(SiteAction.state == site_models.FINISHED, failed)
    return SiteAction.state == state


def list_actions(limit: int | None = None, *,
                 states: Sequence[str] = (), actions: Sequence[str] = (),
                 revision: int | None = None, marker: str | None = None,
                 sort_key: str = 'created_at', sort_dir: str = 'desc'
                 ) -> list[SiteAction]:
    """One page of actions, newest first unless sorted otherwise:
    those in any of ``states`` (or ended as ``success``/``failed``), of
    any of ``actions``, running design ``revision``; after the action
    ``marker`` (a UUID; InvalidParameterValue if there is none)."""
    query = sa.select(SiteAction)
    if states:
        query = query.where(sa.or_(*(_state_clause(s) for s in states)))
    if actions:
        query = query.where(SiteAction.action.in_(actions))
    if revision is not None:
        query = query.where(SiteAction.revision_id == revision)
    with db_session.reader() as session:
        marker_id = None
        if marker is not None:
            marker_id = session.scalar(sa.select(SiteAction.id).where(
                SiteAction.uuid == marker))
            if marker_id is None:
                raise exception.InvalidParameterValue(
                    err='Marker %s could not be found: no site action has '
                        'that UUID' % marker)
        return list(session.scalars(db_session.paginate(
            query, SiteAction, limit, marker_id, sort_key, sort_dir)))


def action_nodes(action_id: int) -> list[SiteActionNode]:
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(SiteActionNode)
            .where(SiteActionNode.action_id == action_id)
            .order_by(SiteActionNode.node_name)))


def action_tasks(action_id: int) -> list[SiteActionTask]:
    """The task runs of an action, node by node, in their order."""
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(SiteActionTask)
            .where(SiteActionTask.action_id == action_id)
            .order_by(SiteActionTask.node_uuid, SiteActionTask.position)))


def node_claims(node_uuids: Iterable[str]) -> dict[str, int]:
    """Which unfinished action (id) holds each of these nodes."""
    with db_session.reader() as session:
        return dict(session.execute(
            sa.select(SiteNodeClaim.node_uuid, SiteNodeClaim.action_id)
            .where(SiteNodeClaim.node_uuid.in_(list(node_uuids)))).all())


# Ownership

def claimable_actions(host: str, live_hosts: Iterable[str],
                      stale_before: datetime.datetime
                      ) -> list[db_session.AnyRow]:
    """Actions ``host`` may run: queued ones, and unfinished ones nobody
    runs.

    Nobody runs an action whose owner released it, is not a live
    conductor, or stopped heartbeating it. Actions owned by ``host``
    itself are listed too: a conductor that restarted under the same
    name resumes them at once (it skips those it is running).
    """
    live = list(live_hosts)
    with db_session.reader() as session:
        return list(session.execute(
            sa.select(SiteAction.id, SiteAction.uuid, SiteAction.owner,
                      SiteAction.heartbeat_at)
            .where(SiteAction.state.in_(site_models.UNFINISHED),
                   sa.or_(SiteAction.owner.is_(None),
                          SiteAction.owner == host,
                          SiteAction.owner.not_in(live) if live
                          else sa.true(),
                          SiteAction.heartbeat_at < stale_before))
            .order_by(SiteAction.id)))


def claim_action(action_id: int, host: str, seen_owner: str | None,
                 seen_heartbeat: datetime.datetime | None) -> bool:
    """Become the owner, if the owner is still who we saw (compare-and-set).

    Two conductors that both saw an action orphaned cannot both win.
    """
    owner_clause = SiteAction.owner.is_(None) if seen_owner is None \
        else SiteAction.owner == seen_owner
    heartbeat_clause = SiteAction.heartbeat_at.is_(None) \
        if seen_heartbeat is None \
        else SiteAction.heartbeat_at == seen_heartbeat
    now = models.utcnow()
    with db_session.writer() as session:
        result = session.execute(
            sa.update(SiteAction)
            .where(SiteAction.id == action_id, owner_clause,
                   heartbeat_clause,
                   SiteAction.state.not_in(site_models.ENDED))
            .values(owner=host, heartbeat_at=now,
                    # An action being aborted stays so under a new owner.
                    state=sa.case((SiteAction.state == site_models.ABORTING,
                                   site_models.ABORTING),
                                  else_=site_models.RUNNING),
                    started_at=sa.func.coalesce(SiteAction.started_at, now))
            .execution_options(synchronize_session=False))
        return db_session.changed_rows(result) == 1


def heartbeat(action_ids: Sequence[int], host: str) -> set[int]:
    """Refresh the heartbeat of actions ``host`` owns; returns those ids."""
    if not action_ids:
        return set()
    with db_session.writer() as session:
        session.execute(
            sa.update(SiteAction)
            .where(SiteAction.id.in_(list(action_ids)),
                   SiteAction.owner == host)
            .values(heartbeat_at=models.utcnow())
            .execution_options(synchronize_session=False))
        return set(session.scalars(
            sa.select(SiteAction.id)
            .where(SiteAction.id.in_(list(action_ids)),
                   SiteAction.owner == host)))


def release_action(action_id: int, host: str) -> None:
    """Stop owning an unfinished action, so another conductor takes it."""
    with db_session.writer() as session:
        session.execute(
            sa.update(SiteAction)
            .where(SiteAction.id == action_id, SiteAction.owner == host,
                   SiteAction.state.not_in(site_models.ENDED))
            .values(owner=None)
            .execution_options(synchronize_session=False))


def save_progress(action_id: int, host: str,
                  progress: dict[str, Any] | None = None,
                  nodes: Sequence[dict[str, Any]] = (),
                  result: str | None = None,
                  tag: str | None = None,
                  tasks: Sequence[dict[str, Any]] = (),
                  state: str = site_models.FINISHED,
                  log: list[dict[str, str]] | None = None) -> None:
    """Write the runner's progress in one transaction, as the owner.

    ``nodes`` are changed node rows: dicts with ``id`` and the columns
    ``status``, ``phase``, ``request`` and ``reason``; ``tasks`` changed
    task runs: ``id`` and any of their columns; ``log`` the action's
    whole log, when it grew (only the owner writes it). With ``result`` the
    action ends in ``state`` (finished, or aborted) and its node claims
    are released; with ``tag`` too,
    the design revision it ran (if any) gets that tag. Raises NotOwner,
    writing nothing, if ``host`` no longer owns the action.
    """
    now = models.utcnow()
    values: dict[str, Any] = {'heartbeat_at': now}
    if progress is not None:
        values['progress'] = progress
    if log is not None:
        values['log'] = log
    if result is not None:
        values.update(result=result, state=state, finished_at=now)
    with db_session.writer() as session:
        owned = session.execute(
            sa.update(SiteAction)
            .where(SiteAction.id == action_id, SiteAction.owner == host,
                   SiteAction.state.not_in(site_models.ENDED))
            .values(**values)
            .execution_options(synchronize_session=False))
        if db_session.changed_rows(owned) != 1:
            raise NotOwner()
        if nodes:
            session.execute(sa.update(SiteActionNode), [
                dict(n, updated_at=now) for n in nodes])
        if tasks:
            session.execute(sa.update(SiteActionTask), list(tasks))
        if result is not None:
            session.execute(sa.delete(SiteNodeClaim)
                            .where(SiteNodeClaim.action_id == action_id))
        if result is not None and tag is not None:
            action = session.execute(
                sa.select(SiteAction.uuid, SiteAction.revision_id)
                .where(SiteAction.id == action_id)).one()
            if action.revision_id is not None:
                designs_db.add_tag(session, action.revision_id, tag,
                                   action.uuid)


# Aborting

def abort_action(uuid: str) -> SiteAction:
    """Ask for an action to be aborted; the action as it is then.

    A queued action (no conductor runs it yet) is aborted at once, its
    node claims released. A running one becomes ``aborting``: the
    runner that owns it, on whatever conductor, reads that and winds
    down (:mod:`ironside.strategy.run.abort`). Raises SiteActionNotFound, or
    SiteActionEnded for an action that has already ended. Each write is
    a compare-and-set on the state, so a conductor claiming the action
    at the same moment either sees it aborted or gets it aborting.
    """
    action = get_action(uuid)
    now = models.utcnow()
    with db_session.writer() as session:
        queued = session.execute(
            sa.update(SiteAction)
            .where(SiteAction.id == action.id,
                   SiteAction.state == site_models.QUEUED)
            .values(state=site_models.ABORTED, result=site_models.ABORTED,
                    finished_at=now)
            .execution_options(synchronize_session=False))
        if db_session.changed_rows(queued) == 1:
            session.execute(sa.delete(SiteNodeClaim)
                            .where(SiteNodeClaim.action_id == action.id))
            changed = True
        else:
            changed = db_session.changed_rows(session.execute(
                sa.update(SiteAction)
                .where(SiteAction.id == action.id,
                       SiteAction.state.in_((site_models.RUNNING,
                                             site_models.ABORTING)))
                .values(state=site_models.ABORTING)
                .execution_options(synchronize_session=False))) == 1
    action = get_action(uuid)
    if not changed:
        raise exception.SiteActionEnded(action=uuid, state=action.state)
    return action


def abort_requested(action_id: int) -> bool:
    """Whether the action is being aborted."""
    with db_session.reader() as session:
        return session.scalar(
            sa.select(SiteAction.state).where(SiteAction.id == action_id)
        ) == site_models.ABORTING
