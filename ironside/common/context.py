"""Request context: who asks, carried from the API to the conductor."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from oslo_context import context


class RequestContext(context.RequestContext):
    """oslo.context's, plus the fields policy checks need."""

    def to_policy_values(self) -> MutableMapping[str, Any]:
        values = super().to_policy_values()
        values['project_name'] = self.project_name
        return values

    def ensure_thread_contain_context(self) -> None:
        if context.get_current() is None:
            self.update_store()


def get_admin_context() -> RequestContext:
    """A context for work the service does on its own (periodic jobs)."""
    return RequestContext(is_admin=True, roles=['admin'], overwrite=False)
