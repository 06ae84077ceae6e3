"""Freed memory handed back to the system after large answers.

glibc's malloc keeps what a process frees for its next allocations and
returns to the system only what is free at the top of a heap. An API
process that renders thousands of nodes, keeping some (the rendered-node
cache) and freeing the rest, is left with free pages scattered through
its heaps, and its resident memory only grows: the all-in-one's API
process held 288 MiB after 10,000 nodes were listed, 156 MiB once
``malloc_trim(0)`` had handed the free pages back. A trim walks the
heaps (5 to 20 ms for 200 MiB), so a thread of its own does it, at most
once per :data:`MIN_INTERVAL`, after a request asked for one; ctypes
releases the interpreter lock for the call.
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from collections.abc import Callable

LOG = logging.getLogger(__name__)

# Seconds between two trims, however many answers asked.
MIN_INTERVAL = 1.0


def _glibc_malloc_trim() -> Callable[[int], int] | None:
    trim: Callable[[int], int] | None = getattr(ctypes.CDLL(None),
                                                'malloc_trim', None)
    return trim


class Trimmer:
    """Trims the heaps in a thread of its own when asked (:meth:`ask`),
    at most once per ``interval``; asks while a trim waits are one."""

    def __init__(self, trim: Callable[[int], int] | None,
                 interval: float = MIN_INTERVAL) -> None:
        self.trim = trim
        self.interval = interval
        self.trims = 0
        self._asked = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def ask(self) -> None:
        """Have the heaps trimmed soon (nothing without glibc)."""
        if self.trim is None:
            return
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name='heap-trimmer', daemon=True)
                    self._thread.start()
        self._asked.set()

    def _run(self) -> None:
        assert self.trim is not None
        while True:
            self._asked.wait()
            self._asked.clear()
            try:
                self.trim(0)
            except Exception:   # never let the thread die over a trim
                LOG.exception('Could not trim the heap')
            self.trims += 1
            time.sleep(self.interval)   # the rate limit


_TRIMMER = Trimmer(_glibc_malloc_trim())


def give_back_freed_memory() -> None:
    """After an answer that made and dropped many objects (a page of
    hundreds of nodes): trim this process's heaps soon."""
    _TRIMMER.ask()
