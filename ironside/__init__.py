"""Ironside: bare-metal provisioning speaking Ironic's API v1."""

import sys
import warnings

# futurist and oslo.service import eventlet when it is installed (it comes
# with oslo.service); Ironside never uses it, so its deprecation notice is
# noise on every command.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

# futurist imports eventlet whenever it is installed, for green executors
# Ironside never uses: ~0.5 s of CPU at every start, and memory each
# process keeps (issue 27). Hidden from that one import (a None entry in
# sys.modules makes ``import eventlet`` fail), and back for whatever loads
# it on purpose (oslo.messaging, in the processes that use it).
if 'futurist' not in sys.modules and 'eventlet' not in sys.modules:
    sys.modules['eventlet'] = None  # type: ignore[assignment]
    try:
        import futurist  # noqa: F401
    finally:
        del sys.modules['eventlet']
