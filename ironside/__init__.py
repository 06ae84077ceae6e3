"""Ironside: bare-metal provisioning speaking Ironic's API v1."""

import sys
import warnings

from ironside.common.eventlet_free import without_eventlet

# futurist and oslo.service import eventlet when it is installed (it comes
# with oslo.service); Ironside never uses it, so its deprecation notice is
# noise on every command.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

# futurist would load eventlet (see ironside.common.eventlet_free).
if 'futurist' not in sys.modules:
    with without_eventlet():
        import futurist  # noqa: F401
