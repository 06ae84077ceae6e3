"""The fleet cap in memory, for a runner on its own (the in-memory
twin's tests): :class:`ironside.strategy.run.in_flight.InFlight` without
a database."""

from __future__ import annotations

import threading


class InFlightLimit:
    """How many more nodes may be put in flight, shared by runners."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.used = 0
        self._lock = threading.Lock()

    def try_acquire(self) -> bool:
        with self._lock:
            if self.used >= self.size:
                return False
            self.used += 1
            return True

    def force_acquire(self, count: int) -> None:
        """Count nodes already in flight (found when taking over)."""
        with self._lock:
            self.used += count

    def release(self, count: int = 1) -> None:
        with self._lock:
            self.used = max(0, self.used - count)
