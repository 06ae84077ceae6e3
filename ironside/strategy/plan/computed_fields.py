"""An action's ``yaql_exp`` fields, computed.

:func:`compute` takes an action's documents (a DeploymentStrategy and
task graphs, as given) and one :class:`~..expressions.Evaluation`, and
replaces every expression by its value, before any model is built from
the documents, so the rest of the plan sees plain documents:

- in a DeploymentStrategy, every field of a group but ``name``
  (``critical``, ``depends_on``, ``selectors``, ``success_criteria``,
  ``strategy``, ...);
- in a task graph, every field of a group, stage or task but ``id``
  (``condition``, ``parameters`` and anything inside them, ``requires``,
  ``required_for``, ``cross-depends``, ``role``, ``groups``, group
  ``parameters.strategy``, ...).

Two fields of a task may read ``$node`` and are then computed per node
(:class:`PerNode`): ``condition`` chooses the task's nodes among those
its groups and roles give it, and ``parameters`` give each node its own.
Any other field reading ``$node`` is refused: it has one value per task.

A computed document is checked again, as its reader checks one: an
expression may give a field what it can not hold (InvalidTaskGraph,
naming the place, the line and the expression).

Every value is recorded; :meth:`ComputedFields.report` tells, per task
or group, field and expression, the value (per node, the nodes that had
each value), so an operator sees why a task ran or was skipped. A field
that fails to compute raises ExpressionFailed naming the document, the
task or group, the field, the node, the expression and YAQL's message,
and the line (:class:`Origin`): of the text given, or for a design
revision of the file it was committed from, read only then.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.strategy import expressions
from ironside.strategy.core.paths import Path
from ironside.strategy.core.paths import line_of
from ironside.strategy.expressions.fields import GROUP
from ironside.strategy.reader import fuel
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.action_input import SiteDocument
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.registry import STRATEGY

CONDITION = 'condition'
PARAMETERS = 'parameters'
# Task fields that may read $node.
PER_NODE_FIELDS = (CONDITION, PARAMETERS)


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where a task's or group's fields are: its document and the item's
    path in it, so that an expression's error names its file, document,
    task or group, field and line as a commit does."""

    document: SiteDocument
    # The task's or group's path in the document, e.g. ('data', 'tasks', 3).
    item: Path

    def locate(self, error: expressions.ExpressionError,
               lines: Mapping[Path, int]) -> expressions.ExpressionError:
        path = self.item + tuple(error.path)
        locate = shipyard.locator(self.document.document) \
            if self.document.kind == STRATEGY else \
            fuel.locator(self.document.document)
        place = locate(path)
        return dataclasses.replace(
            error, document=self.document.name, source=self.document.source,
            owner_kind=GROUP if place.group is not None else None,
            line=line_of(lines, path))


@dataclasses.dataclass(frozen=True)
class PerNode:
    """A task's fields computed per node, as the document wrote them (its
    document is the task's :class:`Origin`)."""

    condition: Any = None
    parameters: Any = None


# The line map of a document that came without one (a design revision's:
# its texts are read only to place an error).
DocumentLines = Callable[[SiteDocument], Mapping[Path, int]]


class ComputedFields:
    """The documents of one action with their fields computed."""

    def __init__(self, evaluation: expressions.Evaluation,
                 lines: DocumentLines | None = None) -> None:
        self.evaluation = evaluation
        self.lines = lines
        self.documents: list[SiteDocument] = []
        # Task id → its fields computed per node.
        self.per_node: dict[str, PerNode] = {}
        # Where each task or group is (ids are unique in a plan).
        self.origins: dict[str, Origin] = {}

    def located(self, error: expressions.ExpressionError
                ) -> expressions.ExpressionError:
        """The error placed in its document: the task or group, the
        field and the line, as a commit names them."""
        origin = self.origins.get(str(error.owner))
        if origin is None:
            return error
        return origin.locate(error, self.lines_of(origin.document))

    def lines_of(self, document: SiteDocument) -> Mapping[Path, int]:
        if document.lines or self.lines is None:
            return document.lines
        return self.lines(document)

    def _failed(self, exc: exception.ExpressionFailed
                ) -> exception.ExpressionFailed:
        return exception.ExpressionFailed(self.located(exc.error))

    def nodes_for(self, task: str, candidates: Sequence[str]) -> list[str]:
        """The names, among ``candidates``, a task's condition holds for."""
        fields = self.per_node.get(task)
        if fields is None or fields.condition is None:
            return list(candidates)
        try:
            return self.evaluation.select_nodes(fields.condition, task,
                                                candidates)
        except exception.ExpressionFailed as exc:
            raise self._failed(exc) from None

    def parameters_for(self, task: str, node: str) -> dict[str, Any] | None:
        """A task's parameters on one node, when they are computed per
        node; None when the task's own apply."""
        fields = self.per_node.get(task)
        if fields is None or fields.parameters is None:
            return None
        try:
            # A mapping (the task schema's), its expressions replaced.
            resolved: dict[str, Any] = self.evaluation.resolve(
                fields.parameters, task, (PARAMETERS,), node=node)
            return resolved
        except exception.ExpressionFailed as exc:
            raise self._failed(exc) from None

    def check_per_node(self, nodes: Sequence[str]) -> None:
        """Compute every per-node field on each of ``nodes`` (names),
        unrecorded, so that one failing fails the action before any node
        is touched; the values are kept for the plan."""
        for task, fields in self.per_node.items():
            for field in PER_NODE_FIELDS:
                value = getattr(fields, field)
                for found in expressions.find_expressions(value, (field,)):
                    for node in nodes:
                        try:
                            self.evaluation.evaluate(found.expression, node)
                        except exception.ExpressionFailed as exc:
                            raise exception.ExpressionFailed(
                                self.located(dataclasses.replace(
                                    exc.error, path=found.path,
                                    owner=task))) from None

    def report(self) -> list[dict[str, Any]]:
        """Each expression's value: per task or group, field and
        expression, with the nodes that had each value when it was
        computed per node."""
        entries: dict[Path, dict[str, Any]] = {}
        for result in self.evaluation.results:
            origin = self.origins.get(result.owner)
            document = origin.document.name if origin else None
            key = (document, result.owner, result.field, result.expression)
            entry = entries.get(key)
            if entry is None:
                entry = entries[key] = {
                    'document': document, 'owner': result.owner,
                    'field': result.field, 'expression': result.expression}
            if result.node is None:
                entry['value'] = _plain(result.value)
                continue
            values = entry.setdefault('nodes', {})
            value = result.value
            shown = (type(value), value) if type(value) in _SCALARS else \
                json.dumps(_plain(value), sort_keys=True, default=str)
            values.setdefault(shown, []).append(result.node)
        for entry in entries.values():
            if 'nodes' in entry:
                entry['nodes'] = [
                    {'value': shown[1] if isinstance(shown, tuple)
                     else json.loads(shown), 'nodes': names}
                    for shown, names in entry['nodes'].items()]
        return list(entries.values())


_SCALARS = (bool, int, float, str, type(None))


def _plain(value: Any) -> Any:
    """A computed value as JSON holds it (YAQL gives tuples and frozen
    mappings)."""
    if type(value) in _SCALARS:
        return value
    return json.loads(json.dumps(value, default=_default))


def _default(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)) or \
            isinstance(value, Iterable):
        return list(value)
    return str(value)


def has_expressions(documents: Sequence[SiteDocument]) -> bool:
    return any(expressions.find_expressions(d.document) for d in documents)


def compute(documents: Sequence[SiteDocument],
            evaluation: expressions.Evaluation,
            lines: DocumentLines | None = None) -> ComputedFields:
    """The documents with every field computed but those a task computes
    per node (see the module's docstring); ``lines`` gives the line map
    of a document that came without one, to place an error."""
    computed = ComputedFields(evaluation, lines)
    for document in documents:
        try:
            body = _strategy(document, computed) \
                if document.kind == STRATEGY else \
                _task_graph(document, computed)
        except exception.ExpressionFailed as exc:
            raise computed._failed(exc) from None
        if body is not document.document:
            _check_computed(body, document, computed)
        computed.documents.append(
            document if body is document.document else
            dataclasses.replace(document, document=body))
    return computed


def _check_computed(body: Any, document: SiteDocument,
                    computed: ComputedFields) -> None:
    """The computed document checked as its reader checks one: an
    expression may compute what the field can not hold (a number for a
    list of names). InvalidTaskGraph names the place, the line and the
    expression."""
    errors = _computed_errors(body, document, document.lines)
    if errors and not document.lines and computed.lines is not None:
        errors = _computed_errors(body, document, computed.lines(document))
    if errors:
        raise exception.InvalidTaskGraph([
            _with_expression(error, computed.evaluation.results)
            for error in errors])


def _computed_errors(body: Any, document: SiteDocument,
                     lines: Mapping[Path, int]) -> list[DocumentError]:
    if document.kind == STRATEGY:
        return shipyard.check(body, lines, document.name)
    errors, _warnings = fuel.check(body, lines, document.name,
                                   expressions=False)
    return errors


def _with_expression(error: DocumentError,
                     results: Sequence[expressions.ExpressionResult]
                     ) -> DocumentError:
    """The error, saying which expression computed the wrong value."""
    owner = error.task or error.group
    field = error.field or ''
    for result in results:
        if result.owner == owner and result.node is None and (
                field == result.field or
                field.startswith((result.field + '.', result.field + '['))):
            return dataclasses.replace(error, message=(
                'expression "%s" computed %s, which is wrong here: %s' % (
                    result.expression,
                    json.dumps(_plain(result.value), sort_keys=True),
                    error.message)))
    return error


def _once(value: Any, owner: str, field: str,
          evaluation: expressions.Evaluation) -> Any:
    """A field with one value per task or group."""
    if evaluation.reads_node(value):
        raise exception.ExpressionFailed(expressions.ExpressionError(
            (field,), None, 'only a task\'s condition and parameters may '
            'read $node; this field has one value for the task',
            owner=owner))
    if field == CONDITION:
        return evaluation.condition(value, owner)
    return evaluation.resolve(value, owner, (field,))


def _item(item: Any, owner_key: str, origin: Origin,
          computed: ComputedFields, per_node_allowed: bool) -> Any:
    """One task, group or stage with its fields computed; those a task
    computes per node are kept for the plan (``computed.per_node``)."""
    if not isinstance(item, Mapping) or \
            not expressions.find_expressions(item):
        return item
    evaluation = computed.evaluation
    owner = str(item.get(owner_key))
    computed.origins[owner] = origin
    result = {}
    kept = {}
    for field, value in item.items():
        if field == owner_key or not expressions.find_expressions(value):
            result[field] = value
        elif per_node_allowed and field in PER_NODE_FIELDS and \
                evaluation.reads_node(value):
            kept[field] = value
            result[field] = True if field == CONDITION else value
        else:
            result[field] = _once(value, owner, field, evaluation)
    if kept:
        computed.per_node[owner] = PerNode(kept.get(CONDITION),
                                           kept.get(PARAMETERS))
    return result


def _strategy(document: SiteDocument, computed: ComputedFields) -> Any:
    body = document.document
    groups = (body.get('data') or {}).get('groups') \
        if isinstance(body, Mapping) else None
    if not isinstance(groups, list) or \
            not expressions.find_expressions(groups):
        return body
    data = dict(body['data'], groups=[
        _item(g, 'name', Origin(document, ('data', 'groups', index)),
              computed, False)
        for index, g in enumerate(groups)])
    return dict(body, data=data)


def _task_graph(document: SiteDocument, computed: ComputedFields) -> Any:
    body = document.document
    items = fuel.items_of(body)
    if not expressions.find_expressions(items):
        return body
    prefix = () if isinstance(body, list) else ('data', 'tasks')
    done = [_item(item, 'id', Origin(document, prefix + (index,)), computed,
                  isinstance(item, Mapping) and
                  item.get('type') not in fuel.STRUCTURE_TYPES)
            for index, item in enumerate(items)]
    if isinstance(body, list):
        return done
    return dict(body, data=dict(body['data'], tasks=done))
