"""The kinds of site design documents Ironside understands: the one place
that tells what kind a document is.

A :class:`Kind` names the schemas it reads (and, for a document that has
no schema, whether it recognises it: a plain list of Fuel tasks), checks
one document (its schema and its own rules, every error placed by path
and line) and builds the document's model. Every reader registers its
kind in :mod:`ironside.strategy.reader.kinds`; a design's documents, the
documents an action is given directly, and each reader's own text
loader all ask the kind (:meth:`Kind.reads`, :meth:`Registry.kind_of`).

A document whose schema no kind reads is stored and listed as it is:
Deckhand stores any schema, and so does Ironside.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

from ironside.strategy.core.paths import Path
from ironside.strategy.reader.documents import Adapter
from ironside.strategy.reader.errors import DocumentError

# What a site action runs a document of a kind as (the ``kind`` of the
# documents it stores with its plan).
STRATEGY = 'strategy'
TASK_GRAPH = 'task_graph'

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
    # A document without a schema that is of this kind anyway.
    recognises: Callable[[Any], bool] | None = None
    # STRATEGY or TASK_GRAPH: an action runs documents of this kind.
    runs_as: str | None = None

    def reads(self, document: Any) -> bool:
        """Whether a parsed document is of this kind."""
        if isinstance(document, Mapping):
            return document.get('schema') in self.schemas
        return self.recognises is not None and self.recognises(document)


class Registry:
    def __init__(self) -> None:
        self._by_schema: dict[str, Kind] = {}
        self._kinds: dict[str, Kind] = {}
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

    def add_adapter(self, adapter: Adapter) -> None:
        self.adapters.append(adapter)

    def kind(self, schema: str) -> Kind | None:
        return self._by_schema.get(schema)

    def kind_of(self, document: Any) -> Kind | None:
        """The kind of a parsed document: by its schema, or, without
        one, the kind that recognises it."""
        if isinstance(document, Mapping):
            schema = document.get('schema')
            return self._by_schema.get(schema) \
                if isinstance(schema, str) else None
        return next((k for k in self._kinds.values() if k.reads(document)),
                    None)

    def named(self, name: str) -> Kind | None:
        return self._kinds.get(name)

    def kinds(self) -> list[Kind]:
        return list(self._kinds.values())

    def schemas(self) -> list[str]:
        return sorted(self._by_schema)
