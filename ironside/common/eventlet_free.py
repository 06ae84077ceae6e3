"""Imports that would load eventlet, made without it.

futurist and oslo.messaging (through oslo.utils) import eventlet
whenever it is installed (it comes with oslo.service), for green threads
Ironside never uses: about 19 MiB that every process loading them keeps,
and ~0.5 s of CPU at its start (issue 27).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def without_eventlet() -> Iterator[None]:
    """Import, inside the block, as if eventlet were not installed.

    A None entry in ``sys.modules`` makes ``import eventlet`` fail; it is
    taken out again when the block ends, for whatever loads eventlet on
    purpose (etcd3gw). If eventlet is loaded already, nothing is hidden.
    """
    if 'eventlet' in sys.modules:
        yield
        return
    sys.modules['eventlet'] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        del sys.modules['eventlet']
