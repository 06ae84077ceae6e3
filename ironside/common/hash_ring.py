"""Which live conductor owns a node: consistent hashing over conductors.

Each conductor group with each hardware type has its own ring of the live
conductors that serve it. Rings are cached and rebuilt every
``[conductor]hash_ring_reset_interval`` seconds, or at once when asked
(after a conductor joins or dies), so that every process agrees on
ownership within one interval.

The live conductors come from the caller (``live_conductors``: records
with ``hostname``, ``conductor_group`` and ``hardware_types``), so this
module needs no database.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any

from tooz import hashring

from ironside.common import exception
from ironside.common.conf import CONF


class HashRingManager:
    def __init__(self, live_conductors: Callable[[], Iterable[Any]]
                 ) -> None:
        self._live_conductors = live_conductors
        self._lock = threading.Lock()
        self._rings: dict[tuple[str, str], hashring.HashRing] | None = None
        self._built_at = 0.0

    def _build(self) -> dict[tuple[str, str], hashring.HashRing]:
        members: dict[tuple[str, str], set[str]] = {}
        partitions = 2 ** CONF.conductor.hash_partition_exponent
        for conductor in self._live_conductors():
            for hw_type in conductor.hardware_types or ():
                key = (conductor.conductor_group or '', hw_type)
                members.setdefault(key, set()).add(conductor.hostname)
        return {key: hashring.HashRing(hosts, partitions=partitions)
                for key, hosts in members.items()}

    @property
    def rings(self) -> dict[tuple[str, str], hashring.HashRing]:
        with self._lock:
            stale = time.monotonic() - self._built_at > \
                CONF.conductor.hash_ring_reset_interval
            if self._rings is None or stale:
                self._rings = self._build()
                self._built_at = time.monotonic()
            return self._rings

    def reset(self) -> None:
        with self._lock:
            self._rings = None

    def owner(self, node_uuid: str, driver: str,
              conductor_group: str = '') -> str:
        """The live conductor that owns a node."""
        key = ((conductor_group or '').lower(), driver)
        ring = self.rings.get(key)
        if ring is None:
            # The set of conductors may have changed since the last build.
            self.reset()
            ring = self.rings.get(key)
        if ring is None:
            raise exception.NoValidHost(
                reason='no live conductor serves hardware type %s in '
                       'conductor group "%s"' % (driver, key[0]))
        return next(iter(ring.get_nodes(node_uuid.encode())))
