"""Where a tenant VIF is recorded on a port or port group.

Ironic keeps it in ``internal_info['tenant_vif_port_id']``, and older
clients set ``extra['vif_port_id']``; both are read. Shared by the
database queries and the network interfaces, which reach ports only
through their task.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INTERNAL_KEY = 'tenant_vif_port_id'
EXTRA_KEY = 'vif_port_id'


def vif_of(port_like: Mapping[str, Any]) -> str | None:
    """The tenant VIF on a port or port group, if any."""
    return (port_like.get('internal_info') or {}).get(INTERNAL_KEY) or \
        (port_like.get('extra') or {}).get(EXTRA_KEY)
