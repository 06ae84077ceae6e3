"""Task graph files (and a DeploymentStrategy whose groups they use)
validated together, as ``openstack site task validate FILE...`` asks.

A graph is often split: its groups in one file, its tasks in another.
Read alone, the tasks file names groups it does not define; read with
the groups file it does not. So every document is checked with the
items the others define, and warns only of what none of the files
settles (the site design must). Every problem keeps the file it is in
beside its document, item, field and line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.strategy.core.paths import placed
from ironside.strategy.reader import fuel
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.kinds import REGISTRY
from ironside.strategy.reader.registry import TASK_GRAPH
from ironside.strategy.reader.source import SourceError
from ironside.strategy.reader.source import read_documents


@dataclasses.dataclass(frozen=True)
class FileIssue:
    """A problem of a document, and the file the document is in (None:
    not known)."""

    source: str | None
    error: DocumentError

    def __str__(self) -> str:
        error = self.error
        source = None if self.source == error.document else self.source
        return placed(error.message, error.document, error.group,
                      error.task, error.field, line=error.line,
                      source=source)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.error.as_dict(), source=self.source,
                    text=str(self))


@dataclasses.dataclass(frozen=True)
class Validation:
    errors: list[FileIssue]
    warnings: list[FileIssue]


@dataclasses.dataclass(frozen=True)
class _Read:
    source: str
    document: Any
    lines: Mapping[tuple[Any, ...], int]


def validate(sources: Sequence[tuple[str, Any]]) -> Validation:
    """Errors and warnings of the documents in ``sources`` (file name,
    YAML or JSON text or a parsed document; a text may hold several)."""
    errors: list[FileIssue] = []
    warnings: list[FileIssue] = []
    read: list[_Read] = []
    for source, given in sources:
        read += _parsed(source, given, errors)
    defined = [_defines(one.document) for one in read]
    for index, one in enumerate(read):
        elsewhere: dict[str, str] = {}
        for other, items in enumerate(defined):
            if other != index:
                elsewhere.update(items)
        found, warned = _check(one, elsewhere)
        errors += [FileIssue(one.source, e) for e in found]
        warnings += [FileIssue(one.source, w) for w in warned]
    return Validation(errors, warnings)


def _parsed(source: str, given: Any,
            errors: list[FileIssue]) -> list[_Read]:
    if not isinstance(given, str):
        return [_Read(source, given, {})]
    try:
        return [_Read(source, d.data, d.lines)
                for d in read_documents(given)]
    except SourceError as exc:
        errors.append(FileIssue(source, DocumentError(
            source, 'not valid YAML or JSON: %s' % exc.problem,
            line=exc.line)))
        return []


def _defines(document: Any) -> dict[str, str]:
    """The groups, stages and tasks a document defines: name: kind."""
    kind = REGISTRY.kind_of(document)
    if kind is None or kind.runs_as is None:
        return {}
    if kind.runs_as == TASK_GRAPH:
        return fuel.item_kinds(document)
    return {group['name']: fuel.GROUP
            for group in shipyard.groups_of(document)
            if isinstance(group, Mapping) and
            isinstance(group.get('name'), str)}


def _check(one: _Read, elsewhere: Mapping[str, str]
           ) -> tuple[list[DocumentError], list[DocumentError]]:
    kind = REGISTRY.kind_of(one.document)
    if kind is None or kind.runs_as is None:
        schema = one.document.get('schema') \
            if isinstance(one.document, Mapping) else None
        return [DocumentError(
            document_name(one.document, one.source),
            'not a DeploymentStrategy or a task graph (schema %s)'
            % (schema,))], []
    if kind.runs_as == TASK_GRAPH:
        return fuel.check(one.document, one.lines, one.source,
                          elsewhere=elsewhere)
    return kind.check(one.document, one.lines, one.source), []
