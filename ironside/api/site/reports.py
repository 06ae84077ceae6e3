"""A site action's report as the API shows it: design secrets masked.

A task's fields may be computed from the design's secrets (a command
built from a password in a Config document); the report shows what each
expression computed, so every secret value of the action's design
revision is masked wherever it appears in the report, as in a design's
documents.
"""

from __future__ import annotations

from typing import Any

from ironside.common.secrets import MASK
from ironside.common.secrets import mask_secrets
from ironside.strategy import actions
from ironside.strategy.designs import masking
from ironside.strategy.designs import store
from ironside.strategy.nodes import seam


def _secrets(revision: int) -> tuple[Any, ...]:
    """The secret values of a revision's documents."""
    _, documents = store.documents(revision, None)
    return tuple(value for document in documents
                 for value in masking.secret_values(document))


def _masked(value: Any, secrets: tuple[Any, ...]) -> Any:
    if isinstance(value, dict):
        return {k: _masked(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, secrets) for v in value]
    if isinstance(value, str):
        return masking.redact(value, secrets) if secrets else value
    if isinstance(value, (int, float)) and not isinstance(value, bool) \
            and value in secrets:
        return MASK
    return value


def report(uuid: str, nodes: seam.NodeBackend | None = None
           ) -> dict[str, Any]:
    """The report of action ``uuid``, its secrets masked."""
    built = actions.action_report(uuid, nodes)
    revision = built.get('revision')
    secrets = _secrets(revision) if revision is not None else ()
    return _masked(mask_secrets(built), secrets)
