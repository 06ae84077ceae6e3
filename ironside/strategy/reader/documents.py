"""Site design documents: Deckhand's envelope, parsing, content hashes.

Every document of a site design has Deckhand's shape::

    schema: ironside/BaremetalNode/v1      # namespace/Kind/vN
    metadata:
      schema: metadata/Document/v1
      name: ctl01                          # unique per schema
      storagePolicy: cleartext             # or encrypted: data is secret
    data: ...                              # what the kind defines

A collection is staged from one or more sources (files), each a YAML or
JSON stream. Reading one parses it fast (libyaml when present) and checks
the envelope; only when a document is wrong is its source read again
with line numbers, to say where.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import NamedTuple

import yaml

from ironside.strategy.core.paths import Path
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.schema import DocumentSchema
from ironside.strategy.reader.source import SourceError
from ironside.strategy.reader.source import read_documents

CLEARTEXT = 'cleartext'
ENCRYPTED = 'encrypted'
DOCUMENT_METADATA = 'metadata/Document/v1'

ERROR = 'error'
WARNING = 'warning'

# namespace/Kind/vN, as Deckhand names schemas.
SCHEMA_PATTERN = r'^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/v[0-9]+(\.[0-9]+)?$'
NAME_MAX = 255

ENVELOPE = DocumentSchema({
    'type': 'object',
    'required': ['schema', 'metadata', 'data'],
    'properties': {
        'schema': {'type': 'string', 'pattern': SCHEMA_PATTERN,
                   'maxLength': NAME_MAX},
        'metadata': {
            'type': 'object',
            'required': ['name'],
            'properties': {
                'name': {'type': 'string', 'minLength': 1,
                         'maxLength': NAME_MAX},
                'schema': {'type': 'string'},
                'storagePolicy': {'enum': [CLEARTEXT, ENCRYPTED]},
            },
        },
        # Any value: what it must be is the kind's business.
        'data': {},
    },
    'additionalProperties': False,
})

_LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


@dataclasses.dataclass(frozen=True)
class Source:
    """Text a collection is staged from; ``name`` is usually a file name."""

    name: str
    text: str


class DesignDocument(NamedTuple):
    """One document of a design, as stored (a tuple: designs have
    thousands)."""

    collection: str
    schema: str
    name: str
    body: Mapping[str, Any]
    hash: str
    # Where it was staged from (in the buffer) or committed from (in a
    # revision that kept its texts): the source's index in its
    # collection and the document's index in that source.
    source: int | None = None
    source_index: int | None = None
    source_name: str | None = None

    @property
    def data(self) -> Any:
        return self.body.get('data')

    @property
    def encrypted(self) -> bool:
        metadata = self.body.get('metadata')
        return isinstance(metadata, Mapping) and \
            metadata.get('storagePolicy') == ENCRYPTED

    @property
    def key(self) -> tuple[str, str]:
        return self.schema, self.name


@dataclasses.dataclass(frozen=True)
class DesignIssue:
    """A problem of a design document: an error, or a warning (which only
    ``--force`` commits)."""

    error: DocumentError
    collection: str | None = None
    schema: str | None = None
    source: str | None = None
    severity: str = ERROR

    def __str__(self) -> str:
        where = []
        if self.collection is not None:
            where.append('collection "%s"' % self.collection)
        if self.source:
            where.append('file "%s"' % self.source)
        if self.schema:
            where.append('schema "%s"' % self.schema)
        text = ', '.join(where + [str(self.error)])
        return 'warning: ' + text if self.severity == WARNING else text

    def as_dict(self) -> dict[str, Any]:
        return dict(self.error.as_dict(), severity=self.severity,
                    collection=self.collection, schema=self.schema,
                    source=self.source, text=str(self))


def canonical(body: Any) -> str:
    """The one text of a document's content: sorted keys, no spaces."""
    return json.dumps(body, sort_keys=True, separators=(',', ':'),
                      ensure_ascii=False, default=str)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def parse(text: str) -> list[Any]:
    """The non-empty documents of a YAML or JSON stream (SourceError if it
    does not parse). Same documents, in the same order, as
    :func:`ironside.strategy.reader.source.read_documents` finds."""
    try:
        return [d for d in yaml.load_all(text, Loader=_LOADER)
                if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        problem = getattr(exc, 'problem', None) or str(exc)
        raise SourceError(problem, mark.line + 1 if mark else None) \
            from None


def envelope_errors(body: Any, lines: Mapping[Path, int] | None,
                    name: str) -> list[DocumentError]:
    errors = ErrorCollector(document_name(body, name), lines)
    ENVELOPE.errors(body, errors)
    return errors.sorted()


# Turns a document that is not Deckhand-shaped (a plain Fuel task list)
# into the schema and name to store it under, or None if it is not one
# it knows. The document becomes the ``data`` of the stored one.
Adapter = Callable[[Any, str], 'tuple[str, str] | None']


def wrap(schema: str, name: str, raw: Any) -> dict[str, Any]:
    return {'schema': schema,
            'metadata': {'schema': DOCUMENT_METADATA, 'name': name},
            'data': raw}


def _adapted(raw: Any, source: str, adapters: Sequence[Adapter]
             ) -> tuple[Any, bool]:
    if isinstance(raw, Mapping) and 'schema' in raw:
        return raw, False
    for adapter in adapters:
        found = adapter(raw, source)
        if found is not None:
            return wrap(found[0], found[1], raw), True
    return raw, False


def source_lines(text: str) -> list[Mapping[Path, int]]:
    """The line maps of a source's documents, in order (slow: only for
    sources with errors). Empty if the text does not parse."""
    try:
        return [d.lines for d in read_documents(text)]
    except SourceError:
        return []


def lines_of(all_lines: Sequence[Mapping[Path, int]], index: int,
             adapted: bool) -> Mapping[Path, int]:
    if index >= len(all_lines):
        return {}
    lines = all_lines[index]
    if adapted:
        return {('data',) + path: line for path, line in lines.items()}
    return lines


def read_collection(collection: str, sources: Sequence[Source],
                    adapters: Sequence[Adapter] = ()
                    ) -> tuple[list[DesignDocument], list[DesignIssue]]:
    """The documents of a collection's sources, and what is wrong with
    them: text that does not parse, envelopes that are not Deckhand's,
    two documents of one schema and name."""
    documents: list[DesignDocument] = []
    issues: list[DesignIssue] = []
    seen: dict[tuple[str, str], str] = {}
    for s_index, source in enumerate(sources):
        try:
            raws = parse(source.text)
        except SourceError as exc:
            issues.append(DesignIssue(
                DocumentError(source.name, 'not valid YAML or JSON: %s'
                              % exc.problem, line=exc.line),
                collection, source=source.name))
            continue
        bad = []
        for d_index, raw in enumerate(raws):
            body, adapted = _adapted(raw, source.name, adapters)
            if envelope_errors(body, None, '#%d' % (d_index + 1)):
                bad.append((d_index, body, adapted))
                continue
            text = canonical(body)
            stored = json.loads(text)
            document = DesignDocument(
                collection, stored['schema'], stored['metadata']['name'],
                stored, digest(text), s_index, d_index, source.name)
            if document.key in seen:
                bad.append((d_index, body, adapted))
                continue
            seen[document.key] = source.name
            documents.append(document)
        if bad:
            all_lines = source_lines(source.text)
            for d_index, body, adapted in bad:
                lines = lines_of(all_lines, d_index, adapted)
                name = '#%d' % (d_index + 1)
                errors = envelope_errors(body, lines, name)
                if not errors:
                    errors = [DocumentError(
                        document_name(body, name),
                        'a second %s document with this name (the first is '
                        'in file "%s")' % (body['schema'], seen[
                            (body['schema'], body['metadata']['name'])]),
                        field='metadata.name',
                        line=lines.get(('metadata', 'name')))]
                schema = body.get('schema') \
                    if isinstance(body, Mapping) else None
                issues.extend(DesignIssue(
                    e, collection, schema if isinstance(schema, str)
                    else None, source.name) for e in errors)
    return documents, issues
