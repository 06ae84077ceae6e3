"""A design checked as a commit checks it.

Each document against its envelope and its kind (:mod:`..reader.kinds`),
names unique per kind, then the checks across the documents
(:mod:`.checks`); every problem is an issue placed in its collection,
file, document, field and line, a secret in its message masked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ironside.strategy.designs import masking
from ironside.strategy.designs.checks import CHECKS
from ironside.strategy.designs.checks import CrossCheck
from ironside.strategy.designs.checks import Findings
from ironside.strategy.designs.checks import LinesOf
from ironside.strategy.designs.design import Design
from ironside.strategy.designs.design import document_errors
from ironside.strategy.designs.design import identity
from ironside.strategy.designs.design import models
from ironside.strategy.reader.documents import ERROR
from ironside.strategy.reader.documents import WARNING
from ironside.strategy.reader.documents import DesignDocument
from ironside.strategy.reader.documents import DesignIssue
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.kinds import REGISTRY
from ironside.strategy.reader.registry import Registry


@dataclasses.dataclass(frozen=True)
class Validation:
    design: Design
    issues: list[DesignIssue]

    @property
    def errors(self) -> list[DesignIssue]:
        return [i for i in self.issues if i.severity == ERROR]

    @property
    def warnings(self) -> list[DesignIssue]:
        return [i for i in self.issues if i.severity == WARNING]


def _issue(document: DesignDocument, error: DocumentError,
           severity: str = ERROR) -> DesignIssue:
    secrets = masking.secret_values(document)
    if secrets:
        error = dataclasses.replace(
            error, message=masking.redact(error.message, secrets))
    return DesignIssue(error, document.collection, document.schema,
                       document.source_name, severity)


def _duplicate(document: DesignDocument, first: DesignDocument
               ) -> DocumentError:
    return DocumentError(
        document.name, 'another document of this kind has the same name: '
        'the %s document in collection "%s"' % (first.schema,
                                                 first.collection),
        field='metadata.name')


def validate(documents: Sequence[DesignDocument],
             lines: LinesOf | None = None, revision: int | None = None,
             registry: Registry = REGISTRY,
             checks: Sequence[CrossCheck] = CHECKS) -> Validation:
    """Check every document and the design as a whole."""
    issues: list[DesignIssue] = []
    valid = []
    first: dict[tuple[str, str, str], DesignDocument] = {}
    for document in documents:
        document_lines = lines(document) if lines else {}
        errors = document_errors(document, registry, document_lines)
        key = identity(document, registry) + (document.name,)
        if key in first:
            error = _duplicate(document, first[key])
            errors = errors + [dataclasses.replace(
                error, line=document_lines.get(('metadata', 'name')))]
        else:
            first[key] = document
        if errors:
            issues.extend(_issue(document, e) for e in errors)
        else:
            valid.append(document)
    design = Design(tuple(documents), models(valid, registry), revision,
                    registry)
    findings = Findings(lines)
    for check in checks:
        check(design, findings)
    issues.extend(_issue(document, error, severity)
                  for severity, document, error in findings.found)
    return Validation(design, issues)
