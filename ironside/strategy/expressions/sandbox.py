"""The sandbox of expressions: what they may reach, and how much.

An expression sees the data it is given (mappings, lists, strings,
numbers, booleans, null) and calls the functions registered in the root
context: YAQL's standard library and the functions of the entry point
group ``ironside.site.expression_functions``, Ironside's own included.
Nothing else: ``a.b`` on a mapping reads the key ``b`` and on anything
else is an unknown function, ``__`` is not even a token, and no function
opens a file, a socket or a module.

What an expression may consume:

- no collection a function walks may hold more than
  :data:`MAX_COLLECTION_SIZE` items (Fuel allowed 10,000; Ironside sites
  reach 10,000 nodes, so ten times that);
- no string or list an operation builds may exceed :data:`MEMORY_QUOTA`
  bytes (100 MiB, as Fuel), no integer :data:`MAX_INTEGER_BITS` bits;
- no evaluation may take more than :data:`TIME_LIMIT` seconds, and no
  expression be nested more than :data:`MAX_DEPTH` levels deep.

YAQL applies the first two through its engine options. The standard
functions that skipped them (string ``+``, ``len`` of an iterator,
``*`` and ``pow`` of integers) are replaced by checked ones, and the
time limit is checked at every function call (:class:`BudgetedContext`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

from yaql.language import contexts
from yaql.language import exceptions as yaql_exceptions
from yaql.language import specs
from yaql.language import utils
from yaql.language import yaqltypes
from yaql.standard_library import math as yaql_math
from yaql.standard_library import queries as yaql_queries
from yaql.standard_library import strings as yaql_strings

from ironside.strategy.expressions import data
from ironside.strategy.expressions import memo

MAX_COLLECTION_SIZE = 100_000
MEMORY_QUOTA = 100 * 1024 * 1024
# Seconds one expression may take: an unmemoised walk of a 10,000-node
# site's nodes takes about three on a small machine.
TIME_LIMIT = 10.0
# Levels of nesting an expression may have (evaluation recurses in
# Python, about six frames a level).
MAX_DEPTH = 100
# Integers beyond this many bits are refused (the memory quota, in bits,
# would allow absurd numbers long before it ran out).
MAX_INTEGER_BITS = 64 * 1024

OPTIONS = {
    'yaql.limitIterators': MAX_COLLECTION_SIZE,
    'yaql.memoryQuota': MEMORY_QUOTA,
}


class Refused(yaql_exceptions.YaqlException):
    """An operation the sandbox refuses (too big)."""


class TooDeep(yaql_exceptions.YaqlParsingException):
    """An expression nested too deeply to be evaluated."""

    def __init__(self) -> None:
        super().__init__(None, None, 'Parse error: expression nested more '
                         'than %d levels deep' % MAX_DEPTH)


class TimedOut(yaql_exceptions.YaqlException):
    """An evaluation that ran out of time."""

    def __init__(self, limit: float) -> None:
        super().__init__('evaluation took longer than %g s' % limit)


def _too_big() -> Refused:
    return Refused('integer of more than %d bits refused' % MAX_INTEGER_BITS)


def _check_integer(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_INTEGER_BITS:
        raise _too_big()
    return value


# Checked replacements of standard functions.

@specs.parameter('left', yaqltypes.Number())
@specs.parameter('right', yaqltypes.Number())
@specs.name('#operator_*')
def _multiplication(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int) and \
            left.bit_length() + right.bit_length() > MAX_INTEGER_BITS:
        raise _too_big()
    return left * right


@specs.parameter('a', yaqltypes.Number())
@specs.parameter('b', yaqltypes.Number())
@specs.parameter('c', yaqltypes.Number(nullable=True))
@specs.name('pow')
def _power(a: Any, b: Any, c: Any = None) -> Any:
    if c is None and isinstance(a, int) and isinstance(b, int) and \
            b > 0 and abs(a) > 1 and \
            (abs(a).bit_length() - 1) * b > MAX_INTEGER_BITS:
        raise _too_big()
    return _check_integer(pow(a, b, c))


@specs.parameter('args', yaqltypes.String())
@specs.inject('engine', yaqltypes.Engine())
@specs.name('#operator_+')
def _concatenation(engine: Any, *args: str) -> str:
    utils.limit_memory_usage(engine, *((1, arg) for arg in args))
    return ''.join(args)


@specs.parameter('collection', utils.IteratorType)
@specs.inject('engine', yaqltypes.Engine())
@specs.name('len')
@specs.extension_method
def _iterator_length(engine: Any, collection: Iterator[Any]) -> int:
    count = 0
    for _ in utils.limit_iterable(collection, engine):
        count += 1
    return count


@specs.inject('engine', yaqltypes.Engine())
@specs.name('#finalize')
def finalize(value: Any, engine: Any) -> Any:
    """An expression's value as plain data (YAQL's own conversion costs
    a function call per item)."""
    return data.plain(value, engine)


# (name, standard function, replacement)
REPLACED = (
    ('#operator_*', yaql_math.multiplication, _multiplication),
    ('pow', yaql_math.pow_, _power),
    ('#operator_+', yaql_strings.concat, _concatenation),
    ('len', yaql_queries.count_, _iterator_length),
    ('where', yaql_queries.where, memo.where),
    ('select', yaql_queries.select, memo.select),
    ('any', yaql_queries.any_, memo.any_),
    ('all', yaql_queries.all_, memo.all_),
    ('#operator_.', yaql_queries.collection_attribution,
     memo.collection_attribution),
)


def _layers(context: contexts.ContextBase) -> Iterator[contexts.Context]:
    while context is not None:
        yield context
        context = context.parent


def _replace(context: contexts.ContextBase, name: str,
             original: Callable[..., Any],
             replacement: Callable[..., Any]) -> None:
    """Swap a standard function for ours, in the layer that holds it."""
    for layer in _layers(context):
        for spec in layer.get_functions(name)[0]:
            if spec.payload is original:
                layer.delete_function(spec)
                layer.register_function(replacement)
                return
    raise RuntimeError('yaql has no function %s to replace' % name)


def harden(context: contexts.ContextBase) -> None:
    """Put the checked and memoised functions in place of YAQL's."""
    for name, original, replacement in REPLACED:
        _replace(context, name, original, replacement)


def depth(parsed: Any) -> int:
    """Levels of nesting of a parsed expression."""
    deepest = 0
    stack = [(parsed, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in memo.children(node))
    return deepest


class BudgetedContext(contexts.Context):
    """A context that stops an evaluation below it at its deadline.

    YAQL resolves every function call by asking each context from the
    caller's up to the root for the function, so this one is asked at
    every call an evaluation makes.
    """

    def __init__(self, parent: contexts.Context, time_limit: float) -> None:
        super().__init__(parent)
        self.time_limit = time_limit
        self.deadline = float('inf')

    def get_functions(self, name: str, predicate: Any = None,
                      use_convention: bool = False) -> Any:
        if time.monotonic() > self.deadline:
            raise TimedOut(self.time_limit)
        return super().get_functions(name, predicate, use_convention)

    def start_clock(self) -> None:
        self.deadline = time.monotonic() + self.time_limit

    def create_child_context(self) -> contexts.Context:
        return contexts.Context(self)
