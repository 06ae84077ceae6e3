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

import threading
from collections.abc import Hashable
from collections.abc import Iterator
from typing import Any

from oslo_config import cfg

CONF = cfg.CONF

# Views (version, fields, endpoint, secrets shown) told apart at once.
MAX_VIEWS = 1024


class RenderedNodes:
    """Encoded nodes by (view, UUID), each with the values it came from.

    One entry per node and view: a node's new rendering replaces its old
    one. At most ``capacity`` entries (the oldest go first); 0 keeps none.
    Lookups take no lock: a dict read is atomic, and an entry is one
    tuple, replaced whole.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: dict[tuple, tuple[tuple, bytes]] = {}
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
        if not self.capacity:
            return
        with self._lock:
            entries = self._entries
            entries[(view, uuid)] = (source, encoded)
            excess = len(entries) - self.capacity
            if excess > 0:
                for key in list(_first(entries, excess)):
                    del entries[key]

    def __len__(self) -> int:
        return len(self._entries)


def _first(entries: dict[tuple[Any, ...], Any], count: int
           ) -> Iterator[tuple[Any, ...]]:
    for index, key in enumerate(entries):
        if index == count:
            return
        yield key


_CACHE: RenderedNodes | None = None


def cache() -> RenderedNodes:
    """This process's cache, sized by ``[api]rendered_node_cache_size``."""
    global _CACHE
    size = CONF.api.rendered_node_cache_size
    if _CACHE is None or _CACHE.capacity != size:
        _CACHE = RenderedNodes(size)
    return _CACHE
