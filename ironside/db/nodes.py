"""Queries on nodes, their traits and their reservations (node locks)."""

from __future__ import annotations

import contextlib
import datetime
import functools
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import NamedTuple

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from ironside.common import exception
from ironside.common import states
from ironside.db import fast_sqlite
from ironside.db import models
from ironside.db import node_rows
from ironside.db import session as db_session

SORTABLE_COLUMNS = frozenset(c.key for c in models.Node.__table__.columns
                             if not isinstance(c.type, models.JsonEncoded))


def _duplicate_error(exc: db_exc.DBDuplicateEntry, values: dict
                     ) -> exception.IronsideException:
    columns = db_session.duplicate_columns(exc)
    if 'name' in columns:
        return exception.DuplicateName(name=values.get('name'))
    if 'instance_uuid' in columns:
        return exception.InstanceAssociated(
            instance_uuid=values.get('instance_uuid'),
            node=values.get('uuid') or values.get('name'))
    return exception.NodeAlreadyExists(uuid=values.get('uuid'))


def create_node(values: dict[str, Any]) -> models.Node:
    """Insert a node; ``traits`` may be given as a list of names."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    values.setdefault('provision_state', states.ENROLL)
    traits = values.pop('traits', None) or []
    node = models.Node(**values)
    node.traits = [models.NodeTrait(trait=t) for t in traits]
    try:
        with db_session.writer() as session:
            session.add(node)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate_error(exc, values) from None
    node_rows.snapshot_json(node)
    return node


def _ident_clause(ident: str | int):
    if isinstance(ident, int):
        return models.Node.id == ident
    if uuidutils.is_uuid_like(ident):
        return models.Node.uuid == ident
    return models.Node.name == ident


# The statements every state change runs (lock, release, save, route),
# built once with bound parameters. A statement built afresh for each
# call costs its construction and its cache key, more than SQLite takes
# to run it; a kept one has both already.
NODES = models.Node.__table__
_IDENT = sa.bindparam('ident')


def _ident_kind(ident: str | int) -> str:
    if isinstance(ident, int):
        return 'id'
    return 'uuid' if uuidutils.is_uuid_like(ident) else 'name'


@functools.cache
def _route_statement(kind: str) -> sa.Select:
    return sa.select(NODES.c.uuid, NODES.c.driver, NODES.c.conductor_group
                     ).where(NODES.c[kind] == _IDENT)


@functools.cache
def _reserve_statement(kind: str, returning: bool) -> sa.Update:
    update = (sa.update(NODES)
              .where(NODES.c[kind] == _IDENT, NODES.c.reservation.is_(None))
              .values(reservation=sa.bindparam('tag')))
    return update.returning(*NODES.c) if returning else update


@functools.cache
def _node_statement(kind: str) -> sa.Select:
    return sa.select(models.Node).where(getattr(models.Node, kind) == _IDENT)


@functools.cache
def _holder_statement(kind: str) -> sa.Select:
    return sa.select(NODES.c.reservation).where(NODES.c[kind] == _IDENT)


_RELEASE = (sa.update(NODES)
            .where(NODES.c.id == sa.bindparam('node_id'),
                   NODES.c.reservation == sa.bindparam('tag'))
            .values(reservation=None))
_INSERT_HISTORY = sa.insert(models.NodeHistory.__table__)
_TRAITS = (sa.select(models.NodeTrait.trait)
           .where(models.NodeTrait.node_id == sa.bindparam('node_id'))
           .order_by(models.NodeTrait.trait))


@functools.cache
def _save_statement(columns: tuple[str, ...]) -> sa.Update:
    """The UPDATE of these columns of one node (parameters ``v_<column>``
    and ``node_id``)."""
    return (sa.update(NODES).where(NODES.c.id == sa.bindparam('node_id'))
            .values({column: sa.bindparam('v_' + column)
                     for column in columns}))


def get_node(ident: str | int) -> models.Node:
    """A node by id, UUID or name; NodeNotFound if there is none."""
    with db_session.reader() as session:
        node = session.scalars(
            sa.select(models.Node).where(_ident_clause(ident))).first()
    if node is None:
        raise exception.NodeNotFound(node=ident)
    return node


def get_nodes_by_ids(node_ids: Sequence[int]) -> list[models.Node]:
    """Several nodes in one query, for jobs that walk many nodes."""
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(models.Node).where(models.Node.id.in_(node_ids))
            .order_by(models.Node.id)))


def get_node_by_instance(instance_uuid: str) -> models.Node:
    with db_session.reader() as session:
        node = session.scalars(sa.select(models.Node).where(
            models.Node.instance_uuid == instance_uuid)).first()
    if node is None:
        raise exception.NodeNotFound(node=instance_uuid)
    return node


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
    the node already, so it skips the ORM and the JSON documents a full
    load would decode.
    """
    with db_session.reader_connection() as connection:
        row = connection.execute(
            _route_statement(_ident_kind(ident)), {'ident': ident}).first()
    if row is None:
        raise exception.NodeNotFound(node=ident)
    return NodeRoute(*row)


def node_id_for(ident: str | int) -> int:
    with db_session.reader() as session:
        node_id = session.scalar(
            sa.select(models.Node.id).where(_ident_clause(ident)))
    if node_id is None:
        raise exception.NodeNotFound(node=ident)
    return node_id


def save_node(node: models.Node,
              history: Iterable[models.NodeHistory | dict[str, Any]] = (),
              release: str | None = None) -> models.Node:
    """Write a node's changed columns, and history records, in one commit.

    ``node`` is a detached instance loaded earlier; only attributes changed
    since it was loaded (or last saved) are written, so a save never
    overwrites columns someone else changed meanwhile, such as the
    reservation. One UPDATE and one INSERT, without an ORM session: the
    conductor saves on every step, and a flush costs several times more.
    With ``release``, the lock that tag holds is given back in the same
    commit (NodeNotLocked after the commit if it did not hold it).
    """
    changed = node_rows.changed_columns(node)
    if changed:
        node.updated_at = changed['updated_at'] = models.utcnow()
    records = [(record if isinstance(record, dict) else
                {key: value for key, value in record.as_dict().items()
                 if key != 'id'}) | {'node_id': node.id}
               for record in history]
    released = True
    try:
        with contextlib.ExitStack() as stack:
            # No transaction when there is nothing to do.
            if changed or records or release is not None:
                connection = stack.enter_context(
                    db_session.writer_connection())
            if changed:
                fast_sqlite.execute(
                    connection, _save_statement(tuple(sorted(changed))),
                    {'node_id': node.id} | {'v_' + column: value
                                            for column, value in
                                            changed.items()})
            if records:
                fast_sqlite.execute(connection, _INSERT_HISTORY, records)
            if release is not None:
                released = _clear_reservation(connection, release, node.id)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate_error(exc, {'name': node.name, 'uuid': node.uuid,
                                     'instance_uuid': node.instance_uuid}
                               ) from None
    node_rows.mark_saved(node, changed)
    if not released:
        raise _not_locked_error(node.id)
    return node


def update_node(ident: str | int, values: dict[str, Any]) -> models.Node:
    """Set columns of a node by id, UUID or name; returns it fresh."""
    values = dict(values)
    traits = values.pop('traits', None)
    try:
        with db_session.writer() as session:
            node = session.scalars(sa.select(models.Node).where(
                _ident_clause(ident)).with_for_update()).first()
            if node is None:
                raise exception.NodeNotFound(node=ident)
            if 'provision_state' in values and \
                    'provision_updated_at' not in values:
                values['provision_updated_at'] = models.utcnow()
            for key, value in values.items():
                setattr(node, key, value)
            if traits is not None:
                _replace_traits(node, traits)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate_error(exc, dict(values, uuid=str(ident))) from None
    node_rows.snapshot_json(node)
    return node


def destroy_node(ident: str | int) -> None:
    """Delete a node and everything that hangs off it."""
    with db_session.writer() as session:
        node_id = session.scalar(
            sa.select(models.Node.id).where(_ident_clause(ident)))
        if node_id is None:
            raise exception.NodeNotFound(node=ident)
        for table in (models.Port, models.Portgroup, models.NodeTrait,
                      models.NodeHistory, models.NodeInventory):
            session.execute(sa.delete(table).where(table.node_id == node_id))
        # As in Ironic, a node's allocation goes with it.
        session.execute(sa.delete(models.Allocation)
                        .where(models.Allocation.node_id == node_id))
        session.execute(sa.delete(models.Node)
                        .where(models.Node.id == node_id))


# Filters understood by list_nodes: name -> function(value) -> clause.
_FILTERS = {
    'provision_state': lambda v: (models.Node.provision_state.in_(v)
                                  if isinstance(v, (list, tuple, set))
                                  else models.Node.provision_state == v),
    'driver': lambda v: models.Node.driver == v,
    'maintenance': lambda v: models.Node.maintenance == bool(v),
    'associated': lambda v: (models.Node.instance_uuid.isnot(None) if v
                             else models.Node.instance_uuid.is_(None)),
    'instance_uuid': lambda v: models.Node.instance_uuid == v,
    'resource_class': lambda v: models.Node.resource_class == v,
    'conductor_group': lambda v: models.Node.conductor_group == v.lower(),
    'fault': lambda v: models.Node.fault == v,
    'owner': lambda v: models.Node.owner == v,
    'lessee': lambda v: models.Node.lessee == v,
    'project': lambda v: sa.or_(models.Node.owner == v,
                                models.Node.lessee == v),
    'chassis_id': lambda v: models.Node.chassis_id == v,
    'retired': lambda v: models.Node.retired == bool(v),
    'reserved': lambda v: (models.Node.reservation.isnot(None) if v
                           else models.Node.reservation.is_(None)),
    'reserved_by': lambda v: models.Node.reservation.in_(v),
    'shard': lambda v: models.Node.shard.in_(v),
    'sharded': lambda v: (models.Node.shard.isnot(None) if v
                          else models.Node.shard.is_(None)),
    'parent_node': lambda v: models.Node.parent_node == v,
    'description_contains': lambda v: models.Node.description.contains(v),
    'instance_name': lambda v: models.Node.instance_name == v,
    'uuid_in': lambda v: models.Node.uuid.in_(v),
    'name_in': lambda v: models.Node.name.in_(v),
    'provisioned_before': lambda v: models.Node.provision_updated_at < v,
    'driver_in': lambda v: models.Node.driver.in_(v),
}


def filter_clauses(filters: dict[str, Any] | None) -> list:
    clauses = []
    for key, value in (filters or {}).items():
        if value is None and key not in ('instance_uuid',):
            continue
        try:
            clauses.append(_FILTERS[key](value))
        except KeyError:
            raise exception.InvalidParameterValue(
                err='Unknown node filter %s' % key) from None
    return clauses


def list_nodes(filters: dict[str, Any] | None = None,
               limit: int | None = None, marker: str | None = None,
               sort_key: str = 'id', sort_dir: str = 'asc'
               ) -> list[models.Node]:
    """Nodes matching ``filters``, one page, in a stable order."""
    if sort_key not in SORTABLE_COLUMNS:
        raise exception.InvalidParameterValue(
            err='The sort_key value "%s" is an invalid field for sorting'
            % sort_key)
    marker_id = node_id_for(marker) if marker else None
    query = sa.select(models.Node).where(*filter_clauses(filters))
    query = db_session.paginate(query, models.Node, limit, marker_id, sort_key,
                     sort_dir)
    with db_session.reader() as session:
        return list(session.scalars(query))


def list_node_columns(columns: Sequence[str],
                      filters: dict[str, Any] | None = None,
                      limit: int | None = None) -> list[sa.Row]:
    """Only some columns of matching nodes: cheap enough for periodic jobs.

    A periodic job that looks at every node of a conductor must not load
    whole nodes (JSON documents and traits) to read a few fields.
    """
    query = sa.select(*[getattr(models.Node, c) for c in columns])\
        .where(*filter_clauses(filters)).order_by(models.Node.id)
    if limit:
        query = query.limit(limit)
    with db_session.reader() as session:
        return list(session.execute(query))


def reserve_node(tag: str, ident: str | int) -> models.Node:
    """Take a node's exclusive lock for ``tag`` (a conductor host).

    One UPDATE that succeeds only if nobody holds the lock: two conductors
    racing for the same node cannot both win. Where the database can
    return the updated row (SQLite, PostgreSQL), that UPDATE also loads
    the node; otherwise a SELECT follows it.
    """
    kind = _ident_kind(ident)
    params = {'ident': ident, 'tag': tag}
    if db_session.get_engine().dialect.update_returning:
        with db_session.writer_connection() as connection:
            row = fast_sqlite.first(connection,
                                    _reserve_statement(kind, True), params)
            if row is not None:
                return node_rows.detached_node(row)
            raise _lock_refused(connection, kind, ident)
    with db_session.writer() as session:
        if session.execute(_reserve_statement(kind, False),
                           params).rowcount != 1:
            raise _lock_refused(session.connection(), kind, ident)
        return session.scalars(_node_statement(kind),
                               {'ident': ident}).one()


def _lock_refused(connection: sa.Connection, kind: str, ident: str | int
                  ) -> exception.IronsideException:
    """Why a node could not be locked: not there, or held (by whom)."""
    holder = connection.execute(_holder_statement(kind),
                                {'ident': ident}).first()
    if holder is None:
        return exception.NodeNotFound(node=ident)
    return exception.NodeLocked(node=ident, host=holder[0])


def _clear_reservation(connection: sa.Connection, tag: str,
                       node_id: int) -> bool:
    return fast_sqlite.execute(connection, _RELEASE,
                               {'node_id': node_id, 'tag': tag}) == 1


def _not_locked_error(node_id: int) -> exception.IronsideException:
    with db_session.reader() as session:
        exists = session.scalar(
            sa.select(models.Node.id).where(models.Node.id == node_id))
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
    with db_session.writer() as session:
        query = sa.select(models.Node.id).where(
            models.Node.reservation.in_(hosts))
        if node_ids is not None:
            query = query.where(models.Node.id.in_(list(node_ids)))
        ids = list(session.scalars(query))
        if ids:
            session.execute(
                sa.update(models.Node)
                .where(models.Node.id.in_(ids),
                       models.Node.reservation.in_(hosts))
                .values(reservation=None)
                .execution_options(synchronize_session=False))
    return ids


def touch_provisioning(node_id: int) -> None:
    """Mark a node's provision state as fresh (resets wait timeouts)."""
    with db_session.writer() as session:
        session.execute(sa.update(models.Node)
                        .where(models.Node.id == node_id)
                        .values(provision_updated_at=models.utcnow())
                        .execution_options(synchronize_session=False))


def stale_nodes(states_: Iterable[str], older_than: datetime.datetime,
                columns: Sequence[str] = ('id', 'uuid')) -> list[sa.Row]:
    """Nodes in ``states_`` whose provision state is older than a time."""
    return list_node_columns(
        columns, {'provision_state': list(states_),
                  'provisioned_before': older_than})


# Traits

def _replace_traits(node: models.Node, traits: Iterable[str]) -> None:
    wanted = list(dict.fromkeys(traits))
    current = {t.trait: t for t in node.traits}
    node.traits = [current.get(t) or models.NodeTrait(trait=t)
                   for t in wanted]


def set_node_traits(node_id: int, traits: Iterable[str]) -> list[str]:
    with db_session.writer() as session:
        node = session.get(models.Node, node_id)
        if node is None:
            raise exception.NodeNotFound(node=node_id)
        _replace_traits(node, traits)
        session.flush()
        return [t.trait for t in node.traits]


def add_node_trait(node_id: int, trait: str) -> None:
    with db_session.writer() as session:
        exists = session.get(models.NodeTrait, (node_id, trait))
        if exists is None:
            session.add(models.NodeTrait(node_id=node_id, trait=trait))


def delete_node_trait(node_id: int, trait: str) -> None:
    with db_session.writer() as session:
        result = session.execute(
            sa.delete(models.NodeTrait)
            .where(models.NodeTrait.node_id == node_id,
                   models.NodeTrait.trait == trait))
        if result.rowcount == 0:
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
    with db_session.reader() as session:
        rows = session.execute(
            sa.select(models.NodeTrait.node_id, models.NodeTrait.trait)
            .where(models.NodeTrait.node_id.in_(list(node_ids)))
            .order_by(models.NodeTrait.node_id, models.NodeTrait.trait))
        for node_id, trait in rows:
            result[node_id].append(trait)
    return result
