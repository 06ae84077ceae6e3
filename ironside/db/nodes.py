"""Nodes as objects: read, create, change, lock, release and delete them.

The one way a node is written. Every write is a statement built once and
kept (see :mod:`ironside.db.fast_sqlite`), run on a
:func:`~ironside.db.session.writer_connection`; no ORM session flushes a
node. A node object (:class:`~ironside.db.models.Node`) is detached: it
is built from its row (:func:`~ironside.db.node_rows.detached_node`),
changed by setting attributes, and written by :func:`save_node`, which
sends only the columns changed since it was read. Every write of a
node's columns adds one to its ``row_version``; the API changes data
fields of an idle node without its lock by comparing and setting that
version (:func:`merge_node`).

Names say what a read returns: ``get_…`` a node object (or a list of
them) to change and save; ``select_…`` rows of some columns, to read
(here :func:`select_node_columns`; the API's in
:mod:`ironside.db.node_views`).
"""

from __future__ import annotations

import datetime
import functools
import random
import threading
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import NamedTuple

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from ironside.common import exception
from ironside.common import metrics
from ironside.common import states
from ironside.common.conf import CONF
from ironside.db import fast_sqlite
from ironside.db import models
from ironside.db import node_filters
from ironside.db import node_rows
from ironside.db import resources
from ironside.db import session as db_session

NODES = resources.table(models.Node)
TRAITS = resources.table(models.NodeTrait)
_IDENT: sa.BindParameter[str | int] = sa.bindparam('ident')


def ident_column(ident: str | int) -> str:
    """The column a node's id, UUID or name is looked up in."""
    if isinstance(ident, int):
        return 'id'
    return 'uuid' if uuidutils.is_uuid_like(ident) else 'name'


def _duplicate_error(exc: db_exc.DBDuplicateEntry, values: Mapping[str, Any]
                     ) -> exception.IronsideException:
    columns = db_session.duplicate_columns(exc)
    if 'name' in columns:
        return exception.DuplicateName(name=values.get('name'))
    if 'instance_uuid' in columns:
        return exception.InstanceAssociated(
            instance_uuid=values.get('instance_uuid'),
            node=values.get('uuid') or values.get('name'))
    return exception.NodeAlreadyExists(uuid=values.get('uuid'))


# The statements every state change runs (read, lock, save, release,
# route), built once with bound parameters. A statement built afresh for
# each call costs its construction and its cache key, more than SQLite
# takes to run it; a kept one has both already.

@functools.cache
def _row_statement(column: str) -> db_session.AnySelect:
    """Every column of the node whose ``column`` is ``ident``, in the
    table's order (what :func:`node_rows.detached_node` takes)."""
    return sa.select(*NODES.c).where(NODES.c[column] == _IDENT)


@functools.cache
def _route_statement(column: str) -> db_session.AnySelect:
    return sa.select(NODES.c.uuid, NODES.c.driver, NODES.c.conductor_group
                     ).where(NODES.c[column] == _IDENT)


@functools.cache
def _reserve_statement(column: str, returning: bool) -> sa.Update:
    update = (sa.update(NODES)
              .where(NODES.c[column] == _IDENT,
                     NODES.c.reservation.is_(None))
              .values(reservation=sa.bindparam('tag')))
    return update.returning(*NODES.c) if returning else update


@functools.cache
def _holder_statement(column: str) -> db_session.AnySelect:
    return sa.select(NODES.c.reservation).where(NODES.c[column] == _IDENT)


@functools.cache
def _insert_statement(returning: bool) -> sa.Insert:
    insert = sa.insert(NODES)
    return insert.returning(*NODES.c) if returning else insert


@functools.cache
def _save_statement(columns: tuple[str, ...], if_unchanged: bool = False
                    ) -> sa.Update:
    """The UPDATE of these columns of one node (parameters ``v_<column>``
    and ``node_id``), which adds one to its row version. With
    ``if_unchanged``, only while the row is at the version read
    (``read_version``) and nobody holds the node's lock."""
    where = [NODES.c.id == sa.bindparam('node_id')]
    if if_unchanged:
        where += [NODES.c.row_version == sa.bindparam('read_version'),
                  NODES.c.reservation.is_(None)]
    values: dict[str, Any] = {column: sa.bindparam('v_' + column)
                              for column in columns}
    values['row_version'] = NODES.c.row_version + 1
    return sa.update(NODES).where(*where).values(values)


_RELEASE = (sa.update(NODES)
            .where(NODES.c.id == sa.bindparam('node_id'),
                   NODES.c.reservation == sa.bindparam('tag'))
            .values(reservation=None))
_RELEASE_HOSTS = (sa.update(NODES)
                  .where(NODES.c.id.in_(sa.bindparam('ids', expanding=True)),
                         NODES.c.reservation.in_(
                             sa.bindparam('hosts', expanding=True)))
                  .values(reservation=None))
_UNLINK_ALLOCATION = (
    sa.update(NODES)
    .where(NODES.c.allocation_id == sa.bindparam('allocation'))
    .values(allocation_id=None, instance_uuid=None,
            row_version=NODES.c.row_version + 1))
_INSERT_HISTORY = sa.insert(resources.table(models.NodeHistory))
_INSERT_TRAIT = sa.insert(TRAITS)
_ID = sa.select(NODES.c.id).where(NODES.c.id == sa.bindparam('node_id'))


# Reads of node objects

def get_node(ident: str | int) -> models.Node:
    """A node by id, UUID or name; NodeNotFound if there is none."""
    with db_session.reader_connection() as connection:
        row = fast_sqlite.first(connection,
                                _row_statement(ident_column(ident)),
                                {'ident': ident})
    if row is None:
        raise exception.NodeNotFound(node=ident)
    return node_rows.detached_node(row)


def get_nodes_by_ids(node_ids: Sequence[int]) -> list[models.Node]:
    """Several nodes in one query, for jobs that walk many nodes."""
    query = sa.select(*NODES.c).where(NODES.c.id.in_(list(node_ids))) \
        .order_by(NODES.c.id)
    with db_session.reader_connection() as connection:
        rows = connection.execute(query).all()
    return [node_rows.detached_node(row) for row in rows]


class NodeRoute(NamedTuple):
    """What picks a node's conductor on the hash ring."""

    uuid: str
    driver: str
    conductor_group: str | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> NodeRoute:
        """The route of a node the caller has just read whole."""
        return cls(row['uuid'], row['driver'], row['conductor_group'])


def node_route(ident: str | int) -> NodeRoute:
    """What routing a call for a node needs: uuid, driver, conductor_group.

    Read on every API call that reaches a conductor that has not read
    the node already, so it skips the JSON documents a whole row holds.
    """
    with db_session.reader_connection() as connection:
        row = connection.execute(
            _route_statement(ident_column(ident)), {'ident': ident}).first()
    if row is None:
        raise exception.NodeNotFound(node=ident)
    return NodeRoute(*row)


# Reads of rows

def select_node_columns(columns: Sequence[str],
                        filters: dict[str, Any] | None = None,
                        limit: int | None = None) -> list[db_session.AnyRow]:
    """Only some columns of matching nodes: cheap enough for periodic jobs.

    A periodic job that looks at every node of a conductor must not load
    whole nodes (JSON documents and traits) to read a few fields.
    """
    query = sa.select(*[NODES.c[column] for column in columns])\
        .where(*node_filters.clauses(filters)).order_by(NODES.c.id)
    if limit:
        query = query.limit(limit)
    with db_session.reader_connection() as connection:
        return list(connection.execute(query))


def select_stale_nodes(states_: Iterable[str], older_than: datetime.datetime,
                       columns: Sequence[str] = ('id', 'uuid')
                       ) -> list[db_session.AnyRow]:
    """Nodes in ``states_`` whose provision state is older than a time."""
    return select_node_columns(
        columns, {'provision_state': list(states_),
                  'provisioned_before': older_than})


# Writes

def create_node(values: dict[str, Any]) -> models.Node:
    """Insert a node (``traits`` may be given as a list of names); the
    node as stored, with its defaults."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    values.setdefault('provision_state', states.ENROLL)
    traits = list(dict.fromkeys(values.pop('traits', None) or ()))
    returning = db_session.get_engine().dialect.insert_returning
    try:
        with db_session.writer_connection() as connection:
            row = fast_sqlite.first(connection, _insert_statement(True),
                                    values) if returning else None
            if not returning:
                fast_sqlite.execute(connection, _insert_statement(False),
                                    values)
                row = fast_sqlite.first(connection, _row_statement('uuid'),
                                        {'ident': values['uuid']})
            # The row was inserted on this connection just now.
            assert row is not None
            node = node_rows.detached_node(row)
            if traits:
                fast_sqlite.execute(connection, _INSERT_TRAIT,
                                    [{'node_id': node.id, 'trait': trait}
                                     for trait in traits])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate_error(exc, values) from None
    return node


def save_node(node: models.Node,
              history: Iterable[models.NodeHistory | dict[str, Any]] = (),
              release: str | None = None) -> models.Node:
    """Write a node's changed columns, and history records, in one commit.

    ``node`` was read earlier (:func:`get_node`, :func:`reserve_node`,
    :func:`create_node`); only attributes changed since it was read (or
    last saved) are written, so a save never overwrites columns someone
    else changed meanwhile, such as the reservation. One UPDATE and one
    INSERT, without an ORM session: the conductor saves on every step,
    and a flush costs several times more. With ``release``, the lock
    that tag holds is given back in the same commit (NodeNotLocked after
    the commit if it did not hold it). Inside another write block, the
    writes are that block's.
    """
    changed = node_rows.changed_columns(node)
    if changed:
        node.updated_at = changed['updated_at'] = models.utcnow()
    records = [(record if isinstance(record, dict) else
                {key: value for key, value in record.as_dict().items()
                 if key != 'id'}) | {'node_id': node.id}
               for record in history]
    released = True
    # No transaction when there is nothing to do.
    if changed or records or release is not None:
        try:
            with db_session.writer_connection() as connection:
                if changed:
                    _write_columns(connection, node.id, changed)
                if records:
                    fast_sqlite.execute(connection, _INSERT_HISTORY, records)
                if release is not None:
                    released = _clear_reservation(connection, release,
                                                  node.id)
        except db_exc.DBDuplicateEntry as exc:
            raise _duplicate_error(exc, {'name': node.name,
                                         'uuid': node.uuid,
                                         'instance_uuid': node.instance_uuid}
                                   ) from None
    if changed:
        # Exact when nobody else wrote the node meanwhile (its lock's
        # holder is the only writer of most columns).
        changed['row_version'] = node.row_version + 1
    node_rows.mark_saved(node, changed)
    if not released:
        raise _not_locked_error(node.id)
    return node


def _write_columns(connection: sa.Connection, node_id: int,
                   values: Mapping[str, Any],
                   read_version: int | None = None) -> bool:
    """The one UPDATE of a node's columns; with ``read_version``, only
    if the row is still at that version and unlocked. Whether it wrote."""
    params = {'node_id': node_id} | {'v_' + column: value
                                     for column, value in values.items()}
    if read_version is not None:
        params['read_version'] = read_version
    statement = _save_statement(tuple(sorted(values)),
                                read_version is not None)
    return fast_sqlite.execute(connection, statement, params) == 1


def unlink_allocation(allocation_id: int) -> None:
    """Nodes of an allocation being deleted lose it, and their instance
    (as in Ironic); part of the caller's write block."""
    with db_session.writer_connection() as connection:
        fast_sqlite.execute(connection, _UNLINK_ALLOCATION,
                            {'allocation': allocation_id})


def destroy_node(ident: str | int) -> None:
    """Delete a node and everything that hangs off it."""
    column = ident_column(ident)
    with db_session.writer_connection() as connection:
        row = connection.execute(
            sa.select(NODES.c.id).where(NODES.c[column] == ident)).first()
        if row is None:
            raise exception.NodeNotFound(node=ident)
        node_id = row[0]
        for model in (models.Port, models.Portgroup, models.NodeTrait,
                      models.NodeHistory, models.NodeInventory):
            table = resources.table(model)
            connection.execute(sa.delete(table)
                               .where(table.c.node_id == node_id))
        # As in Ironic, a node's allocation goes with it.
        allocations = resources.table(models.Allocation)
        connection.execute(sa.delete(allocations)
                           .where(allocations.c.node_id == node_id))
        connection.execute(sa.delete(NODES).where(NODES.c.id == node_id))


# Changes of idle nodes without their lock (the API's PATCH of data)

# Times a change is computed again because another process wrote the
# node between its read and its write, before the caller gets a 409.
MERGE_ATTEMPTS = 20
# The writers of one node in this process take turns (a lock per stripe
# of node ids), so they never make each other compute again.
_MERGE_TURNS = tuple(threading.Lock() for _ in range(64))


def merge_node(node_id: int, read: Callable[[], dict[str, Any]],
               change: Callable[[dict[str, Any]], Mapping[str, Any]]
               ) -> None:
    """Change an idle node without taking its lock: compare and set.

    The lock is a conductor's, held as long as an operation takes; a
    change of data fields (extra, properties, ...) needs no conductor,
    and taking the lock for it made concurrent edits of different fields
    refuse each other. Here ``read()`` gives the node's row (with at
    least ``uuid``, ``reservation`` and ``row_version``), ``change(row)``
    the columns to write, computed from that row (it raises to refuse),
    and one UPDATE writes them only if the row is still at the version
    read and no conductor holds the node. If another writer came first,
    all three run again on the node as it now is: edits of different
    fields all land, and an edit that no longer applies fails in
    ``change`` as it would have the first time.

    A node a conductor holds is waited for as a conductor waits for a
    lock (``[conductor]node_locked_retry_attempts`` and ``_interval``),
    then NodeLocked names the holder, as read. After MERGE_ATTEMPTS
    writes lost to other processes, ChangedMeanwhile.
    """
    turn = _MERGE_TURNS[node_id % len(_MERGE_TURNS)]
    lock_waits = conflicts = 0
    while True:
        with turn:
            row = read()
            holder = row['reservation']
            if holder is None:
                values = dict(change(row))
                if not values or _write_if_unchanged(node_id, row, values):
                    return
        if holder is not None:
            lock_waits += 1
            refused = lock_waits > CONF.conductor.node_locked_retry_attempts
            # A conflict with a task's lock, as a task meeting it counts it.
            metrics.lock_conflict(refused)
            if refused:
                raise exception.NodeLocked(node=row['uuid'], host=holder)
            time.sleep(CONF.conductor.node_locked_retry_interval or 0.05)
            continue
        conflicts += 1
        if conflicts >= MERGE_ATTEMPTS:
            raise exception.ChangedMeanwhile(
                kind='Node', ident=row['uuid'],
                fields=', '.join(sorted(values)))
        # Apart, so that other processes' writers do not meet again.
        time.sleep(random.uniform(0, 0.002 * conflicts))


def _write_if_unchanged(node_id: int, row: Mapping[str, Any],
                        values: dict[str, Any]) -> bool:
    values = values | {'updated_at': models.utcnow()}
    try:
        with db_session.writer_connection() as connection:
            return _write_columns(connection, node_id, values,
                                  row['row_version'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate_error(exc, {'uuid': row['uuid']} | values
                               ) from None


# Locks

# Times a lock is tried while its holders release it between the try and
# the read of who holds it.
_RESERVE_ATTEMPTS = 5


def reserve_node(tag: str, ident: str | int) -> models.Node:
    """Take a node's exclusive lock for ``tag`` (a conductor host).

    One UPDATE that succeeds only if nobody holds the lock: two conductors
    racing for the same node cannot both win. Where the database can
    return the updated row (SQLite, PostgreSQL), that UPDATE also reads
    the node; otherwise a SELECT follows it.

    A refused lock is explained by one more read: the node is gone, or
    held by the host it names. A holder that released the node between
    the UPDATE and that read left it free: the UPDATE is tried again
    (a 409 never says "locked by host None").
    """
    column = ident_column(ident)
    params = {'ident': ident, 'tag': tag}
    returning = db_session.get_engine().dialect.update_returning
    with db_session.writer_connection() as connection:
        for _attempt in range(_RESERVE_ATTEMPTS):
            if returning:
                row = fast_sqlite.first(
                    connection, _reserve_statement(column, True), params)
            elif fast_sqlite.execute(connection,
                                     _reserve_statement(column, False),
                                     params) == 1:
                row = connection.execute(_row_statement(column),
                                         {'ident': ident}).first()
            else:
                row = None
            if row is not None:
                return node_rows.detached_node(row)
            found = connection.execute(_holder_statement(column),
                                       {'ident': ident}).first()
            if found is None:
                raise exception.NodeNotFound(node=ident)
            if found[0] is not None:
                raise exception.NodeLocked(node=ident, host=found[0])
    raise exception.NodeLocked(node=ident, host='(several, one after another)')


def _clear_reservation(connection: sa.Connection, tag: str,
                       node_id: int) -> bool:
    return fast_sqlite.execute(connection, _RELEASE,
                               {'node_id': node_id, 'tag': tag}) == 1


def _not_locked_error(node_id: int) -> exception.IronsideException:
    with db_session.reader_connection() as connection:
        exists = connection.execute(_ID, {'node_id': node_id}).first()
    if exists is None:
        return exception.NodeNotFound(node=node_id)
    return exception.NodeNotLocked(node=node_id)


def release_node(tag: str, node_id: int) -> None:
    """Give a node's lock back; NodeNotLocked if ``tag`` did not hold it."""
    with db_session.writer_connection() as connection:
        released = _clear_reservation(connection, tag, node_id)
    if not released:
        raise _not_locked_error(node_id)


def release_reservations_of(hosts: Iterable[str],
                            node_ids: Iterable[int] | None = None
                            ) -> list[int]:
    """Clear locks held by ``hosts`` (dead or restarted conductors).

    Returns the ids of the nodes whose lock was cleared.
    """
    hosts = list(hosts)
    if not hosts:
        return []
    query = sa.select(NODES.c.id).where(NODES.c.reservation.in_(hosts))
    if node_ids is not None:
        query = query.where(NODES.c.id.in_(list(node_ids)))
    with db_session.writer_connection() as connection:
        ids = list(connection.execute(query).scalars())
        if ids:
            fast_sqlite.execute(connection, _RELEASE_HOSTS,
                                {'ids': ids, 'hosts': hosts})
    return ids


# Traits: rows of node_traits, written on the same connections.

_TRAITS = (sa.select(TRAITS.c.trait)
           .where(TRAITS.c.node_id == sa.bindparam('node_id'))
           .order_by(TRAITS.c.trait))
_DELETE_TRAITS = sa.delete(TRAITS).where(
    TRAITS.c.node_id == sa.bindparam('node_id'),
    TRAITS.c.trait.in_(sa.bindparam('traits', expanding=True)))


def _require_node(connection: sa.Connection, node_id: int) -> None:
    if connection.execute(_ID, {'node_id': node_id}).first() is None:
        raise exception.NodeNotFound(node=node_id)


# As Ironic: Placement takes at most 50 traits of a resource provider.
MAX_TRAITS_PER_NODE = 50


def _check_trait_count(node_id: int, count: int) -> None:
    if count > MAX_TRAITS_PER_NODE:
        raise exception.InvalidParameterValue(
            err='Could not modify traits for node %d as it would exceed the '
                'maximum number of traits per node (%d vs. %d)'
                % (node_id, count, MAX_TRAITS_PER_NODE))


def set_node_traits(node_id: int, traits: Iterable[str]) -> list[str]:
    """Replace a node's traits; the traits, in the order given (a trait
    kept keeps the time it was added)."""
    wanted = list(dict.fromkeys(traits))
    _check_trait_count(node_id, len(wanted))
    with db_session.writer_connection() as connection:
        _require_node(connection, node_id)
        current = set(connection.execute(_TRAITS,
                                          {'node_id': node_id}).scalars())
        gone = sorted(current - set(wanted))
        if gone:
            connection.execute(_DELETE_TRAITS,
                               {'node_id': node_id, 'traits': gone})
        new = [trait for trait in wanted if trait not in current]
        if new:
            fast_sqlite.execute(connection, _INSERT_TRAIT,
                                [{'node_id': node_id, 'trait': trait}
                                 for trait in new])
    return wanted


def add_node_trait(node_id: int, trait: str) -> None:
    with db_session.writer_connection() as connection:
        _require_node(connection, node_id)
        current = connection.execute(_TRAITS,
                                     {'node_id': node_id}).scalars().all()
        if trait not in current:
            _check_trait_count(node_id, len(current) + 1)
            fast_sqlite.execute(connection, _INSERT_TRAIT,
                                {'node_id': node_id, 'trait': trait})


def delete_node_trait(node_id: int, trait: str) -> None:
    with db_session.writer_connection() as connection:
        deleted = connection.execute(
            _DELETE_TRAITS, {'node_id': node_id, 'traits': [trait]}).rowcount
    if deleted == 0:
        raise exception.NodeTraitNotFound(node_id=node_id, trait=trait)


def get_node_traits(node_id: int) -> list[str]:
    with db_session.reader_connection() as connection:
        return list(connection.execute(_TRAITS,
                                       {'node_id': node_id}).scalars())


def traits_by_node(node_ids: Sequence[int]) -> dict[int, list[str]]:
    """Traits of many nodes in one query (for list responses)."""
    result: dict[int, list[str]] = {i: [] for i in node_ids}
    if not node_ids:
        return result
    query = (sa.select(TRAITS.c.node_id, TRAITS.c.trait)
             .where(TRAITS.c.node_id.in_(list(node_ids)))
             .order_by(TRAITS.c.node_id, TRAITS.c.trait))
    with db_session.reader_connection() as connection:
        for node_id, trait in connection.execute(query):
            result[node_id].append(trait)
    return result
