"""glibc's malloc tuned for a long-running Python server: its arenas
capped at start, and freed memory handed back after large answers.

Arenas: glibc makes up to 8 per core, one for each thread that allocates
while another does, and each keeps what its threads freed; Python's
threads take turns holding the interpreter lock, so more arenas buy
little (``[DEFAULT]malloc_arena_max``).

Trimming: glibc's malloc keeps what a process frees for its next
allocations and returns to the system only what is free at the top of a
heap. An API process that renders thousands of nodes, keeping some (the
rendered-node cache) and freeing the rest, is left with free pages
scattered through its heaps, and its resident memory only grows: the
all-in-one's API process held 288 MiB after 10,000 nodes were listed,
156 MiB once ``malloc_trim(0)`` had handed the free pages back. A trim
walks the heaps (5 to 20 ms for 200 MiB), so a thread of its own does
it, at most once per :data:`MIN_INTERVAL`, after a request asked for
one; ctypes releases the interpreter lock for the call.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import time
from collections.abc import Callable

LOG = logging.getLogger(__name__)

# Seconds between two trims, however many answers asked.
MIN_INTERVAL = 1.0


# mallopt(3)'s parameter for the most arenas (glibc's malloc.h).
_M_ARENA_MAX = -8


def _libc_function(name: str) -> Callable[..., int] | None:
    """A function of this process's C library; None where it has none
    of that name (not glibc)."""
    found: Callable[..., int] | None = getattr(ctypes.CDLL(None), name,
                                               None)
    return found


def limit_arenas(count: int) -> bool:
    """Cap glibc malloc's arenas at ``count`` for this process and those
    it forks, before its threads make them; False where that is not done:
    ``count`` 0, MALLOC_ARENA_MAX set (glibc applied it at start), or a C
    library without glibc's mallopt."""
    if not count or 'MALLOC_ARENA_MAX' in os.environ:
        return False
    mallopt = _libc_function('mallopt')
    if mallopt is None or not mallopt(_M_ARENA_MAX, count):
        LOG.warning('Could not limit malloc arenas to %d: this C library '
                    'has no glibc mallopt', count)
        return False
    return True


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


_TRIMMER = Trimmer(_libc_function('malloc_trim'))


def give_back_freed_memory() -> None:
    """After an answer that made and dropped many objects (a page of
    hundreds of nodes): trim this process's heaps soon."""
    _TRIMMER.ask()
