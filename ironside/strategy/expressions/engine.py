"""The process's one YAQL engine and the functions it knows.

Building a YAQL engine (ply's lexer and parser tables) is expensive, so a
process has one: :func:`get_engine` builds it on first use. It is safe
to share between threads: parsing, the one step that changes the
engine's state, takes a lock, and evaluation only reads the engine and
its root context. What expressions may reach and consume is
:mod:`.sandbox`'s business.
"""

from __future__ import annotations

# yaql uses collections.abc without importing it.
import collections.abc  # noqa: F401
import importlib.metadata
import logging
import threading
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any
from typing import TypeAlias

import stevedore
import yaql
from yaql.language import contexts
from yaql.language import conventions
from yaql.language import exceptions as yaql_exceptions
from yaql.language import expressions
from yaql.language import factory

from ironside.strategy.expressions import fuel_vocabulary
from ironside.strategy.expressions import memo
from ironside.strategy.expressions import sandbox

LOG = logging.getLogger(__name__)

FUNCTIONS_NAMESPACE = 'ironside.site.expression_functions'

# yaql is untyped: mypy sees its Statement as Any.
Parsed: TypeAlias = expressions.Statement


def load_functions() -> list[Callable[..., Any]]:
    """Every function of the entry point group, Ironside's own included.

    A function that fails to load is left out and logged: expressions
    that call it are then refused as calling an unknown function.
    """
    def failed(manager: stevedore.ExtensionManager[Callable[..., Any]],
               entry_point: importlib.metadata.EntryPoint,
               exc: BaseException) -> None:
        LOG.error('Expression function %s (%s) could not be loaded: %s',
                  entry_point.name, entry_point.value, exc)

    manager: stevedore.ExtensionManager[Callable[..., Any]] = \
        stevedore.ExtensionManager(
            FUNCTIONS_NAMESPACE, invoke_on_load=False,
            on_load_failure_callback=failed)
    return [extension.plugin for extension in
            sorted(manager, key=lambda e: e.name)]


def _root_context(functions: Iterable[Callable[..., Any]]) -> contexts.Context:
    """YAQL's standard library, hardened, with the functions Fuel's
    vocabulary is translated to; and above it the functions of the entry
    points (one of them named like a standard function wins where both
    accept the arguments)."""
    standard = yaql.create_context(
        convention=conventions.CamelCaseConvention(), yaqlized=False,
        delegates=False, finalizer=sandbox.finalize)
    sandbox.harden(standard)
    for function in fuel_vocabulary.FUNCTIONS:
        standard.register_function(function)
    context = standard.create_child_context()
    for function in functions:
        context.register_function(function)
    return context


def _defined(parsed: Any) -> set[str]:
    """Names of the functions an expression defines with ``def``."""
    return {node.args[0].value for node in memo.walk(parsed)
            if type(node) is expressions.Function and node.name == 'def'
            and node.args and isinstance(node.args[0], expressions.Constant)
            and isinstance(node.args[0].value, str)}


def variables(parsed: Any) -> frozenset[str]:
    """The names of the variables an expression reads (``$``, ``$node``)."""
    return frozenset(node.path.value for node in memo.walk(parsed)
                     if isinstance(node, expressions.GetContextValue))


class Engine:
    """A YAQL engine with its root context of functions."""

    def __init__(self, functions: Iterable[Callable[..., Any]] | None = None,
                 time_limit: float = sandbox.TIME_LIMIT) -> None:
        self._yaql = factory.YaqlFactory().create(options=sandbox.OPTIONS)
        self.time_limit = time_limit
        self.root = _root_context(
            load_functions() if functions is None else functions)
        self._parse_lock = threading.Lock()

    def parse(self, text: str) -> Parsed:
        """The parsed expression, Fuel's vocabulary translated
        (:mod:`.fuel_vocabulary`); YAQL's exceptions when it does not
        parse.

        An absurdly nested expression is refused with TooDeep rather
        than a RecursionError.
        """
        with self._parse_lock:
            try:
                parsed = self._yaql(text)
            except RecursionError:
                raise sandbox.TooDeep() from None
        if sandbox.depth(parsed) > sandbox.MAX_DEPTH:
            raise sandbox.TooDeep()
        return fuel_vocabulary.translate(parsed)

    def unknown_functions(self, parsed: Parsed) -> list[str]:
        """Names the expression calls that no registered function has."""
        unknown = []
        defined = _defined(parsed)
        for node in memo.walk(parsed):
            if type(node) is not expressions.Function:
                continue
            name = node.name
            if name.startswith(('#', '*')) or name in unknown or \
                    name in defined:
                continue
            if not self.root.collect_functions(name):
                unknown.append(name)
        return unknown

    def check(self, text: str) -> tuple[Parsed | None, str | None]:
        """The parsed expression, or why it cannot be evaluated (it does
        not parse, calls an unknown function, or has a typographic
        quote)."""
        refused = fuel_vocabulary.refusal(text)
        if refused is not None:
            return None, refused
        try:
            parsed = self.parse(text)
        except yaql_exceptions.YaqlException as exc:
            return None, describe(exc)
        unknown = self.unknown_functions(parsed)
        if unknown:
            return None, 'unknown function%s %s' % (
                's' if len(unknown) > 1 else '',
                ', '.join('"%s"' % name for name in unknown))
        return parsed, None

    def context(self) -> sandbox.BudgetedContext:
        """A fresh context for one evaluation session; ``start_clock()``
        before each evaluation gives it ``time_limit`` seconds."""
        return sandbox.BudgetedContext(self.root, self.time_limit)

    @property
    def options(self) -> Any:
        return self._yaql.options


_ENGINE: Engine | None = None
_ENGINE_LOCK = threading.Lock()


def get_engine() -> Engine:
    """The process's engine, built on first use."""
    global _ENGINE
    if _ENGINE is None:
        with _ENGINE_LOCK:
            if _ENGINE is None:
                _ENGINE = Engine()
    return _ENGINE


def describe(exc: BaseException) -> str:
    """YAQL's message for an error, or a plain one for Python's own."""
    if isinstance(exc, KeyError) and exc.args:
        key = exc.args[0]
        return 'no key "%s"%s' % (key, fuel_vocabulary.hint(key))
    text = str(exc)
    if isinstance(exc, yaql_exceptions.YaqlException):
        return text
    return '%s: %s' % (type(exc).__name__, text) if text else \
        type(exc).__name__
