"""The firmware components a node reports, cached for the API.

Ironic reads a node's firmware versions when cleaning starts and after
firmware changed; ``GET /v1/nodes/{node}/firmware`` answers from that
cache, never from the BMC. Each component keeps the version first seen
(``initial_version``), the one now (``current_version``) and the last
one that replaced another (``last_version_flashed``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ironside.common import exception
from ironside.db import models
from ironside.drivers import base

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)


def cache_components(task: TaskManager) -> None:
    """Read the node's firmware versions into its cache; a firmware
    interface that reads none, or a BMC that fails to answer, leaves the
    cache as it is (it is information, not a reason to fail a flow)."""
    node = task.node
    try:
        found = task.driver.firmware.read_components(task)
    except exception.UnsupportedDriverExtension:
        return
    except Exception as exc:
        LOG.warning('Node %s: firmware versions not read: %s', node.uuid,
                    exc)
        return
    now = models.utcnow().isoformat()
    cached = {c['component']: dict(c) for c in
              node.driver_internal_info.get(base.FIRMWARE_COMPONENTS_KEY)
              or []}
    for component, version in found.items():
        entry = cached.get(component)
        if entry is None:
            cached[component] = {
                'component': component, 'initial_version': version,
                'current_version': version, 'last_version_flashed': None,
                'created_at': now, 'updated_at': None}
        elif entry['current_version'] != version:
            entry.update(current_version=version,
                         last_version_flashed=version, updated_at=now)
    node.driver_internal_info[base.FIRMWARE_COMPONENTS_KEY] = [
        cached[name] for name in sorted(cached)]
