"""What a site action is asked to run, as one typed record.

``ActionInput`` holds the documents (a DeploymentStrategy and/or task
graphs), the partial-run options and how the deployed nodes' OS is
reached. An action is given them directly (:func:`parse_documents`
tells the documents apart by the one registry of kinds,
:mod:`.kinds`), or a site design revision fills the same record (its
strategy and task graph documents, its inventory's addresses and its
configuration's SSH key), so the plan is built the same way whatever the
source.

The record is stored with the action (``site_actions.document``) so a
conductor that takes the action over runs exactly what it started with.
The SSH private key is stored there too (the conductor that runs the
tasks needs it); it is never part of a report, an API answer or a log.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.strategy.core.paths import Path
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.inventory import OsAccess
from ironside.strategy.reader.kinds import REGISTRY
from ironside.strategy.reader.source import SourceError
from ironside.strategy.reader.source import read_documents
from ironside.strategy.tasks.base import TaskTarget


@dataclasses.dataclass(frozen=True)
class SiteDocument:
    """One document an action runs, as validated."""

    kind: str
    name: str
    document: Any
    # Line numbers, while the text it came from is at hand (not stored).
    lines: Mapping[Path, int] = dataclasses.field(
        default_factory=dict, compare=False, repr=False)
    # The file it was read from, when known (a design's; not stored).
    source: str | None = dataclasses.field(default=None, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {'kind': self.kind, 'name': self.name,
                'document': self.document}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> SiteDocument:
        return cls(value['kind'], value['name'], value['document'])


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """A partial run, as Fuel's CLI asks for it: only these tasks, skip
    these, start at / end at a task (walking the graph), only these
    nodes (names or UUIDs). Empty: the whole plan."""

    tasks: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    start: str | None = None
    end: str | None = None
    nodes: tuple[str, ...] = ()

    @property
    def selects_tasks(self) -> bool:
        return bool(self.tasks or self.skip or self.start or self.end)

    def as_dict(self) -> dict[str, Any]:
        return {'tasks': list(self.tasks), 'skip': list(self.skip),
                'start': self.start, 'end': self.end,
                'nodes': list(self.nodes)}

    @classmethod
    def of(cls, parameters: Mapping[str, Any]) -> RunOptions:
        """From an action's parameters, as :mod:`..plan.parameters` read them
        (other parameters are left alone)."""
        return cls(tasks=tuple(parameters.get('tasks', ())),
                   skip=tuple(parameters.get('skip', ())),
                   start=parameters.get('start'),
                   end=parameters.get('end'),
                   nodes=tuple(parameters.get('nodes', ())))

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> RunOptions:
        """As :meth:`as_dict` wrote them."""
        return cls(tuple(value['tasks']), tuple(value['skip']),
                   value['start'], value['end'], tuple(value['nodes']))


# How a node's OS is reached: the inventory's os_access (address, port,
# user, known_host: its SSH host key, identity: the name of its key).
_ACCESS_FIELDS = {'address': str, 'port': int, 'user': str,
                  'known_host': str, 'identity': str}


@dataclasses.dataclass(frozen=True)
class TaskAccess:
    """Where each node's tasks run, and the keys to log in with: the one
    its ``identity`` names (``keys``, by name, as a design's inventory
    names them), or ``private_key``. Keys are secrets: never shown, never
    logged."""

    nodes: Mapping[str, OsAccess] = dataclasses.field(
        default_factory=dict)
    private_key: str | None = dataclasses.field(default=None, repr=False)
    keys: Mapping[str, str] = dataclasses.field(default_factory=dict,
                                                repr=False)

    def target(self, node_name: str) -> TaskTarget | None:
        access = self.nodes.get(node_name)
        if access is None:
            return None
        key = self.keys.get(access.identity) if access.identity else \
            self.private_key
        return TaskTarget(node_name=node_name, address=access.address,
                          port=access.port, user=access.user,
                          private_key=key, host_key=access.known_host)

    def as_dict(self) -> dict[str, Any]:
        """For storing with the action only: it holds the keys."""
        return {'nodes': {name: dataclasses.asdict(access)
                          for name, access in sorted(self.nodes.items())},
                'private_key': self.private_key, 'keys': dict(self.keys)}

    @classmethod
    def read(cls, value: Mapping[str, Any] | None) -> TaskAccess:
        """From ``{"nodes": {name: {address, port, user, known_host,
        identity}}, "private_key": "...", "keys": {name: "..."}}``;
        InvalidParameterValue names what is wrong (never a key)."""
        value = value or {}
        if not isinstance(value, Mapping) or \
                set(value) - {'nodes', 'private_key', 'keys'}:
            raise exception.InvalidParameterValue(
                err='"access" takes "nodes", "private_key" and "keys"')
        key = value.get('private_key')
        keys = value.get('keys') or {}
        if (key is not None and not isinstance(key, str)) or \
                not isinstance(keys, Mapping) or \
                not all(isinstance(k, str) for k in keys.values()):
            raise exception.InvalidParameterValue(
                err='"access.private_key" and "access.keys" hold keys as '
                    'text')
        nodes = value.get('nodes') or {}
        if not isinstance(nodes, Mapping):
            raise exception.InvalidParameterValue(
                err='"access.nodes" must map node names to addresses')
        found = {name: _node_access(name, entry)
                 for name, entry in nodes.items()}
        unknown = sorted({a.identity for a in found.values()
                          if a.identity and a.identity not in keys})
        if unknown:
            raise exception.InvalidParameterValue(
                err='"access.keys" has no key %s' % ', '.join(unknown))
        return cls(found, key, dict(keys))


def _node_access(name: str, entry: Any) -> OsAccess:
    if isinstance(entry, str):
        entry = {'address': entry}
    problem = None
    if not isinstance(entry, Mapping) or not entry.get('address'):
        problem = 'needs an "address"'
    else:
        for field, value in entry.items():
            wanted = _ACCESS_FIELDS.get(field)
            if wanted is None:
                problem = 'has unknown field "%s"' % field
            elif value is not None and (not isinstance(value, wanted) or
                                        isinstance(value, bool)):
                problem = 'field "%s" must be %s' % (
                    field, 'an integer' if wanted is int else 'a string')
    if problem:
        raise exception.InvalidParameterValue(
            err='access for node %s %s' % (name, problem))
    return OsAccess(**{k: v for k, v in entry.items() if v is not None})


@dataclasses.dataclass(frozen=True)
class ActionInput:
    documents: tuple[SiteDocument, ...]
    options: RunOptions = RunOptions()
    access: TaskAccess = TaskAccess()

    @property
    def names(self) -> str:
        return ', '.join(d.name for d in self.documents)


# Documents given directly

def parse_documents(sources: Sequence[Any]) -> list[SiteDocument]:
    """Strategies and task graphs from texts or parsed documents, each
    source given as it is or as ``{"name": ..., "document": ...}``.

    Each is validated; InvalidTaskGraph (or InvalidStrategy) lists every
    error of every document. A text may hold several documents.
    """
    documents: list[SiteDocument] = []
    errors: list[DocumentError] = []
    for number, source in enumerate(sources, 1):
        name = 'document %d' % number
        if isinstance(source, Mapping) and set(source) == {'name',
                                                           'document'}:
            name, source = str(source['name']), source['document']
        for parsed, lines in _parsed(source, name, errors):
            document = _checked(parsed, lines, name, errors)
            if document is not None:
                documents.append(document)
    if errors:
        raise exception.InvalidTaskGraph(errors)
    return documents


def _parsed(source: Any, name: str, errors: list[DocumentError]
            ) -> list[tuple[Any, Mapping[Path, int]]]:
    if not isinstance(source, str):
        return [(source, {})]
    try:
        return [(d.data, d.lines) for d in read_documents(source)]
    except SourceError as exc:
        errors.append(DocumentError(name, 'not valid YAML or JSON: %s'
                                    % exc.problem, line=exc.line))
        return []


def _checked(document: Any, lines: Mapping[Path, int], name: str,
             errors: list[DocumentError]) -> SiteDocument | None:
    """The document as an action runs it, if the registry's kind of it
    is one an action runs and it is valid."""
    kind = REGISTRY.kind_of(document)
    if kind is None or kind.runs_as is None:
        schema = document.get('schema') \
            if isinstance(document, Mapping) else None
        errors.append(DocumentError(name, 'not a DeploymentStrategy or a '
                                          'task graph (schema %s)'
                                    % (schema,)))
        return None
    found = kind.check(document, lines, name)
    errors.extend(found)
    return None if found else SiteDocument(
        kind.runs_as, document_name(document, name), document, lines)
