"""The design store: the buffer, commits, and any version's documents.

As Shipyard's configdocs over Deckhand: a collection is created or
replaced in the buffer; the buffer is the committed design with the
staged collections in place of theirs; a commit validates every document
of the buffer together and writes the next revision, or refuses, naming
each problem's document, field and line, and changes nothing. A buffer
that changes nothing refuses to commit. Warnings refuse a commit too,
unless it is forced; errors always do.

Validation first runs without line numbers (fast); only when it finds
problems are the staged sources read again with line maps to place them.
A revision keeps the texts it was committed from (each stored once, by
its hash, as the documents are), so that an error an action finds in a
revision is placed on its line too (:func:`revision_lines`).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import logging
import re
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import NamedTuple

from oslo_utils import uuidutils

from ironside.common import exception
from ironside.db import designs as designs_db
from ironside.strategy.core.paths import Path
from ironside.strategy.designs import design as design_model
from ironside.strategy.designs import diff as design_diff
from ironside.strategy.designs import masking
from ironside.strategy.designs import validation
from ironside.strategy.designs import versions
from ironside.strategy.designs.checks import LinesOf
from ironside.strategy.reader import documents as reader
from ironside.strategy.reader.documents import DesignDocument
from ironside.strategy.reader.documents import DesignIssue
from ironside.strategy.reader.documents import Source
from ironside.strategy.reader.kinds import REGISTRY

LOG = logging.getLogger(__name__)

COLLECTION_PATTERN = re.compile(r'^[A-Za-z0-9._~-]{1,255}$')


class Row(NamedTuple):
    """Where a document is in a version, and its content's hash (a tuple:
    versions have thousands)."""

    collection: str
    position: int
    schema: str
    name: str
    hash: str
    source: int | None = None
    source_index: int | None = None


@dataclasses.dataclass(frozen=True)
class VersionRows:
    version: versions.Version
    revision: int | None  # None: the buffer
    rows: list[Row]

    def collections(self) -> dict[str, frozenset[design_diff.DocumentKey]]:
        found: dict[str, set[design_diff.DocumentKey]] = {}
        for row in self.rows:
            found.setdefault(row.collection, set()).add(
                (row.schema, row.name, row.hash))
        return {c: frozenset(v) for c, v in found.items()}


@dataclasses.dataclass(frozen=True)
class StagedCollection:
    collection: str
    # created, modified or deleted (against the committed design), or
    # unmodified (it equals the committed one again: no longer staged).
    status: str
    documents: int


@dataclasses.dataclass(frozen=True)
class CommitResult:
    revision: int | None  # None: a dry run
    documents: int
    issues: list[DesignIssue]
    forced: bool = False


@dataclasses.dataclass(frozen=True)
class DesignDiff:
    base: versions.Version
    base_revision: int | None  # None: the buffer
    new: versions.Version
    new_revision: int | None
    collections: dict[str, str]
    documents: list[design_diff.DocumentDiff]


# Rows of versions

def _committed_rows(revision: int) -> list[Row]:
    return [Row(*r) for r in designs_db.revision_rows(revision)]


def _buffer_rows(base: Sequence[Row], staged: set[str]) -> list[Row]:
    rows = [r for r in base if r.collection not in staged]
    rows.extend(Row(r.collection, r.position, r.schema, r.name, r.hash,
                    r.source, r.source_index)
                for r in designs_db.buffer_rows(sorted(staged)))
    rows.sort(key=lambda r: (r.collection, r.position))
    return rows


def version_rows(version: versions.Version, empty_ok: bool = False
                 ) -> VersionRows:
    revision = versions.revision_of(version, empty_ok)
    if revision is not None:
        return VersionRows(version, revision, _committed_rows(revision))
    staged = {c.collection for c in designs_db.buffer_collections()}
    base = _committed_rows(designs_db.latest_revision())
    return VersionRows(version, None, _buffer_rows(base, staged))


def _documents(rows: Sequence[Row],
               sources: Mapping[str, list[dict[str, str]]] | None = None
               ) -> list[DesignDocument]:
    texts = designs_db.bodies(r.hash for r in rows)
    documents = []
    for row in rows:
        body = json.loads(texts[row.hash])
        source_name = None
        found = (sources or {}).get(row.collection) or []
        if row.source is not None and row.source < len(found):
            source_name = found[row.source]['name']
        documents.append(DesignDocument(
            row.collection, row.schema, row.name, body, row.hash,
            row.source, row.source_index, source_name))
    return documents


def documents(version: versions.Version = versions.COMMITTED,
              collection: str | None = None
              ) -> tuple[int | None, list[DesignDocument]]:
    """The revision a version is (None: the buffer) and its documents,
    all or one collection's, unmasked: callers show them through
    :func:`ironside.strategy.designs.masking.masked_body`."""
    found = version_rows(version)
    rows = [r for r in found.rows
            if collection is None or r.collection == collection]
    return found.revision, _documents(rows)


def design(version: versions.Version = versions.COMMITTED
           ) -> design_model.Design:
    """The design of a version, its models built; a revision's documents
    were validated when it was committed."""
    found = version_rows(version)
    sources = designs_db.revision_sources(found.revision) \
        if found.revision else {}
    return design_model.load(_documents(found.rows, sources), found.revision)


def revision_lines(revision: int) -> LinesOf:
    """Line maps of a revision's documents, from the texts it was
    committed from (none for a revision committed before they were
    kept). Slow: only to place an error."""
    stored = designs_db.revision_sources(revision)
    texts = designs_db.bodies(source['hash'] for found in stored.values()
                              for source in found)
    return _lines({(collection, index): texts[source['hash']]
                   for collection, found in stored.items()
                   for index, source in enumerate(found)})


# The buffer

def _check_collection(collection: str) -> None:
    if not COLLECTION_PATTERN.match(collection or ''):
        raise exception.InvalidParameterValue(
            err='Invalid collection name "%s": use 1 to 255 letters, '
                'digits, ".", "_", "~" or "-"' % collection)


def stage(collection: str, sources: Sequence[Source], empty: bool = False
          ) -> StagedCollection:
    """Create or replace ``collection`` in the buffer.

    The sources' documents must parse and be Deckhand documents, each
    schema and name once. With no documents, ``empty`` must be given:
    the collection is then removed from the design at the next commit.
    """
    _check_collection(collection)
    found, issues = reader.read_collection(collection, sources,
                                           REGISTRY.adapters)
    if issues:
        raise exception.InvalidDesign(
            'Collection %s was not added to the buffer' % collection,
            issues)
    if not found and not empty:
        raise exception.InvalidParameterValue(
            err='Collection %s has no documents; to remove it from the '
                'design, stage it empty' % collection)
    if found and empty:
        raise exception.InvalidParameterValue(
            err='Collection %s was to be staged empty, but its sources '
                'hold %d documents' % (collection, len(found)))
    new = frozenset((d.schema, d.name, d.hash) for d in found)
    committed = [r for r in _committed_rows(designs_db.latest_revision())
                 if r.collection == collection]
    before = frozenset((r.schema, r.name, r.hash) for r in committed) \
        if committed else None
    current = before or frozenset()
    if any(c.collection == collection
           for c in designs_db.buffer_collections()):
        current = frozenset((r.schema, r.name, r.hash) for r in
                            designs_db.buffer_rows([collection]))
    if new == current:
        raise exception.DesignCollectionUnchanged(collection=collection)
    if new == (before or frozenset()):
        designs_db.unstage(collection)
        status = design_diff.UNMODIFIED
    else:
        texts = {}
        rows = []
        for position, document in enumerate(found):
            texts[document.hash] = reader.canonical(document.body)
            rows.append({'position': position, 'source': document.source,
                         'source_index': document.source_index,
                         'schema': document.schema, 'name': document.name,
                         'hash': document.hash})
        designs_db.stage(collection, uuidutils.generate_uuid(dashed=False),
                         [{'name': s.name, 'text': s.text} for s in sources],
                         rows, texts)
        status = design_diff.DELETED if not found else \
            design_diff.CREATED if before is None else design_diff.MODIFIED
    LOG.info('Collection %s staged (%s, %d documents)', collection, status,
             len(found))
    return StagedCollection(collection, status, len(found))


@dataclasses.dataclass(frozen=True)
class BufferCollection:
    collection: str
    status: str
    documents: int
    staged_at: datetime.datetime


def buffer() -> list[BufferCollection]:
    """The staged collections and how each differs from the committed
    design; empty when the buffer holds no change."""
    committed = version_rows(versions.COMMITTED, empty_ok=True).collections()
    staged = version_rows(versions.BUFFER).collections()
    statuses = design_diff.collection_statuses(committed, staged)
    return [BufferCollection(c.collection, statuses.get(
        c.collection, design_diff.UNMODIFIED), len(staged.get(
            c.collection, ())), c.updated_at or c.created_at)
        for c in designs_db.buffer_collections()]


def discard() -> None:
    """Empty the buffer."""
    designs_db.discard_buffer()
    LOG.info('Design buffer discarded')


# Commit

def _lines_of(collections: set[str]) -> LinesOf:
    """Line maps of the staged sources of these collections."""
    return _lines({(collection, index): source['text']
                   for collection in collections
                   for index, source in enumerate(
                       designs_db.buffer_sources(collection))})


def _lines(texts: Mapping[tuple[str, int], str]) -> LinesOf:
    """Line maps of documents, from the texts of their sources by
    (collection, source number)."""
    maps = {key: reader.source_lines(text) for key, text in texts.items()}

    def lines(document: DesignDocument) -> Mapping[Path, int]:
        if document.source is None or document.source_index is None:
            return {}
        found = maps.get((document.collection, document.source), [])
        if document.source_index >= len(found):
            return {}
        adapted = ('schema',) not in found[document.source_index]
        return reader.lines_of(found, document.source_index, adapted)
    return lines


def _count(number: int, what: str) -> str:
    return '%d %s%s' % (number, what, '' if number == 1 else 's')


def _sort_key(issue: DesignIssue) -> tuple[str, str, int]:
    return (issue.collection or '', issue.source or '',
            issue.error.line or 0)


def commit(force: bool = False, dry_run: bool = False) -> CommitResult:
    """Validate the buffer and commit it as the next revision.

    Raises DesignBufferEmpty when the buffer changes nothing,
    InvalidDesign listing every error (and, unless ``force``, every
    warning), DesignChanged if the buffer or the committed design changed
    meanwhile. ``dry_run`` validates and commits nothing.
    """
    staged = designs_db.buffer_collections()
    base = designs_db.latest_revision()
    committed = _committed_rows(base)
    rows = _buffer_rows(committed, {c.collection for c in staged})
    if not staged or VersionRows(versions.BUFFER, None, rows).collections() \
            == VersionRows(versions.COMMITTED, base, committed).collections():
        raise exception.DesignBufferEmpty()
    sources = {c.collection: designs_db.buffer_sources(c.collection)
               for c in staged}
    found = _documents(rows, sources)
    checked = validation.validate(found)
    if checked.errors or (checked.warnings and not force):
        checked = validation.validate(found, _lines_of(
            {i.collection for i in checked.issues if i.collection}))
    issues = sorted(checked.issues, key=_sort_key)
    errors = [i for i in issues if i.severity == reader.ERROR]
    if errors or (issues and not force):
        warnings = len(issues) - len(errors)
        what = 'Design commit refused: %s, %s' % (
            _count(len(errors), 'error'), _count(warnings, 'warning'))
        if not errors:
            what += ' (commit with force to accept warnings)'
        raise exception.InvalidDesign(what, issues)
    if dry_run:
        return CommitResult(None, len(rows), issues, force and bool(issues))
    kept, texts = _kept_sources(base, sources, {r.collection for r in rows})
    number = designs_db.commit(
        base, {c.collection: c.token for c in staged},
        [{'collection': r.collection, 'position': r.position,
          'schema': r.schema, 'name': r.name, 'hash': r.hash,
          'source': r.source, 'source_index': r.source_index}
         for r in rows], [str(i) for i in issues], bool(issues),
        kept, texts)
    LOG.info('Design revision %d committed: %d documents, %d warnings%s',
             number, len(rows), len(issues),
             ' (forced)' if issues else '')
    return CommitResult(number, len(rows), issues, bool(issues))


def _kept_sources(base: int, staged: Mapping[str, list[dict[str, str]]],
                  collections: set[str]
                  ) -> tuple[dict[str, list[dict[str, str]]], dict[str, str]]:
    """The texts a new revision keeps, by collection ({"name", "hash"}):
    the staged collections' own, the others' those of the revision
    before; and the staged texts by hash, to store."""
    before = designs_db.revision_sources(base)
    kept: dict[str, list[dict[str, str]]] = {}
    texts: dict[str, str] = {}
    for collection in sorted(collections):
        if collection not in staged:
            if collection in before:
                kept[collection] = before[collection]
            continue
        kept[collection] = []
        for source in staged[collection]:
            digest = reader.digest(source['text'])
            texts[digest] = source['text']
            kept[collection].append({'name': source['name'],
                                     'hash': digest})
    return kept, texts


# Diff

def diff(base: versions.Version = versions.COMMITTED,
         new: versions.Version = versions.BUFFER) -> DesignDiff:
    """Every document's status between two versions, with the changed
    paths of modified ones (secrets masked)."""
    base_rows = version_rows(base, empty_ok=True)
    new_rows = version_rows(new, empty_ok=True)
    statuses = design_diff.document_statuses(base_rows.rows, new_rows.rows)
    modified = [(old, row) for status, old, row in statuses
                if status == design_diff.MODIFIED]
    decoded = {}
    if modified:
        texts = designs_db.bodies([o.hash for o, _ in modified] +
                                  [n.hash for _, n in modified])
        decoded = {h: json.loads(t) for h, t in texts.items()}
    result = []
    for status, old, row in statuses:
        where = row or old
        changes: tuple[design_diff.Change, ...] = ()
        if status == design_diff.MODIFIED:
            changes = design_diff.changes(
                DesignDocument(old.collection, old.schema, old.name,
                               decoded[old.hash], old.hash),
                DesignDocument(row.collection, row.schema, row.name,
                               decoded[row.hash], row.hash))
        result.append(design_diff.DocumentDiff(
            where.collection, where.schema, where.name, status, changes))
    return DesignDiff(
        versions.parse(base), base_rows.revision, versions.parse(new),
        new_rows.revision, design_diff.collection_statuses(
            base_rows.collections(), new_rows.collections()), result)


def shown(document: DesignDocument) -> dict[str, Any]:
    """A document as the API shows it: where it is, and its body with
    secrets masked."""
    return {'collection': document.collection, 'schema': document.schema,
            'name': document.name, 'document': masking.masked_body(document)}


def render(version: versions.Version = versions.COMMITTED
           ) -> tuple[design_model.Design, list[DesignIssue]]:
    """The design of a version as site actions read it. The buffer is
    validated on the way (its issues are returned); a revision was
    validated when it was committed."""
    found = version_rows(version)
    if found.revision is not None:
        return design_model.load(_documents(found.rows), found.revision), []
    checked = validation.validate(_documents(found.rows))
    return checked.design, sorted(checked.issues, key=_sort_key)


# Revisions

@dataclasses.dataclass(frozen=True)
class Tag:
    tag: str
    action: str | None
    created_at: datetime.datetime


@dataclasses.dataclass(frozen=True)
class RevisionInfo:
    number: int
    created_at: datetime.datetime
    documents: int
    forced: bool
    warnings: list[str]
    tags: list[Tag]
    # Only for one revision: documents per collection, and the site
    # actions that ran it: (uuid, action, state, result).
    collections: dict[str, int] | None = None
    actions: list[tuple[str, str, str, str | None]] | None = None


def _infos(rows: Sequence[Any]) -> list[RevisionInfo]:
    tags: dict[int, list[Tag]] = {}
    for tag in designs_db.tags([r.id for r in rows]):
        tags.setdefault(tag.revision_id, []).append(
            Tag(tag.tag, tag.action_uuid, tag.created_at))
    return [RevisionInfo(r.id, r.created_at, r.documents, r.forced,
                         r.warnings or [], tags.get(r.id, []))
            for r in rows]


def revisions() -> list[RevisionInfo]:
    """Every revision, oldest first, with its tags."""
    return _infos(designs_db.revisions())


def revision(number: versions.Version) -> RevisionInfo:
    """One revision (a number or a version name), with its collections
    and the site actions that ran it."""
    found = versions.revision_of(number)
    if found is None:
        raise exception.InvalidParameterValue(
            err='The buffer is not a revision; name a committed one')
    info = _infos(designs_db.revisions([found]))[0]
    return dataclasses.replace(
        info, collections=designs_db.collection_counts(found),
        actions=designs_db.revision_actions(found))
