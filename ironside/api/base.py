"""What API resources share."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI


class Resource:
    """A Falcon resource whose changes go to conductors through rpcapi."""

    def __init__(self, rpcapi: ConductorAPI) -> None:
        self.rpcapi = rpcapi
