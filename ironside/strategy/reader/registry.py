"""The kinds of site design documents Ironside understands, by schema.

A :class:`Kind` names the schemas it reads, checks one document (its
schema and its own rules, every error placed by path and line) and builds
the document's model. A cross-document check looks at the whole design
(the models of every valid document) and reports errors or warnings on
the documents concerned. :mod:`ironside.strategy.reader.kinds` registers
them all; a new kind is a module and one line there.

A document whose schema no kind reads is stored and listed as it is:
Deckhand stores any schema, and so does Ironside.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

from ironside.strategy.core.paths import Path
from ironside.strategy.reader.documents import Adapter
from ironside.strategy.reader.documents import DesignDocument
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector

if TYPE_CHECKING:
    from ironside.strategy.design import Design

# Every problem of one document: (the whole document, its line map, the
# name to call it by if it has none) → errors.
Check = Callable[[Any, Mapping[Path, int], str], list[DocumentError]]
# The model of a document that passed its check.
Build = Callable[[Mapping[str, Any]], Any]


@dataclasses.dataclass(frozen=True)
class Kind:
    # What the design calls the models of this kind: Design.models[name].
    name: str
    schemas: tuple[str, ...]
    check: Check
    build: Build | None = None
    # The whole ``data`` is a secret (Deckhand's passphrases and keys),
    # whatever ``storagePolicy`` says.
    secret: bool = False


class Findings:
    """What cross-document checks found, each on a document and a path."""

    def __init__(self, lines: Callable[[DesignDocument], Mapping[Path, int]]
                 | None = None) -> None:
        self._lines = lines
        self.found: list[tuple[str, DesignDocument, DocumentError]] = []

    def lines_of(self, document: DesignDocument) -> Mapping[Path, int]:
        """The document's line map, where its source is known."""
        return self._lines(document) if self._lines else {}

    def _add(self, severity: str, document: DesignDocument, path: Path,
             message: str) -> None:
        collector = ErrorCollector(document.name, self.lines_of(document))
        collector.add(tuple(path), message)
        self.found.append((severity, document, collector.errors[0]))

    def placed(self, severity: str, document: DesignDocument,
               error: DocumentError) -> None:
        """An error a check placed itself (its document, field, line)."""
        self.found.append((severity, document, error))

    def error(self, document: DesignDocument, path: Path,
              message: str) -> None:
        self._add('error', document, path, message)

    def warning(self, document: DesignDocument, path: Path,
                message: str) -> None:
        self._add('warning', document, path, message)


CrossCheck = Callable[['Design', Findings], None]


class Registry:
    def __init__(self) -> None:
        self._by_schema: dict[str, Kind] = {}
        self._kinds: dict[str, Kind] = {}
        self.cross_checks: list[CrossCheck] = []
        self.adapters: list[Adapter] = []

    def add(self, kind: Kind) -> None:
        if kind.name in self._kinds:
            raise ValueError('kind %s is registered twice' % kind.name)
        for schema in kind.schemas:
            if schema in self._by_schema:
                raise ValueError('schema %s is read by %s already'
                                 % (schema, self._by_schema[schema].name))
        self._kinds[kind.name] = kind
        for schema in kind.schemas:
            self._by_schema[schema] = kind

    def add_cross_check(self, check: CrossCheck) -> None:
        self.cross_checks.append(check)

    def add_adapter(self, adapter: Adapter) -> None:
        self.adapters.append(adapter)

    def kind(self, schema: str) -> Kind | None:
        return self._by_schema.get(schema)

    def kinds(self) -> list[Kind]:
        return list(self._kinds.values())

    def schemas(self) -> list[str]:
        return sorted(self._by_schema)
