"""What changed between two versions of a design.

Documents are matched by schema and name. One in the new version only is
``added``, in the base only ``removed``; one in both is ``unmodified`` if
its content (its hash) and collection are the same, else ``modified``,
with every changed path and its old and new values (secrets masked).
Collections are ``created``, ``deleted``, ``modified`` or ``unmodified``,
as Deckhand reports buckets. Only modified documents are decoded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common.secrets import MASK
from ironside.strategy.core.paths import Path
from ironside.strategy.core.paths import field_name
from ironside.strategy.designs import masking
from ironside.strategy.reader.documents import DesignDocument

ADDED = 'added'
REMOVED = 'removed'
MODIFIED = 'modified'
UNMODIFIED = 'unmodified'
CHANGED = 'changed'

CREATED = 'created'
DELETED = 'deleted'

_ABSENT = object()


@dataclasses.dataclass(frozen=True)
class Change:
    path: str
    change: str  # added, removed or changed
    old: Any = None
    new: Any = None

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = {'path': self.path, 'change': self.change}
        if self.change != ADDED:
            value['old'] = self.old
        if self.change != REMOVED:
            value['new'] = self.new
        return value


@dataclasses.dataclass(frozen=True)
class DocumentDiff:
    collection: str
    schema: str
    name: str
    status: str
    changes: tuple[Change, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {'collection': self.collection, 'schema': self.schema,
                'name': self.name, 'status': self.status,
                'changes': [c.as_dict() for c in self.changes]}


def _paths(old: Any, new: Any, path: Path) -> Iterator[Path]:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
            if before == after:
                continue
            if before is _ABSENT:
                yield path + (key,), ADDED, None, after
            elif after is _ABSENT:
                yield path + (key,), REMOVED, before, None
            else:
                yield from _paths(before, after, path + (key,))
    elif isinstance(old, list) and isinstance(new, list) and \
            len(old) == len(new):
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            if before != after:
                yield from _paths(before, after, path + (index,))
    else:
        yield path, CHANGED, old, new


def changes(old: DesignDocument, new: DesignDocument) -> tuple[Change, ...]:
    """The changed paths of a document, values masked where secret."""
    found = []
    if old.collection != new.collection:
        found.append(Change('(collection)', CHANGED, old.collection,
                            new.collection))
    for path, kind, before, after in _paths(dict(old.body), dict(new.body),
                                            ()):
        secret = masking.secret_path(old, path) or \
            masking.secret_path(new, path)
        found.append(Change(
            field_name(path), kind,
            MASK if secret and kind != ADDED
            else masking.shown_value(old, path, before),
            MASK if secret and kind != REMOVED
            else masking.shown_value(new, path, after)))
    return tuple(found)


# A document of a collection as a bucket status compares it: (schema,
# name, hash).
DocumentKey = tuple[str, str, str]


def collection_statuses(base: Mapping[str, frozenset[DocumentKey]],
                        new: Mapping[str, frozenset[DocumentKey]]
                        ) -> dict[str, str]:
    """Deckhand's bucket statuses, from each collection's (schema, name,
    hash) set."""
    statuses = {}
    for collection in sorted(set(base) | set(new)):
        if collection not in base:
            statuses[collection] = CREATED
        elif collection not in new:
            statuses[collection] = DELETED
        elif base[collection] == new[collection]:
            statuses[collection] = UNMODIFIED
        else:
            statuses[collection] = MODIFIED
    return statuses


def document_statuses(base: Sequence[Any], new: Sequence[Any]
                      ) -> list[tuple[str, Any, Any]]:
    """(status, base row, new row) per document, from rows that have
    collection, schema, name and hash; new order first, then removed."""
    old_by_key = {(r.schema, r.name): r for r in base}
    result = []
    seen = set()
    for row in new:
        key = (row.schema, row.name)
        seen.add(key)
        old = old_by_key.get(key)
        if old is None:
            result.append((ADDED, None, row))
        elif old.hash == row.hash and old.collection == row.collection:
            result.append((UNMODIFIED, old, row))
        else:
            result.append((MODIFIED, old, row))
    result.extend((REMOVED, row, None) for row in base
                  if (row.schema, row.name) not in seen)
    return result
