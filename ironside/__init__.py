"""Ironside: bare-metal provisioning speaking Ironic's API v1."""

import warnings

# futurist and oslo.service import eventlet when it is installed (it comes
# with oslo.service); Ironside never uses it, so its deprecation notice is
# noise on every command.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
