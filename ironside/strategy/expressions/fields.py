"""Computed fields: finding ``{yaql_exp: "..."}`` in tasks and groups.

Any field of a task or a group may hold, at any depth (inside mappings
and lists), a mapping whose one key is ``yaql_exp`` and whose value is
the expression's text. Such a mapping is replaced by the expression's
value when the action runs. ``id`` is the exception: an ``id`` field,
and everything under it, is never computed, and an expression there is
an error.

A place in a value is a *path*: the keys and list indexes leading to
it, e.g. ``('parameters', 'data', 0)``, shown as ``parameters.data[0]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import NamedTuple

from ironside.strategy.core.paths import Path
from ironside.strategy.core.paths import field_name
from ironside.strategy.core.paths import placed
from ironside.strategy.expressions import engine as expression_engine

EXPRESSION_KEY = 'yaql_exp'
ID_KEY = 'id'
# ExpressionError.owner_kind of a group (anything else is a task).
GROUP = 'group'


@dataclasses.dataclass(frozen=True)
class ExpressionError:
    """One expression that does not parse, names an unknown function, or
    fails when evaluated; and where it is.

    An action places it in its document (:mod:`..plan.computed_fields`):
    the document, whether the owner is a task or a group, and the line,
    so that it reads as the same error does at a commit."""

    path: Path
    expression: Any
    message: str
    # The task or group the expression belongs to, when known.
    owner: str | None = None
    # The node a per-node evaluation failed on.
    node: str | None = None
    # The document holding it, when known.
    document: str | None = None
    # What the owner is: GROUP, or else a task (or a stage).
    owner_kind: str | None = None
    # The expression's line in its document, when known.
    line: int | None = None
    # The file the document was read from, when known.
    source: str | None = None

    @property
    def field(self) -> str:
        return field_name(self.path)

    def __str__(self) -> str:
        group = self.owner if self.owner_kind == GROUP else None
        task = self.owner if self.owner_kind != GROUP else None
        return placed(self.detail, self.document, group, task,
                      self.field, self.node, self.line, self.source)

    @property
    def detail(self) -> str:
        """The expression and what is wrong with it, without where it is
        (for a document error, which places it itself)."""
        if self.expression is None:
            return self.message
        return 'expression %s: %s' % (_quoted(self.expression), self.message)

    def as_dict(self) -> dict[str, Any]:
        return {'document': self.document, 'owner': self.owner,
                'field': self.field,
                'path': list(self.path), 'node': self.node,
                'expression': self.expression, 'message': self.message,
                'line': self.line, 'source': self.source}


def _quoted(expression: Any) -> str:
    if isinstance(expression, str):
        return '"%s"' % expression
    return repr(expression)


class ExpressionResult(NamedTuple):
    """The value one expression gave, for the action's report."""

    owner: str
    field: str
    node: str | None
    expression: str
    value: Any

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()


def is_expression(value: Any) -> bool:
    """Whether ``value`` is a ``{yaql_exp: ...}`` mapping."""
    return (type(value) is dict or isinstance(value, Mapping)) and \
        EXPRESSION_KEY in value


def expression_text(value: Mapping[str, Any]) -> str:
    """The text of an expression mapping; ValueError if malformed."""
    text = value[EXPRESSION_KEY]
    if len(value) == 1 and type(text) is str and text.strip():
        return text
    if len(value) != 1:
        raise ValueError('a %s mapping has no other keys, found %s' % (
            EXPRESSION_KEY, ', '.join(sorted(
                str(k) for k in value if k != EXPRESSION_KEY))))
    if not isinstance(text, str) or not text.strip():
        raise ValueError('%s must be a non-empty string' % EXPRESSION_KEY)
    return text


def replace(value: Any, compute: Callable[[Path, Mapping[str, Any]], Any],
            path: Path = ()) -> Any:
    """``value`` with every expression mapping replaced by ``compute``.

    ``compute(path, mapping)`` is called for each, in document order;
    ``id`` fields are left alone. A value without expressions is
    returned unchanged (the same object).
    """
    if isinstance(value, Mapping):
        if EXPRESSION_KEY in value:
            return compute(path, value)
        result = {}
        changed = False
        for key, item in value.items():
            new = item if key == ID_KEY else \
                replace(item, compute, path + (key,))
            changed = changed or new is not item
            result[key] = new
        return result if changed else value
    if isinstance(value, list):
        items = [replace(item, compute, path + (index,))
                 for index, item in enumerate(value)]
        if any(new is not old
               for new, old in zip(items, value, strict=True)):
            return items
        return value
    return value


class FoundExpression(NamedTuple):
    path: Path
    # The mapping's ``yaql_exp`` value (a string, unless malformed).
    expression: Any


def find_expressions(value: Any, path: Path = ()) -> list[FoundExpression]:
    """Every expression mapping in ``value`` (``id`` fields excepted)."""
    found: list[FoundExpression] = []

    def collect(where: Path, mapping: Mapping[str, Any]) -> Mapping[str, Any]:
        found.append(FoundExpression(where, mapping[EXPRESSION_KEY]))
        return mapping

    replace(value, collect, path)
    return found


def _has_expression(value: Any) -> bool:
    if isinstance(value, Mapping):
        return EXPRESSION_KEY in value or \
            any(_has_expression(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_expression(item) for item in value)
    return False


def _expressions_in_ids(value: Any, path: Path,
                        ids: tuple[str, ...] = (ID_KEY,)) -> list[Path]:
    """Paths of identifying fields (``ids``) that hold an expression."""
    paths: list[Path] = []
    if isinstance(value, Mapping) and EXPRESSION_KEY not in value:
        for key, item in value.items():
            if key in ids:
                if _has_expression(item):
                    paths.append(path + (key,))
            else:
                paths.extend(_expressions_in_ids(item, path + (key,), ids))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths.extend(_expressions_in_ids(item, path + (index,), ids))
    return paths


def without_expressions(value: Any) -> Any:
    """``value`` with every expression left out: a mapping's key whose
    value is one, a list's item that is one.

    What a model is built from before the expressions are computed (a
    design commit checks what the documents say besides them); after,
    only the fields computed per node are left out, which the plan
    reads from the evaluation. A value without expressions is returned
    unchanged (the same object).
    """
    if isinstance(value, Mapping):
        if not _has_expression(value):
            return value
        return {key: without_expressions(item)
                for key, item in value.items() if not is_expression(item)}
    if isinstance(value, list):
        if not _has_expression(value):
            return value
        return [without_expressions(item) for item in value
                if not is_expression(item)]
    return value


def at_expression(document: Any, path: Path) -> bool:
    """Whether ``path`` in ``document`` leads to, or through, an
    expression mapping: a schema's complaint there is about a value
    computed later, checked once it is."""
    value = document
    for key in path:
        if is_expression(value):
            return True
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return False
    return is_expression(value)


def check_expression(text: str, engine: expression_engine.Engine | None = None
                     ) -> str | None:
    """Why ``text`` cannot be evaluated (syntax, unknown function), or
    None."""
    engine = engine or expression_engine.get_engine()
    return engine.check(text)[1]


def check_expressions(value: Any, path: Path = (), owner: str | None = None,
                      engine: expression_engine.Engine | None = None,
                      ids: tuple[str, ...] = (ID_KEY,)
                      ) -> list[ExpressionError]:
    """Every expression in ``value`` that cannot be evaluated, and every
    expression where none is allowed (``ids``: the fields naming the
    task or group): what a design commit refuses."""
    errors = [ExpressionError(where, None, '%s %s cannot be an expression'
                              % ('an' if where[-1] == ID_KEY else 'a',
                                 where[-1]), owner=owner)
              for where in _expressions_in_ids(value, path, ids)]

    def check(where: Path, mapping: Mapping[str, Any]) -> Mapping[str, Any]:
        try:
            text = expression_text(mapping)
        except ValueError as exc:
            errors.append(ExpressionError(
                where, mapping[EXPRESSION_KEY], str(exc), owner))
            return mapping
        message = check_expression(text, engine)
        if message is not None:
            errors.append(ExpressionError(where, text, message, owner))
        return mapping

    replace(value, check, path)
    return errors
