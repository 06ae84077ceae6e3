"""Ironside: bare-metal provisioning speaking Ironic's API v1."""

import contextlib
import sys
import warnings
from collections.abc import Iterator

# futurist and oslo.service import eventlet when it is installed (it comes
# with oslo.service); Ironside never uses it, so its deprecation notice is
# noise on every command.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')


@contextlib.contextmanager
def without_eventlet() -> Iterator[None]:
    """Import, inside the block, as if eventlet were not installed.

    futurist and oslo.messaging (through oslo.utils) import eventlet
    whenever it is installed, for green threads Ironside never uses:
    about 19 MiB that every process loading them keeps, and ~0.5 s of
    CPU at its start (issue 27). A None entry in ``sys.modules`` makes
    ``import eventlet`` fail; it is taken out again when the block ends,
    for whatever loads eventlet on purpose (etcd3gw). If eventlet is
    loaded already, nothing is hidden.
    """
    if 'eventlet' in sys.modules:
        yield
        return
    sys.modules['eventlet'] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        del sys.modules['eventlet']


if 'futurist' not in sys.modules:
    with without_eventlet():
        import futurist  # noqa: F401
