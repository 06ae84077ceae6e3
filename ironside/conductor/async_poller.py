"""Polls asynchronous steps when they are due, not on a fixed sweep.

A step that returns ``poll_later`` is scheduled here for its interval; a
single thread sleeps until the earliest poll is due and hands it to the
worker pool. Waiting nodes of other (dead) conductors are adopted by the
takeover job, which schedules them here too.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

from ironside.common import exception

LOG = logging.getLogger(__name__)

# Seconds to wait before retrying a poll that found no free worker.
BUSY_RETRY = 0.5


class AsyncStepPoller:
    def __init__(self, submit: Callable[[Callable[[], None]], None],
                 poll_node: Callable[[str], None]) -> None:
        self._submit = submit
        self._poll_node = poll_node
        self._heap: list[tuple[float, int, str]] = []
        self._due: dict[str, float] = {}
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopped = False
        self._thread = threading.Thread(target=self._loop,
                                        name='async-step-poller',
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def is_scheduled(self, node_uuid: str) -> bool:
        with self._cond:
            return node_uuid in self._due

    def schedule(self, node_uuid: str, delay: float) -> None:
        """Poll ``node_uuid`` in ``delay`` seconds (sooner wins)."""
        due = time.monotonic() + max(0.0, delay)
        with self._cond:
            current = self._due.get(node_uuid)
            if current is not None and current <= due:
                return
            self._due[node_uuid] = due
            heapq.heappush(self._heap, (due, next(self._counter), node_uuid))
            self._cond.notify()

    def _next_due(self) -> str | None:
        with self._cond:
            while not self._stopped:
                if not self._heap:
                    self._cond.wait()
                    continue
                due, _, node_uuid = self._heap[0]
                if self._due.get(node_uuid) != due:
                    heapq.heappop(self._heap)  # superseded entry
                    continue
                wait = due - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                del self._due[node_uuid]
                return node_uuid
        return None

    def _loop(self) -> None:
        while True:
            node_uuid = self._next_due()
            if node_uuid is None:
                return
            try:
                self._submit(functools.partial(self._poll_node, node_uuid))
            except exception.NoFreeConductorWorker:
                self.schedule(node_uuid, BUSY_RETRY)
            except Exception:
                LOG.exception('Could not poll node %s', node_uuid)
