"""The ``redfish`` vendor interface: where out-of-tree steps plug in.

It has no steps of its own. A plugin subclasses it, adds methods
decorated with ``@deploy_step`` / ``@clean_step`` that use :func:`call`
to reach the node's system through the cached sushy connection, and
registers the subclass under ``ironside.hardware.interfaces.vendor``;
the redfish hardware type accepts any subclass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import TypeVar

from ironside.drivers import base
from ironside.drivers.modules.redfish import common

T = TypeVar('T')


class RedfishVendor(base.VendorInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task, method: str | None = None,
                 **kwargs: Any) -> None:
        common.parse_driver_info(task.node)

    def call(self, task: base.Task, action: str, func: Callable[[object], T]
            ) -> T:
        """``func(system)`` on the node's sushy System, with the retries,
        reconnection and error translation of the redfish interfaces."""
        return common.call(task, action, func)
