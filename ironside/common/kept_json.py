"""JSON encoded to be kept: orjson's output in an allocation of its own
length.

orjson returns its output buffer as the bytes object without giving
back what it reserved beyond the end: 4 KiB for ``{}``, 32 KiB for a
document of 3 KiB (orjson 3.13). A short-lived answer body does not
mind; bytes that are kept do. The API keeps a page's renderings until
the page is answered (1,000 of them at once) and the rendered-node
cache keeps them for good; a conductor keeps a fingerprint of every
JSON column of every node it holds, to find what a save must write.
So those are copied once into bytes of their own length (one memcpy).
``bytes(encoded)`` would return the same object, hence the memoryview.
"""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any, option: int | None = None) -> bytes:
    """``orjson.dumps(value, option=option)``, holding only its length
    (raises what orjson raises)."""
    return bytes(memoryview(orjson.dumps(value, option=option)))
