"""Ironside's own expression functions: the helpers of the spec and Fuel's.

Each is registered through the entry point group
``ironside.site.expression_functions`` (``setup.cfg``), the way a user's
functions are. YAQL's convention names them in camelCase
(``changed_any`` is ``changedAny``).

``new(expr)``, ``old(expr)``
    ``expr`` evaluated over the new state (``$`` the target site,
    ``$node`` the node's new record) or over the old one (the site as
    the last successful action left it, ``$node`` the node's record
    then). ``old`` is undefined when there is no old state, or when
    ``expr`` fails on it (a key the old design did not have).
``changed(expr)``
    ``new(expr)`` differs from ``old(expr)``; true when ``old(expr)``
    is undefined.
``changedAll(expr, ...)``, ``changedAny(expr, ...)``
    Every / any ``expr`` changed.
``added(expr)``
    What ``new(expr)`` has that ``old(expr)`` has not: for mappings the
    keys only the new one has (nested mappings compared key by key), for
    lists the items only the new one has, for other values the new value
    if it differs, else null. ``new(expr)`` whole when old is undefined.
``deleted(expr)``
    The reverse: what ``old(expr)`` has that ``new(expr)`` has not; null
    when old is undefined.
``isUndef(value)``
    Whether ``value`` is undefined (what ``old`` gives without an old
    state). Undefined is false in a condition, equal to nothing, and
    null in a result.
``toJson(value)``, ``toYaml(value)``
    ``value`` as JSON (keys sorted, compact) or YAML text.
``node.networkScheme()``, ``node.networkScheme(part)``
    Fuel's network scheme of a node (``$node``, an element of
    ``$.nodes``), or of each node of a list of them: the whole scheme
    its BaremetalNode document gives, or one part of it: the scheme's
    own key (``interfaces``, ``transformations``), else that key of each
    endpoint that has it, by endpoint (``routes``, ``IP``, ``gateway``).
    Fuel's spelling ``network_scheme`` reads the same. A node without a
    network scheme, or a part neither the scheme nor any endpoint has,
    is an error: never an empty value a condition would read as false.

``new``, ``old``, ``changed`` and the others evaluate their argument
against the whole state: inside them ``$`` is the site, even within a
``where``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import Protocol

import yaml
from yaql.language import exceptions as yaql_exceptions
from yaql.language import specs
from yaql.language import utils
from yaql.language import yaqltypes

from ironside.strategy.expressions.data import UNDEFINED
from ironside.strategy.expressions.data import plain

# Context names an expression cannot spell (``$`` is followed by word
# characters only): the evaluation's scope, and the node of a per-node
# evaluation.
SCOPE = '$%scope'
NODE = '$%node'


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (tuple, list))


def diff_added(old: Any, new: Any) -> Any:
    """What ``new`` has that ``old`` has not (see ``added``)."""
    if old is UNDEFINED:
        return new
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        result = {}
        for key, value in new.items():
            if key not in old:
                result[key] = value
            elif isinstance(value, Mapping) and \
                    isinstance(old[key], Mapping):
                nested = diff_added(old[key], value)
                if nested:
                    result[key] = nested
        return utils.FrozenDict(result)
    if _is_sequence(old) and _is_sequence(new):
        try:
            known: Any = set(old)
        except TypeError:
            known = old
        return tuple(item for item in new if item not in known)
    return None if new == old else new


def diff_deleted(old: Any, new: Any) -> Any:
    """What ``old`` has that ``new`` has not (see ``deleted``)."""
    if old is UNDEFINED:
        return None
    return diff_added(new, old)


class Scope(Protocol):
    """What new(), old() and changed() ask of the scope a site action's
    evaluation puts in the context (:class:`.session.Scope`)."""

    def value(self, context: Any, function: Callable[..., Any],
              old: bool) -> Any: ...

    def changed(self, context: Any, function: Callable[..., Any]) -> bool: ...


def _scope(context: Any) -> Scope:
    scope: Scope | None = context.get_data(SCOPE)
    if scope is None:
        raise RuntimeError('new(), old() and changed() need an evaluation '
                           'of a site action')
    return scope


_EXPRESSION = yaqltypes.Lambda(with_context=True)


@specs.parameter('expression', _EXPRESSION)
@specs.inject('context', yaqltypes.Context())
def new(context: Any, expression: Callable[..., Any]) -> Any:
    return _scope(context).value(context, expression, old=False)


@specs.parameter('expression', _EXPRESSION)
@specs.inject('context', yaqltypes.Context())
def old(context: Any, expression: Callable[..., Any]) -> Any:
    return _scope(context).value(context, expression, old=True)


@specs.parameter('expression', _EXPRESSION)
@specs.inject('context', yaqltypes.Context())
def changed(context: Any, expression: Callable[..., Any]) -> bool:
    return _scope(context).changed(context, expression)


@specs.parameter('expressions', _EXPRESSION)
@specs.inject('context', yaqltypes.Context())
def changed_all(context: Any, *expressions: Callable[..., Any]) -> bool:
    scope = _scope(context)
    return all(scope.changed(context, e) for e in expressions)


@specs.parameter('expressions', _EXPRESSION)
@specs.inject('context', yaqltypes.Context())
def changed_any(context: Any, *expressions: Callable[..., Any]) -> bool:
    scope = _scope(context)
    return any(scope.changed(context, e) for e in expressions)


@specs.parameter('expression', _EXPRESSION)
@specs.inject('context', yaqltypes.Context())
def added(context: Any, expression: Callable[..., Any]) -> Any:
    scope = _scope(context)
    return diff_added(scope.value(context, expression, old=True),
                      scope.value(context, expression, old=False))


@specs.parameter('expression', _EXPRESSION)
@specs.inject('context', yaqltypes.Context())
def deleted(context: Any, expression: Callable[..., Any]) -> Any:
    scope = _scope(context)
    return diff_deleted(scope.value(context, expression, old=True),
                        scope.value(context, expression, old=False))


@specs.parameter('value', nullable=True)
def is_undef(value: Any) -> bool:
    return value is UNDEFINED


@specs.parameter('value', nullable=True)
@specs.inject('engine', yaqltypes.Engine())
def to_json(engine: Any, value: Any) -> str:
    return json.dumps(plain(value, engine), sort_keys=True,
                      separators=(',', ':'), default=str)


@specs.parameter('value', nullable=True)
@specs.inject('engine', yaqltypes.Engine())
def to_yaml(engine: Any, value: Any) -> str:
    return yaml.safe_dump(json.loads(to_json(engine, value)),
                          default_flow_style=False, sort_keys=True)


class NoNetworkScheme(yaql_exceptions.YaqlException):
    """A node's network scheme, or the part asked for, is not there."""


def _network_part(node: Mapping[str, Any], part: str | None) -> Any:
    """One node's network scheme, or one part of it."""
    scheme = node.get('network_scheme')
    if not scheme:
        raise NoNetworkScheme(
            'node "%s" has no network scheme: its BaremetalNode document '
            'gives none (data.network_scheme)' % node.get('name'))
    if part is None:
        return scheme
    if part in scheme:
        return scheme[part]
    endpoints = scheme.get('endpoints')
    found = {name: endpoint[part] for name, endpoint in
             (endpoints.items() if isinstance(endpoints, Mapping) else ())
             if isinstance(endpoint, Mapping) and part in endpoint}
    if not found:
        raise NoNetworkScheme(
            'the network scheme of node "%s" has no "%s", neither of its '
            'own nor in an endpoint' % (node.get('name'), part))
    return utils.FrozenDict(found)


@specs.parameter('part', yaqltypes.String(nullable=True))
@specs.inject('engine', yaqltypes.Engine())
@specs.method
def network_scheme(engine: Any, nodes: Any, part: str | None = None) -> Any:
    if isinstance(nodes, Mapping):
        return _network_part(nodes, part)
    if not utils.is_iterable(nodes):
        raise NoNetworkScheme('networkScheme() is of a node or of a list '
                              'of nodes, not of %s' % type(nodes).__name__)
    return tuple(_network_part(node, part)
                 for node in utils.limit_iterable(nodes, engine))
