"""Watching asynchronous steps that can say when they end.

A step whose Wait carries a ``watch`` (an agent's command, which the
agent's API can long-poll) is watched by one of a bounded set of
threads, without the node's lock: when the watch says the step may have
ended, the node is polled at once, instead of at its next poll. Polls
stay the rule: a step not watched (the set is full, the conductor
restarted, another took the node over) is polled on its interval.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import futurist

LOG = logging.getLogger(__name__)

# Seconds each call of a watch may wait.
WATCH_SECONDS = 30.0
# Seconds a watch may go on at most (the steps themselves time out).
WATCH_LIMIT = 24 * 3600


class StepWatchers:
    def __init__(self, poll_now: Callable[[str], None], size: int) -> None:
        self._poll_now = poll_now
        self._size = size
        self._running = 0
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._pool = futurist.ThreadPoolExecutor(max_workers=max(1, size))

    def watch(self, node_uuid: str, watch: Callable[[float], bool]) -> None:
        with self._lock:
            if self._stopped.is_set() or self._running >= self._size:
                return
            self._running += 1
        try:
            self._pool.submit(self._run, node_uuid, watch)
        except Exception:
            with self._lock:
                self._running -= 1

    def _run(self, node_uuid: str, watch: Callable[[float], bool]) -> None:
        deadline = time.monotonic() + WATCH_LIMIT
        try:
            while not self._stopped.is_set() and time.monotonic() < deadline:
                if watch(WATCH_SECONDS):
                    if not self._stopped.is_set():
                        self._poll_now(node_uuid)
                    return
        except Exception:
            LOG.exception('Watching the step of node %s failed; its polls '
                          'go on', node_uuid)
        finally:
            with self._lock:
                self._running -= 1

    def stop(self) -> None:
        self._stopped.set()
        self._pool.shutdown(wait=False)
