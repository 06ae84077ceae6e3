"""The task a driver is handed: its one view of the conductor.

Below ``base`` and the modules ``base`` is built from, which all take a
task; ``base`` re-exports it, and drivers name it ``base.Task``.
"""

from __future__ import annotations

from typing import Any
from typing import Protocol


class Task(Protocol):
    """What a driver may touch of the conductor's task on a node: the
    node (a database record the conductor saves), the node's interfaces
    by type, the request's context, whether the lock is shared, and the
    node's ports and volume targets. Nothing else of the conductor."""

    node: Any
    driver: Any
    context: Any
    shared: bool

    @property
    def ports(self) -> list[dict[str, Any]]: ...

    @property
    def portgroups(self) -> list[dict[str, Any]]: ...

    @property
    def volume_targets(self) -> list[dict[str, Any]]: ...

    def update_port(self, kind: str, port_id: int,
                    values: dict[str, Any]) -> None: ...
