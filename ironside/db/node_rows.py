"""A node's row without a session: a node built from a row, the columns
it changed since, and the values a save wrote.

Every node object is built here from its row (:mod:`ironside.db.nodes`
reads, locks and saves nodes with statements built once, never with the
ORM's flush): a detached node and what changed on it. The documents (JSON
columns) are compared with a snapshot taken when the node was built.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.ext.mutable import MutableList

from ironside.common import kept_json
from ironside.db.models import JsonDict
from ironside.db.models import JsonEncoded
from ironside.db.models import JsonList
from ironside.db.models import Node
from ironside.db.models import TrackedDict

NODE_COLUMNS = frozenset(c.key for c in Node.__table__.columns)
JSON_COLUMNS = tuple(c.key for c in Node.__table__.columns
                     if isinstance(c.type, JsonEncoded))


_FINGERPRINT = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _fingerprint(value: Any) -> bytes | str:
    """What a JSON document is, to compare with what it was.

    orjson, about ten times faster than json: a node's documents are
    compared at every save. A document orjson cannot take (an integer
    beyond 64 bits) falls back to json; a fingerprint of one kind never
    equals one of the other, so at worst that document is written again.
    Kept compact (:mod:`ironside.common.kept_json`): every node held keeps
    one per document.
    """
    try:
        return kept_json.dumps(value, option=_FINGERPRINT)
    except TypeError:
        return json.dumps(value, sort_keys=True)


def _snapshot_json(node: Node) -> None:
    """Remember the JSON columns as loaded; see changed_columns."""
    node.__dict__['_json_snapshot'] = {
        key: _fingerprint(node.__dict__.get(key))
        for key in JSON_COLUMNS if key in node.__dict__}


_NODE_MAPPER = sa.inspect(Node)
# (attribute, what its stored value becomes) for each nodes column, in
# the table's order.
_NODE_ROW = tuple(
    (_NODE_MAPPER.get_property_by_column(column).key,
     TrackedDict if isinstance(column.type, JsonDict) else
     MutableList if isinstance(column.type, JsonList) else None)
    for column in Node.__table__.columns)


def detached_node(row: Sequence[Any]) -> Node:
    """A node as a query would load it, from a row of every nodes column
    (in the table's order), without a session.

    The lock's ``UPDATE ... RETURNING`` gives the whole row; making the
    object here costs a fraction of the ORM statement that would load
    it. Like a loaded node once its session is gone, it is detached; its
    documents are not tracked (:func:`changed_columns` compares them).
    """
    # A process whose first use of the ORM is this (a conductor just
    # started, locking a node for its first RPC) must configure the
    # mappers first: until then the attributes have no implementation.
    # Once they are configured, this returns at once.
    orm.configure_mappers()
    node = _NODE_MAPPER.class_manager.new_instance()
    values = node.__dict__
    for (key, wrap), value in zip(_NODE_ROW, row, strict=True):
        values[key] = value if wrap is None or value is None \
            else wrap(value)
    orm.make_transient_to_detached(node)
    _snapshot_json(node)
    return node


def changed_columns(node: Node) -> dict[str, Any]:
    """Columns of a detached node changed since it was loaded or saved.

    Attribute history catches assignments; JSON documents are compared
    with their snapshot from load time, so a change at any depth (a step
    appending to a list inside driver_internal_info) is caught too, and
    unchanged documents stay out of the UPDATE.
    """
    state = sa.inspect(node)
    changed = {key: node.__dict__[key] for key in state.committed_state
               if key in NODE_COLUMNS and key in node.__dict__}
    loaded = node.__dict__.get('_json_snapshot', {})
    for key in JSON_COLUMNS:
        if key in node.__dict__ and key not in changed and \
                loaded.get(key) != _fingerprint(node.__dict__[key]):
            changed[key] = node.__dict__[key]
    return changed


def mark_saved(node: Node, values: dict[str, Any]) -> None:
    """The node's values are what the database now holds.

    Only the documents just written are snapshotted again: the others
    still equal their snapshot (changed_columns compared them).
    """
    snapshot = node.__dict__.setdefault('_json_snapshot', {})
    for key, value in values.items():
        orm.attributes.set_committed_value(node, key, value)
        if key in JSON_COLUMNS:
            snapshot[key] = _fingerprint(value)
