"""One action's evaluation of expressions.

An :class:`Evaluation` holds what an action evaluates against: the
context (converted once into YAQL's immutable forms), each expression
string parsed once, each value computed once, and the results recorded
for the action's report.

What is computed once:

- an expression that does not read ``$node`` has one value per action,
  whichever task or group field holds it (``$`` is the same for all);
- an expression that reads ``$node`` only as ``$node.key`` has one value
  per distinct projection of the node's new and old records onto those
  keys (5,000 computes with the same roles and status: one evaluation);
  any other use of ``$node`` is evaluated per node;
- ``new``, ``old`` and ``changed`` of the same argument are computed
  once per action (per node if the argument reads ``$node``), unless the
  argument reads a variable of an enclosing ``let`` or lambda.

An evaluation is used by one thread (the action's runner); the engine
behind it is shared.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any
from typing import NamedTuple

from yaql.language import exceptions as yaql_exceptions

from ironside.common import exception
from ironside.strategy.core.paths import Path
from ironside.strategy.core.paths import field_name
from ironside.strategy.expressions import data
from ironside.strategy.expressions import engine as expression_engine
from ironside.strategy.expressions import fields
from ironside.strategy.expressions import functions
from ironside.strategy.expressions import memo
from ironside.strategy.expressions import sandbox
from ironside.strategy.expressions.context import SiteContext

# Variables a computed value may depend on and still be kept: the state
# (``$``, also called ``$1``) and the node.
_KEEPABLE = frozenset({'$', '$1', '$node'})

# Errors that are the sandbox's refusals, never "no value on the old
# state".
_LIMITS = (yaql_exceptions.CollectionTooLargeException,
           yaql_exceptions.MemoryQuotaExceededException,
           sandbox.Refused, sandbox.TimedOut,
           RecursionError, MemoryError)


_UNKNOWN = object()
_NOT_IN_OLD = object()


class _Failed(Exception):
    """An expression failed; the message says why."""


class Scope:
    """What the helper functions reach through the context: both states,
    the nodes' records in each, and the values computed so far."""

    def __init__(self, engine: expression_engine.Engine, new: Any,
                 old: Any | None, clean: frozenset[int]) -> None:
        self.engine = engine
        self.new = new
        self.old = old
        self.clean = clean
        self.new_nodes = {n['name']: n for n in new['nodes']}
        self.old_nodes = {n['name']: n for n in old['nodes']} \
            if old is not None else {}
        self._values: dict[Any, Any] = {}
        self._variables: dict[Any, frozenset[str]] = {}

    def _key(self, expression: Any, node: str | None, old: bool) -> Any:
        if expression is None:
            return None
        names = self._variables.get(expression)
        if names is None:
            names = self._variables[expression] = \
                expression_engine.variables(expression)
        if not names <= _KEEPABLE:
            return None
        return (old, expression, node if '$node' in names else None)

    def value(self, context: Any, function: Callable[..., Any],
              old: bool) -> Any:
        """``function`` (a lazy argument) on the new or the old state."""
        node = context.get_data(functions.NODE)
        key = self._key(getattr(function, '__unwrapped__', None), node, old)
        if key is not None and key in self._values:
            return self._values[key]
        value = self._evaluate(context, function, old, node)
        if key is not None:
            self._values[key] = value
        return value

    def _evaluate(self, context: Any, function: Callable[..., Any], old: bool,
                  node: str | None) -> Any:
        if old and self.old is None:
            return data.UNDEFINED
        view = context.create_child_context()
        view['$'] = self.old if old else self.new
        nodes = self.old_nodes if old else self.new_nodes
        view['$node'] = nodes.get(node) if node is not None else None
        try:
            return data.settle(function(view), self.engine, self.clean)
        except Exception as exc:
            if not old or isinstance(exc, _LIMITS):
                raise
            return data.UNDEFINED

    def changed(self, context: Any, function: Callable[..., Any]) -> bool:
        new = self.value(context, function, old=False)
        old = self.value(context, function, old=True)
        return old is data.UNDEFINED or (new is not old and new != old)


class _Parsed(NamedTuple):
    statement: Any
    # Why the expression cannot be evaluated, if it cannot.
    error: str | None
    reads_node: bool
    # The projection of $node onto the keys the expression reads, when
    # that is all it reads of it (None when it reads more, or calls an
    # impure function).
    node_key_of: Callable[[Any], Any] | None


class Evaluation:
    """The expressions of one site action, evaluated on one context."""

    def __init__(self, context: SiteContext,
                 engine: expression_engine.Engine | None = None) -> None:
        self.engine = engine or expression_engine.get_engine()
        new, old, clean = data.freeze_states(
            context.new.as_data(),
            None if context.old is None else context.old.as_data())
        self._scope = Scope(self.engine, new, old, clean)
        self._context = self.engine.context()
        self._context[functions.SCOPE] = self._scope
        self._context[functions.NODE] = None
        self._context['$'] = new
        self._context['$node'] = None
        self._parsed: dict[str, _Parsed] = {}
        # Values by expression text (and projection of, or name of, the
        # node); and by expression text and node name.
        self._values: dict[Any, Any] = {}
        self._node_values: dict[tuple[str, str], Any] = {}
        self._field_names: dict[Path, str] = {}
        # How many times an expression string was parsed (once each).
        self.parses = 0
        self.results: list[fields.ExpressionResult] = []

    @property
    def nodes(self) -> list[str]:
        """Names of the nodes in ``$.nodes``."""
        return list(self._scope.new_nodes)

    def _parse(self, text: str) -> _Parsed:
        parsed = self._parsed.get(text)
        if parsed is None:
            self.parses += 1
            statement, error = self.engine.check(text)
            if error is not None:
                parsed = _Parsed(None, error, False, None)
            else:
                keys = memo.projection(statement, memo.NODE)
                parsed = _Parsed(
                    statement, None,
                    '$node' in expression_engine.variables(statement),
                    memo.projector(keys) if keys else None)
            self._parsed[text] = parsed
        if parsed.error is not None:
            raise _Failed(parsed.error)
        return parsed

    def _node_key(self, text: str, parsed: _Parsed, node: str) -> Any:
        new = self._scope.new_nodes.get(node)
        if new is None:
            raise _Failed('no node "%s" in $.nodes' % node)
        key_of = parsed.node_key_of
        if key_of is not None:
            old = self._scope.old_nodes.get(node)
            projected = key_of(new)
            old_projected = _NOT_IN_OLD if old is None else key_of(old)
            if projected is not memo.NO_KEY and \
                    old_projected is not memo.NO_KEY:
                return (text, projected, old_projected)
        return (text, node)

    def _value(self, text: str, node: str | None) -> Any:
        if node is not None:
            try:
                return self._node_values[(text, node)]
            except KeyError:
                pass
        parsed = self._parse(text)
        if node is None or not parsed.reads_node:
            value = self._computed((text,), parsed, None)
        else:
            value = self._computed(self._node_key(text, parsed, node),
                                   parsed, node)
        if node is not None:
            self._node_values[(text, node)] = value
        return value

    def _computed(self, key: Any, parsed: _Parsed, node: str | None) -> Any:
        try:
            return self._values[key]
        except KeyError:
            pass
        context = self._context
        context.start_clock()
        if node is not None:
            context = context.create_child_context()
            context['$node'] = self._scope.new_nodes[node]
            context[functions.NODE] = node
        try:
            value = parsed.statement.evaluate(context=context)
        except Exception as exc:
            raise _Failed(expression_engine.describe(exc)) from exc
        self._values[key] = value
        return value

    def evaluate(self, text: str, node: str | None = None) -> Any:
        """The value of one expression (for ``$node``, of ``node``).

        Not recorded; ExpressionFailed if it fails.
        """
        try:
            return self._value(text, node)
        except _Failed as exc:
            raise exception.ExpressionFailed(fields.ExpressionError(
                (), text, str(exc), node=node)) from exc.__cause__

    def _field_name(self, path: Path) -> str:
        field = self._field_names.get(path)
        if field is None:
            field = self._field_names[path] = field_name(path)
        return field

    def _record(self, owner: str, path: Path, node: str | None,
                mapping: Mapping[str, Any]) -> Any:
        """The value of one expression mapping, recorded."""
        text = mapping[fields.EXPRESSION_KEY]
        try:
            text = fields.expression_text(mapping)
            result = self._value(text, node)
        except (ValueError, _Failed) as exc:
            raise exception.ExpressionFailed(fields.ExpressionError(
                path, text, str(exc), owner=owner, node=node)
            ) from exc.__cause__
        self.results.append(fields.ExpressionResult(
            owner, self._field_name(path), node, text, result))
        return result

    def resolve(self, value: Any, owner: str, path: Path = (),
                node: str | None = None) -> Any:
        """``value`` with each of its expressions replaced by its value.

        ``owner`` (the task or group id) and ``path`` (where ``value``
        is in it) name the results and the errors. Every value is
        recorded in ``results``. ExpressionFailed on the first that
        fails. A value without expressions is returned as it is.
        """
        return fields.replace(
            value, lambda where, mapping: self._record(owner, where, node,
                                                       mapping), path)

    def condition(self, value: Any, owner: str, node: str | None = None,
                  path: Path = ('condition',)) -> bool:
        """Whether a task or group runs: its ``condition`` computed.

        No condition (None) is true; a literal must be true or false; an
        expression's value counts as YAQL's truth (null and undefined
        are false).
        """
        if value is None:
            return True
        if isinstance(value, bool):
            return value
        if fields.is_expression(value):
            return bool(self._record(owner, path, node, value))
        raise exception.ExpressionFailed(fields.ExpressionError(
            path, None, 'a condition is true, false or a %s mapping, '
            'not %r' % (fields.EXPRESSION_KEY, value), owner=owner,
            node=node))

    def select_nodes(self, value: Any, owner: str, nodes: Iterable[str],
                     path: Path = ('condition',)) -> list[str]:
        """The nodes, among ``nodes``, a task runs on: those its
        ``condition`` holds for.

        A condition that reads ``$node`` is computed (and recorded) per
        node; any other once.
        """
        nodes = list(nodes)
        if not fields.is_expression(value) or \
                not self.reads_node(value):
            return nodes if self.condition(value, owner, path=path) else []
        text = fields.expression_text(value)
        field = self._field_name(path)
        record = self.results.append
        known = self._node_values
        chosen = []
        for node in nodes:
            result = known.get((text, node), _UNKNOWN)
            if result is _UNKNOWN:
                try:
                    result = self._value(text, node)
                except _Failed as exc:
                    raise exception.ExpressionFailed(fields.ExpressionError(
                        path, text, str(exc), owner=owner, node=node)
                    ) from exc.__cause__
            record(fields.ExpressionResult(owner, field, node, text, result))
            if result:
                chosen.append(node)
        return chosen

    def reads_node(self, value: Any) -> bool:
        """Whether an expression in ``value`` reads ``$node``: such a
        field is computed per node."""
        for found in fields.find_expressions(value):
            if not isinstance(found.expression, str):
                continue
            try:
                if self._parse(found.expression).reads_node:
                    return True
            except _Failed:
                continue
        return False
