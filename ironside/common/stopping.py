"""Whether this process began to stop.

A stopping service waits for the calls it is serving; a call that waits
on the world outside (a BMC that does not answer) asks here and gives up
soon, instead of holding the exit for the rest of its budget.
"""

from __future__ import annotations

import time

# When (time.monotonic()) this process began to stop, or None.
_since: float | None = None


def begin() -> None:
    """This process began to stop (the first call counts)."""
    global _since
    if _since is None:
        _since = time.monotonic()


def reset() -> None:
    """A service started (again) in this process: nothing is stopping."""
    global _since
    _since = None


def since() -> float | None:
    """When this process began to stop (time.monotonic()), or None."""
    return _since
