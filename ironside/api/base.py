"""What API resources share."""

from __future__ import annotations


class Resource:
    """A Falcon resource whose changes go to conductors through rpcapi."""

    def __init__(self, rpcapi) -> None:
        self.rpcapi = rpcapi
