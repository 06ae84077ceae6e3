"""Memoised lambdas: why a query over 5,000 nodes costs milliseconds.

YAQL spends tens of microseconds on every function call it makes (it
resolves overloads and checks argument types each time), so a predicate
such as ``$.status = 'ready' and 'controller' in $.roles`` costs about
half a millisecond per node, and ``$.nodes.where(...)`` over a 5,000-node
site over two seconds. Yet such a predicate reads only a few keys of its
element, and a site's nodes share few combinations of those keys.

So the standard ``where``, ``select``, ``any`` and ``all`` are replaced
by ones that evaluate their lambda once per distinct *projection* of the
element (the values of the keys it reads) and reuse the result for
every other element with the same projection. This is exact whenever the
lambda's result depends on the element only through those keys, which
:func:`projection` proves from the expression's tree: the element
variable (``$`` or ``$1``) appears only as ``$.key``, and no function
that answers differently on each call (``random``, ``now``) is called.
Anything else (``$.get('a')``, a bare ``$``, ``$?.a``) is evaluated for
every element, as YAQL would. The same analysis lets a per-node field be
evaluated once per distinct projection of ``$node`` (see
:mod:`.session`). And ``$.nodes.name`` reads the key of each mapping
directly rather than through a YAQL call per node.

Every other variable a lambda reads keeps one value during one call of
``where`` (the memo lives for that call only), and functions are
assumed to give the same answer for the same arguments within an
action, which the README asks of plugin functions too.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from typing import Any

from yaql.language import expressions
from yaql.language import specs
from yaql.language import utils
from yaql.language import yaqltypes

ELEMENT = frozenset({'$', '$1'})
NODE = frozenset({'$node'})

# Functions whose answer may change between two calls.
IMPURE = frozenset({'random', 'now', 'localtz', 'utctz'})

# The projector of each lambda's expression (None: not projectable).
_projectors: weakref.WeakKeyDictionary[
    Any, Callable[[Any], Any] | None] = weakref.WeakKeyDictionary()


def children(node: Any) -> tuple[Any, ...]:
    """The sub-expressions of one node of a parsed expression."""
    if isinstance(node, expressions.Function):
        args: tuple[Any, ...] = node.args  # yaql's Function(name, *args)
        return args
    if isinstance(node, expressions.Wrap):
        return (node.expr,)
    if isinstance(node, expressions.MappingRuleExpression):
        return (node.source, node.destination)
    return ()


def walk(node: Any) -> Iterator[Any]:
    """Every node of a parsed expression's tree, parents first."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def _variable(node: Any) -> str | None:
    if isinstance(node, expressions.GetContextValue):
        name: str = node.path.value  # a KeywordConstant: the name, '$x'
        return name
    return None


def projection(tree: Any, names: Collection[str]) -> tuple[str, ...] | None:
    """The keys of the variables ``names`` an expression reads, or None.

    None unless every use of those variables is ``$var.key`` and no
    impure function is called: then the expression's value depends on
    the variables only through these keys. An expression that does not
    read the variables at all gives an empty tuple.
    """
    keys: list[str] = []
    projected: set[int] = set()
    for node in walk(tree):
        if isinstance(node, expressions.Function):
            if node.name in IMPURE:
                return None
            if node.name == '#operator_.' and len(node.args) == 2 and \
                    _variable(node.args[0]) in names and \
                    isinstance(node.args[1], expressions.KeywordConstant):
                projected.add(id(node.args[0]))
                if node.args[1].value not in keys:
                    keys.append(node.args[1].value)
                continue
        if _variable(node) in names and id(node) not in projected:
            return None
    return tuple(keys)


NO_KEY = object()


def projector(keys: tuple[str, ...]) -> Callable[[Any], Any]:
    """A function giving a mapping's projection onto ``keys``: a hashable
    value, or NO_KEY when there is none (not a mapping, a key missing,
    a value not hashable)."""
    getter = operator.itemgetter(*keys)

    def key_of(value: Any) -> Any:
        if type(value) is not utils.FrozenDict and \
                not isinstance(value, Mapping):
            return NO_KEY
        try:
            key = getter(value)
            hash(key)
        except (KeyError, TypeError):
            return NO_KEY
        return key

    return key_of


def _element_projector(
        function: Callable[..., Any]) -> Callable[[Any], Any] | None:
    """The projector of a YAQL lambda's element, if it has one."""
    expression = getattr(function, '__unwrapped__', None)
    if not isinstance(expression, expressions.Expression):
        return None
    if expression not in _projectors:
        keys = projection(expression, ELEMENT)
        _projectors[expression] = projector(keys) if keys else None
    return _projectors[expression]


def memoised(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` of one element, evaluated once per projection."""
    key_of = _element_projector(function)
    if key_of is None:
        return function
    results: dict[Any, Any] = {}

    def call(element: Any) -> Any:
        key = key_of(element)
        if key is NO_KEY:
            return function(element)
        try:
            return results[key]
        except KeyError:
            pass
        value = function(element)
        if not utils.is_iterator(value):
            results[key] = value
        return value

    return call


# The replacements of YAQL's standard functions, same signatures.

@specs.parameter('collection', yaqltypes.Iterable())
@specs.parameter('predicate', yaqltypes.Lambda())
@specs.method
def where(collection: Iterable[Any],
          predicate: Callable[..., Any]) -> Iterable[Any]:
    return filter(memoised(predicate), collection)


@specs.parameter('collection', yaqltypes.Iterable())
@specs.parameter('selector', yaqltypes.Lambda())
@specs.method
def select(collection: Iterable[Any],
           selector: Callable[..., Any]) -> Iterable[Any]:
    return map(memoised(selector), collection)


@specs.parameter('collection', yaqltypes.Iterable())
@specs.parameter('attribute', yaqltypes.Keyword(expand=False))
@specs.inject('operator', yaqltypes.Delegate('#operator_.'))
@specs.name('#operator_.')
def collection_attribution(collection: Iterable[Any], attribute: Any,
                           operator: Callable[..., Any]) -> Iterable[Any]:
    """``$.nodes.name``: the key of each mapping read directly (what
    YAQL's ``#operator_.`` does for a mapping), anything else through
    the operator."""
    name = attribute.value

    def get(item: Any) -> Any:
        if isinstance(item, Mapping):
            return item[name]
        return operator(item, attribute)

    return map(get, collection)


@specs.parameter('collection', yaqltypes.Iterable())
@specs.parameter('predicate', yaqltypes.Lambda())
@specs.name('any')
@specs.extension_method
def any_(collection: Iterable[Any],
         predicate: Callable[..., Any] | None = None) -> bool:
    if predicate is None:
        for _ in collection:
            return True
        return False
    test = memoised(predicate)
    return any(test(element) for element in collection)


@specs.parameter('collection', yaqltypes.Iterable())
@specs.parameter('predicate', yaqltypes.Lambda())
@specs.name('all')
@specs.extension_method
def all_(collection: Iterable[Any],
         predicate: Callable[..., Any] | None = None) -> bool:
    if predicate is None:
        return all(bool(element) for element in collection)
    test = memoised(predicate)
    return all(test(element) for element in collection)
