"""Fleet-wide caps, decided in the database so that every conductor
sees the same one.

Two kinds:

- **counted** caps on the nodes in some provision states (Ironic's
  ``[conductor]max_concurrent_deploy`` and ``max_concurrent_clean``):
  :func:`admit` counts those nodes and writes a node's move into them in
  one transaction;
- **held** caps on slots that conductors take and give back (the site
  layer's nodes in flight): :func:`take_slots` adds to the conductor's
  row of ``fleet_slots`` while the sum over live conductors stays within
  the cap.

Either way the transaction first updates the cap's row of
``fleet_limits``. That UPDATE takes the row's lock and keeps it until the
commit, so deciding conductors pass there one at a time. The count that
follows is a statement of its own, started once the lock is held: on
PostgreSQL (read committed) it sees every decision committed before, on
MariaDB (InnoDB takes its snapshot at the first plain read, which comes
after the lock) too, and SQLite has one writer at a time anyway. Counting
and writing in one transaction without the lock would not do: two
transactions could each count without the other's node (neither has
committed yet) and both take the last slot.

The price is one row every deploy, tear down and clean request of the
fleet queues on for the length of a short transaction (a few
milliseconds): the benchmark's capacity model weighs it.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from collections.abc import Sequence
from typing import TypeVar

import sqlalchemy as sa
from oslo_db import exception as db_exc
from sqlalchemy import orm

from ironside.common import exception
from ironside.db import fast_sqlite
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

T = TypeVar('T')

FleetLimit = models.FleetLimit
FleetSlot = models.FleetSlot


_LIMITS = resources.table(FleetLimit)
# Kept: every deploy and cleaning passes here.
_LOCK = (sa.update(_LIMITS).where(_LIMITS.c.name == sa.bindparam('cap'))
         .values(generation=_LIMITS.c.generation + 1))
_COUNT = (sa.select(sa.func.count()).select_from(resources.table(models.Node))
          .where(resources.table(models.Node).c.provision_state.in_(
              sa.bindparam('states', expanding=True))))


def _lock(session: orm.Session, name: str) -> bool:
    """Take the cap's row lock; False if the row does not exist yet."""
    return bool(fast_sqlite.execute(session.connection(), _LOCK,
                                    {'cap': name}))


def _create(name: str) -> None:
    try:
        with db_session.writer() as session:
            session.execute(sa.insert(FleetLimit).values(name=name,
                                                         generation=0))
    except db_exc.DBDuplicateEntry:
        pass  # another conductor made it first


# Attempts at a decision that the database broke as a deadlock.
_DEADLOCK_ATTEMPTS = 20


def _locked(name: str, decide: Callable[[orm.Session], T]) -> T:
    """Run ``decide`` in a write transaction holding the cap's row lock.

    MariaDB may break one of several transactions that create the row
    at once (or that lock it while another creates it) as a deadlock;
    nothing of it was written, so it is run again. A database outage
    during the decision is DatabaseUnavailable (503, retried by
    clients): nothing of it was written either.
    """
    for attempt in range(_DEADLOCK_ATTEMPTS):
        try:
            with db_session.writer() as session:
                if _lock(session, name):
                    return decide(session)
            _create(name)
        except db_exc.DBDeadlock:
            if attempt == _DEADLOCK_ATTEMPTS - 1:
                raise
            time.sleep(0.01 * (attempt + 1))
        except (sa.exc.PendingRollbackError, *db_session.OUTAGE_ERRORS,
                db_exc.DBError) as exc:
            # The decision is one transaction: a database gone in the
            # middle of it (the write inside it cannot retry on its own,
            # its transaction is this one) undoes all of it; the caller
            # is told to retry.
            if isinstance(exc, sa.exc.PendingRollbackError) or \
                    db_session.is_outage(exc):
                raise exception.DatabaseUnavailable() from None
            raise
    raise AssertionError('unreachable')


def count_nodes(session: orm.Session, states: Sequence[str]) -> int:
    # A COUNT(*): an int.
    count: int = fast_sqlite.scalar_one(session.connection(), _COUNT,
                                        {'states': list(states)})
    return count


def admit(name: str, states: Sequence[str], limit: int, task_type: str,
          write: Callable[[], T]) -> T:
    """Run ``write`` (which moves a node into ``states``) if fewer than
    ``limit`` nodes are in ``states``, in the same transaction; else
    ConcurrentActionLimit, and nothing is written."""
    def _decide(session: orm.Session) -> T:
        if count_nodes(session, states) >= limit:
            raise exception.ConcurrentActionLimit(task_type=task_type)
        return write()

    return _locked(name, _decide)


def _live_hosts(heartbeat_timeout: float) -> sa.Select[str]:
    deadline = models.utcnow() - datetime.timedelta(
        seconds=heartbeat_timeout)
    return sa.select(models.Conductor.hostname).where(
        models.Conductor.online.is_(True),
        models.Conductor.heartbeat_at > deadline)


def _used(session: orm.Session, name: str, heartbeat_timeout: float) -> int:
    return session.scalar(
        sa.select(sa.func.coalesce(sa.func.sum(FleetSlot.used), 0))
        .where(FleetSlot.name == name,
               FleetSlot.host.in_(_live_hosts(heartbeat_timeout)))) or 0


def _add(session: orm.Session, name: str, host: str, count: int) -> None:
    mine = (FleetSlot.name == name) & (FleetSlot.host == host)
    if count >= 0:
        value = FleetSlot.used + count
    else:
        value = sa.case((FleetSlot.used > -count, FleetSlot.used + count),
                        else_=0)
    if db_session.changed_rows(session.execute(
            sa.update(FleetSlot).where(mine).values(used=value))):
        return
    session.execute(sa.insert(FleetSlot).values(
        name=name, host=host, used=max(count, 0)))


def take_slots(name: str, host: str, wanted: int, limit: int,
               heartbeat_timeout: float) -> int:
    """Take up to ``wanted`` slots for ``host`` so that the slots held by
    live conductors stay within ``limit``; returns how many it took."""
    def _decide(session: orm.Session) -> int:
        granted = max(0, min(wanted, limit - _used(session, name,
                                                   heartbeat_timeout)))
        if granted:
            _add(session, name, host, granted)
        return granted

    return _locked(name, _decide)


def add_slots(name: str, host: str, count: int) -> None:
    """Count slots already in use (found when taking work over), or give
    some back (``count`` < 0), whatever the cap says."""
    _locked(name, lambda session: _add(session, name, host, count))


def reset_slots(name: str, host: str) -> None:
    """Forget what ``host`` held: it starts afresh."""
    with db_session.writer() as session:
        session.execute(sa.delete(FleetSlot).where(
            FleetSlot.name == name, FleetSlot.host == host))


def slots_used(name: str, heartbeat_timeout: float,
               host: str | None = None) -> int:
    """Slots held by live conductors (or by ``host`` alone)."""
    with db_session.reader() as session:
        if host is None:
            return _used(session, name, heartbeat_timeout)
        return session.scalar(
            sa.select(FleetSlot.used).where(FleetSlot.name == name,
                                            FleetSlot.host == host)) or 0
