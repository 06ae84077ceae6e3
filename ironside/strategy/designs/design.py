"""A site design: the documents of one version, read into typed models.

A design is the single input of a site action: the strategy it runs
(named by the deployment configuration), the inventory of nodes, the
configuration documents, the settings, and the models of every other
kind registered in :mod:`ironside.strategy.reader.kinds` (task graphs,
etcd clusters, ...), by kind and document name. Documents of schemas no
kind reads are kept too, as they are (``other``).

:func:`load` builds the models of a committed revision, whose documents
were checked when it was committed; a design is checked as a commit
checks it by :func:`ironside.strategy.designs.validation.validate`.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.strategy.core.model import Strategy
from ironside.strategy.core.paths import Path
from ironside.strategy.reader import configuration as config_kind
from ironside.strategy.reader.configuration import DeploymentConfiguration
from ironside.strategy.reader.documents import DesignDocument
from ironside.strategy.reader.documents import envelope_errors
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.inventory import InventoryNode
from ironside.strategy.reader.kinds import REGISTRY
from ironside.strategy.reader.registry import Registry

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Design:
    # Every document, valid or not, in collection order.
    documents: tuple[DesignDocument, ...]
    # Kind name → document name → model, for valid documents.
    models: Mapping[str, Mapping[str, Any]]
    # The revision it is (None: the buffer, or documents not stored).
    revision: int | None = None
    registry: Registry = dataclasses.field(default=REGISTRY, repr=False,
                                           compare=False)

    @functools.cached_property
    def _by_key(self) -> dict[tuple[str, str], DesignDocument]:
        return {d.key: d for d in self.documents}

    def document(self, schema: str, name: str) -> DesignDocument | None:
        return self._by_key.get((schema, name))

    def documents_of(self, *schemas: str) -> list[DesignDocument]:
        return [d for d in self.documents if d.schema in schemas]

    def documents_of_kind(self, kind: str) -> list[DesignDocument]:
        found = self.registry.named(kind)
        return self.documents_of(*found.schemas) if found else []

    def document_of_kind(self, kind: str, name: str
                         ) -> DesignDocument | None:
        return next((d for d in self.documents_of_kind(kind)
                     if d.name == name), None)

    def of_kind(self, kind: str) -> Mapping[str, Any]:
        """The models of a kind, by document name."""
        return self.models.get(kind, {})

    @property
    def strategies(self) -> Mapping[str, Strategy]:
        return self.of_kind('DeploymentStrategy')

    @property
    def configuration(self) -> DeploymentConfiguration:
        """The document named ``deployment-configuration``, or the
        defaults (the strategy ``deployment-strategy``) without one."""
        # Models by kind: this kind's are DeploymentConfigurations.
        found: DeploymentConfiguration = self.of_kind(
            'DeploymentConfiguration').get(config_kind.DOCUMENT_NAME,
                                           config_kind.DEFAULT)
        return found

    @property
    def nodes(self) -> Mapping[str, InventoryNode]:
        return self.of_kind('BaremetalNode')

    @property
    def configs(self) -> Mapping[str, Any]:
        return self.of_kind('Config')

    @property
    def settings(self) -> Mapping[str, Any]:
        return self.of_kind('Settings')

    @property
    def other(self) -> list[DesignDocument]:
        """Documents of schemas no kind reads, stored as they are."""
        return [d for d in self.documents
                if self.registry.kind(d.schema) is None]

    def strategy(self) -> Strategy:
        """The strategy site actions run; DesignIncomplete without one."""
        name = self.configuration.deployment_strategy
        strategy = self.strategies.get(name)
        if strategy is None:
            raise exception.DesignIncomplete(
                revision=self.revision,
                reason='it has no DeploymentStrategy named "%s" (named by '
                       'its deployment configuration, or the default)'
                % name)
        return strategy

    def private_key(self, name: str) -> str | None:
        """The text of a deckhand/PrivateKey/v1 document (a secret)."""
        return self.of_kind('PrivateKey').get(name)


class _Memo:
    """What a document's content alone decides (it passed its kind's
    check; its model), by schema and content hash, for this process:
    a design seen again (the next commit, a diff, an action) is not
    checked and built again document by document. Models are immutable."""

    LIMIT = 100000

    def __init__(self) -> None:
        self.valid: set[tuple[str, str]] = set()
        self.models: dict[tuple[str, str], Any] = {}

    def _room(self) -> None:
        if len(self.valid) > self.LIMIT or len(self.models) > self.LIMIT:
            self.valid.clear()
            self.models.clear()

    def model(self, document: DesignDocument,
              build: Callable[[Mapping[str, Any]], Any]) -> Any:
        key = (document.schema, document.hash)
        model = self.models.get(key)
        if model is None:
            self._room()
            model = self.models[key] = build(document.body)
        return model


_MEMO = _Memo()


def forget() -> None:
    """Forget which documents were checked and their models (to measure
    a design seen for the first time)."""
    _MEMO.valid.clear()
    _MEMO.models.clear()


def models(documents: Sequence[DesignDocument], registry: Registry,
           revision: int | None = None) -> dict[str, dict[str, Any]]:
    """The models of documents that passed their kinds' checks, by kind
    and document name.

    A committed revision's document that was stored before Ironside read
    its kind (an EtcdClusters document before it was a kind) was never
    checked; one that can not be built is left out, and said so."""
    found: dict[str, dict[str, Any]] = {}
    for document in documents:
        kind = registry.kind(document.schema)
        if kind is None or kind.build is None:
            continue
        try:
            model = _MEMO.model(document, kind.build)
        except Exception as exc:
            if revision is None:
                raise
            LOG.warning('Design revision %d: the %s document %s can not '
                        'be read, and is left out: %s', revision,
                        document.schema, document.name, type(exc).__name__)
            continue
        found.setdefault(kind.name, {})[document.name] = model
    return found


def document_errors(document: DesignDocument, registry: Registry,
                    lines: Mapping[Path, int] | None
                    ) -> list[DocumentError]:
    """Every error of one document on its own (its envelope, its kind)."""
    key = (document.schema, document.hash)
    if key in _MEMO.valid:
        return []
    errors = envelope_errors(document.body, lines, document.name)
    kind = registry.kind(document.schema)
    if not errors and kind is not None:
        errors = kind.check(document.body, lines or {}, document.name)
    if not errors:
        _MEMO._room()
        _MEMO.valid.add(key)
    return errors


def identity(document: DesignDocument, registry: Registry
             ) -> tuple[str, str]:
    """Names are unique per kind (a strategy is one, whichever of its
    schemas it has), and per schema for documents of no kind."""
    kind = registry.kind(document.schema)
    return ('kind', kind.name) if kind else ('schema', document.schema)


def load(documents: Sequence[DesignDocument], revision: int | None = None,
         registry: Registry = REGISTRY) -> Design:
    """The design of documents already validated together (a revision)."""
    return Design(tuple(documents), models(documents, registry, revision),
                  revision, registry)
