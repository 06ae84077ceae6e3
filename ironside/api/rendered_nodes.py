"""Nodes' JSON kept from one list answer to the next while they are unchanged.

Clients poll the node list (Nova, operators, dashboards), and between two
polls most nodes have not changed. Rendering a node (masking secrets,
formatting times, building links) and encoding it costs several times
more than reading its row, so a list answer keeps each node's encoded
JSON together with everything it was made from: the row as read, its
traits, the conductor that owns it. The next answer that reads an equal
row, under the same view, sends the kept bytes.

The key is the whole row, compared value by value, not ``updated_at``:
taking and releasing a node's lock does not move ``updated_at``, and on a
database without fractional seconds two writes can share one. A row that
differs in any column is rendered again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Hashable
from collections.abc import Iterator
from typing import Any

from oslo_config import cfg

CONF = cfg.CONF

# Views (version, fields, endpoint, secrets shown) told apart at once.
MAX_VIEWS = 1024

# What an entry holds besides its JSON, its UUID and its source's parts:
# the key and entry tuples and the dictionary's slot.
ENTRY_OVERHEAD = 200


class RenderedNodes:
    """Encoded nodes by (view, UUID), each with the values it came from.

    One entry per node and view: a node's new rendering replaces its old
    one. At most ``capacity`` entries and ``max_bytes`` bytes of them
    (:func:`entry_size`): the oldest go first, and a rendering bigger
    than ``max_bytes`` alone is not kept; a bound of 0 keeps none. The
    bytes bound is the one that holds memory down: a node's JSON is a
    few hundred bytes with a few fields and several KiB whole, more with
    big ``extra`` or ``properties``. Lookups take no lock: a dict read is
    atomic, and an entry is one tuple, replaced whole.
    """

    def __init__(self, capacity: int, max_bytes: int) -> None:
        self.capacity = capacity
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: dict[tuple, tuple[tuple, bytes, int]] = {}
        self._views: dict[Hashable, int] = {}
        self._generation = 0
        self._lock = threading.Lock()

    def view_id(self, view: Hashable) -> int:
        """A small number standing for ``view`` in this cache's keys (a
        view is a tuple of several parts, hashed once per page, not once
        per node)."""
        found = self._views.get(view)
        if found is None:
            with self._lock:
                if len(self._views) >= MAX_VIEWS:
                    # Clients choose fields freely: start afresh rather
                    # than number views without end.
                    self._views.clear()
                    self._entries.clear()
                    self.bytes = 0
                    self._generation += 1
                found = self._views.setdefault(
                    view, self._generation * MAX_VIEWS + len(self._views))
        return found

    def get(self, view: int, uuid: str, source: tuple) -> bytes | None:
        """The node's kept JSON if it was made from ``source``."""
        entry = self._entries.get((view, uuid))
        if entry is None or entry[0] != source:
            return None
        return entry[1]

    def put(self, view: int, uuid: str, source: tuple,
            encoded: bytes) -> None:
        """Keep ``encoded`` (made by :func:`ironside.common.kept_json.dumps`,
        so it holds what :func:`entry_size` counts)."""
        size = entry_size(uuid, source, encoded)
        if not self.capacity or size > self.max_bytes:
            return
        with self._lock:
            entries = self._entries
            # A node rendered again counts as the newest.
            old = entries.pop((view, uuid), None)
            if old is not None:
                self.bytes -= old[2]
            entries[(view, uuid)] = (source, encoded, size)
            self.bytes += size
            excess = len(entries) - self.capacity
            if excess > 0 or self.bytes > self.max_bytes:
                for key in list(self._oldest(max(excess, 0))):
                    self.bytes -= entries.pop(key)[2]

    def _oldest(self, count: int) -> Iterator[tuple[Any, ...]]:
        """The keys of the oldest entries to drop: ``count`` of them, and
        as many more as bring the bytes under ``max_bytes``."""
        freed = 0
        over = self.bytes - self.max_bytes
        for index, (key, entry) in enumerate(self._entries.items()):
            if index >= count and freed >= over:
                return
            freed += entry[2]
            yield key

    def __len__(self) -> int:
        return len(self._entries)


def entry_size(uuid: str, source: tuple, encoded: bytes) -> int:
    """Bytes an entry holds: its JSON, its UUID, its source tuple and
    the strings in it, and :data:`ENTRY_OVERHEAD`."""
    return (sys.getsizeof(encoded) + sys.getsizeof(uuid) +
            sys.getsizeof(source) + ENTRY_OVERHEAD +
            sum(sys.getsizeof(part) for part in source if part is not None))


_CACHE: RenderedNodes | None = None


def cache() -> RenderedNodes:
    """This process's cache, bounded by ``[api]rendered_node_cache_size``
    (nodes) and ``[api]rendered_node_cache_mib``."""
    global _CACHE
    size = CONF.api.rendered_node_cache_size
    max_bytes = CONF.api.rendered_node_cache_mib * 2 ** 20
    if _CACHE is None or (_CACHE.capacity, _CACHE.max_bytes) != (
            size, max_bytes):
        _CACHE = RenderedNodes(size, max_bytes)
    return _CACHE
