"""The fleet cap: how many nodes site actions have in flight at once
(being prepared or deployed, or running a task), whatever the groups'
strategies ask for (``[site]max_nodes_in_flight``).

:class:`FleetInFlight` holds it across every conductor that runs site
actions: each conductor's slots are a row in the database, taken and
given back under the cap's row lock (:mod:`ironside.db.fleet`), and only
live conductors' rows count, so the slots of a conductor that died come
back when its heartbeat times out (the one that takes its actions over
counts their nodes in flight again). A runner takes any :class:`InFlight`
(the tests give one a cap in memory).
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

from ironside.common.conf import CONF
from ironside.db import fleet as fleet_db

SITE_IN_FLIGHT = 'site_in_flight'


class InFlight(Protocol):
    """How many more nodes may be put in flight, shared by runners."""

    def try_acquire(self) -> bool:
        """Take a slot, if one is free."""

    def force_acquire(self, count: int) -> None:
        """Count nodes already in flight (found when taking over)."""

    def release(self, count: int = 1) -> None:
        """Give slots back."""


class FleetInFlight:
    """The cap shared by the runners of every conductor, in the database.

    Once the cap is found full, this conductor does not ask again for a
    short while (``[site]node_poll_interval``) unless it gave a slot back
    itself: runners try every waiting node on every round, and the
    database should not hear each try.
    """

    def __init__(self, host: str, size: int | None = None) -> None:
        self.host = host
        self._size = size
        self._full_until = 0.0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return self._size or CONF.site.max_nodes_in_flight

    @property
    def used(self) -> int:
        """Slots this conductor holds."""
        return fleet_db.slots_used(SITE_IN_FLIGHT, 0, host=self.host)

    def reset(self) -> None:
        """Forget slots a previous run of this conductor held."""
        fleet_db.reset_slots(SITE_IN_FLIGHT, self.host)

    def try_acquire(self) -> bool:
        with self._lock:
            if time.monotonic() < self._full_until:
                return False
            if fleet_db.take_slots(SITE_IN_FLIGHT, self.host, 1, self.size,
                                   CONF.conductor.heartbeat_timeout):
                return True
            self._full_until = time.monotonic() + \
                CONF.site.node_poll_interval
            return False

    def force_acquire(self, count: int) -> None:
        if count:
            fleet_db.add_slots(SITE_IN_FLIGHT, self.host, count)

    def release(self, count: int = 1) -> None:
        if count:
            fleet_db.add_slots(SITE_IN_FLIGHT, self.host, -count)
        with self._lock:
            self._full_until = 0.0
