"""Document errors, and where they are.

Validation reports every problem of a document at once, each placed in
its document, its group or task, its field and its line, so that the
person who wrote the document can go straight to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import Protocol

from ironside.strategy.core.paths import Path
from ironside.strategy.core.paths import field_name
from ironside.strategy.core.paths import line_of
from ironside.strategy.core.paths import placed


@dataclasses.dataclass(frozen=True)
class DocumentError:
    """One problem in a document, and where it is."""

    document: str
    message: str
    group: str | None = None
    task: str | None = None
    field: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        return placed(self.message, self.document, self.group, self.task,
                      self.field, line=self.line)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Place:
    """What a path inside a document is part of: a group or a task (by
    name), and the rest of the path, which is the field."""

    field_path: Path
    group: str | None = None
    task: str | None = None


# Tells which group or task of its document a path belongs to.
Locator = Callable[[Path], Place]


def whole_document(path: Path) -> Place:
    return Place(path)


def document_name(document: Any, default: str) -> str:
    """``metadata.name`` of a document, or ``default``."""
    if isinstance(document, Mapping):
        metadata = document.get('metadata')
        name = metadata.get('name') if isinstance(metadata, Mapping) \
            else None
        if isinstance(name, str) and name:
            return name
    return default


class ErrorSink(Protocol):
    """Where a check adds errors: an ErrorCollector, or a view of one
    from inside a value of its document."""

    def add(self, path: Path, message: str) -> None: ...


class ErrorCollector:
    """Collects a document's errors, placing each by its path."""

    def __init__(self, name: str, lines: Mapping[Path, int] | None = None,
                 locate: Locator = whole_document) -> None:
        self.name = name
        self.lines = lines or {}
        self.locate = locate
        self.errors: list[DocumentError] = []

    def add(self, path: Path, message: str) -> None:
        path = tuple(path)
        place = self.locate(path)
        self.errors.append(DocumentError(
            self.name, message, group=place.group, task=place.task,
            field=field_name(place.field_path) or None,
            line=line_of(self.lines, path)))

    def sorted(self) -> list[DocumentError]:
        return sorted(self.errors, key=lambda e: e.line or 0)
