"""Fuel's vocabulary: expressions written for Fuel, read as Fuel meant them.

Fuel's ``$`` and Ironside's differ in a few places, and an expression
copied from a Fuel task graph (or from the computed-fields spec) would
otherwise be refused, or worse, be silently false. Each parsed
expression is translated once, when it is parsed (:func:`translate`):

``$.role``, ``$.label`` of a node
    Fuel lists a node once per role, each entry with one ``role``;
    Ironside lists it once, with all its ``roles``. So where the node
    records are (an element of ``$.nodes`` inside ``where``, ``select``
    and the like, and ``$node``), ``$.role = 'compute'`` (or
    ``'compute' = $.role``) is read as "compute is one of its roles",
    ``$.role != 'compute'`` as "none of its roles is compute", and
    ``$.role in [...]`` as "one of its roles is listed". ``$.label``
    is the same over the keys of the node's ``labels``. Anywhere else
    (a configuration document's ``role`` key) ``.role`` is YAQL's key.
``True``, ``False``
    Fuel's (and Python's) capitalised booleans are booleans, not YAQL's
    bare word (the string ``'True'``, so that ``= True`` was false).
``network_scheme(...)``
    Fuel's spelling of ``networkScheme`` (:mod:`.functions`), which YAQL's
    convention names in camelCase.

Typographic quotes are refused with the reason when the design is
committed (:func:`refusal`): ``‘compute’`` (what a rendered document
gives when copied) is not a YAQL string, and YAQL would only call the
quote an illegal character.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from yaql.language import expressions
from yaql.language import specs
from yaql.language import utils
from yaql.language import yaqltypes

# Fuel's one-valued node fields and the Ironside fields holding them.
NODE_FIELDS = {'role': 'roles', 'label': 'labels'}

# Internal functions the translation calls; a name starting with '#'
# cannot be written in an expression.
HAS = '#fuel_has'
HAS_ANY = '#fuel_has_any'

# YAQL's names of the comparisons (``=`` and ``!=`` have aliases).
_EQUAL = frozenset({'*equal', '#operator_='})
_NOT_EQUAL = frozenset({'*not_equal', '#operator_!='})
_IN = '#operator_in'
_DOT = '#operator_.'
_SAFE_DOT = '#operator_?.'

_ELEMENT = frozenset({'$', '$1'})
_NODE = '$node'

_BOOLEANS = {'True': True, 'False': False}

TYPOGRAPHIC_QUOTES = '‘’‚‛“”„‟′″'
_TYPOGRAPHIC = re.compile('[%s]' % TYPOGRAPHIC_QUOTES)
# A string in typographic quotes: what it says in straight ones.
_TYPOGRAPHIC_STRING = re.compile("[‘‚‛“„‟]([^'\"%s]*)[’”]"
                                 % TYPOGRAPHIC_QUOTES)

# Fuel's spellings of functions, and Ironside's (YAQL's camelCase).
FUNCTION_NAMES = {'network_scheme': 'networkScheme'}


def refusal(text: str) -> str | None:
    """Why an expression is refused before YAQL reads it: a typographic
    quote, which YAQL would call an illegal character."""
    found = _TYPOGRAPHIC.search(text)
    if found is None:
        return None
    quoted = _TYPOGRAPHIC_STRING.match(text, found.start())
    instead = "'%s'" % quoted.group(1) if quoted else "'...'"
    return ('typographic quote %s at position %d: YAQL strings are in '
            'straight quotes (%s)' % (found.group(), found.start(), instead))


def hint(key: Any) -> str:
    """What to say of a missing key that Fuel's nodes had."""
    if key in NODE_FIELDS:
        plural = NODE_FIELDS[key]
        return (" (a node's %s are `.%s`; Fuel's `.%s` is read in a "
                "comparison: `$.%s = 'x'` over `$.nodes`, `$node.%s = 'x'` "
                "for the node a task runs on)" % (plural, plural, key, key,
                                                  key))
    if key in NODE_FIELDS.values():
        return (" (`.%s` is a node's: inside `$.nodes.where(...)`, or "
                "`$node.%s` for the node a task runs on)" % (key, key))
    return ''


def _is_dot(node: Any) -> bool:
    return type(node) is expressions.BinaryOperator and node.name == _DOT


def _variable(node: Any) -> str | None:
    if isinstance(node, expressions.GetContextValue):
        return str(node.path.value)
    return None


def _node_field(node: Any, element_is_node: bool
                ) -> tuple[Any, str] | None:
    """``(R, 'role')`` for ``R.role`` (or ``label``) when R is a node
    record (``$node``, or the element in a lambda over ``$.nodes``),
    else None."""
    if not _is_dot(node):
        return None
    receiver, key = node.args
    if not isinstance(key, expressions.KeywordConstant) or \
            key.value not in NODE_FIELDS:
        return None
    name = _variable(receiver)
    if name == _NODE or (element_is_node and name in _ELEMENT):
        return receiver, key.value
    return None


def _attribute(receiver: Any, key: str) -> expressions.BinaryOperator:
    return expressions.BinaryOperator(
        '.', receiver, expressions.KeywordConstant(key), None)


def _call(name: str, *args: Any) -> expressions.Function:
    call = expressions.Function(name, *args)
    call.uses_receiver = False
    return call


def _comparison(node: Any, element_is_node: bool
                ) -> expressions.Expression | None:
    """The translation of a comparison with a node's ``role`` or
    ``label``, or None when ``node`` is not one."""
    if not isinstance(node, expressions.Function) or len(node.args) != 2:
        return None
    left, right = node.args
    if node.name in _EQUAL or node.name in _NOT_EQUAL:
        found = _node_field(left, element_is_node)
        other = right
        if found is None:
            found = _node_field(right, element_is_node)
            other = left
        if found is None:
            return None
        receiver, field = found
        has = _call(HAS, _attribute(receiver, NODE_FIELDS[field]), other)
        if node.name in _EQUAL:
            return has
        return expressions.UnaryOperator('not', has, None)
    if node.name == _IN:
        found = _node_field(left, element_is_node)
        if found is None:
            return None
        receiver, field = found
        return _call(HAS_ANY, _attribute(receiver, NODE_FIELDS[field]),
                     right)
    return None


# Methods giving some of their receiver's items: the items of
# ``$.nodes.where(...).orderBy(...)`` are node records still.
_SUBSET_METHODS = frozenset({
    'where', 'orderBy', 'orderByDescending', 'thenBy', 'thenByDescending',
    'skip', 'take', 'limit', 'skipWhile', 'takeWhile', 'distinct',
    'reverse', 'toList'})
# Functions giving their argument's value in a state.
_STATE_FUNCTIONS = frozenset({'new', 'old'})


def _over_nodes(node: Any) -> bool:
    """Whether ``node`` gives node records: ``X.nodes``, some of them
    (``X.nodes.where(...)``), or either in a state (``new($.nodes)``)."""
    if _is_dot(node):
        receiver, member = node.args
        if isinstance(member, expressions.KeywordConstant):
            return bool(member.value == 'nodes')
        return isinstance(member, expressions.Function) and \
            member.name in _SUBSET_METHODS and _over_nodes(receiver)
    return isinstance(node, expressions.Function) and \
        node.name in _STATE_FUNCTIONS and len(node.args) == 1 and \
        _over_nodes(node.args[0])


def _translate(node: Any, element_is_node: bool) -> Any:
    if type(node) is expressions.KeywordConstant and \
            node.value in _BOOLEANS:
        return expressions.Constant(_BOOLEANS[node.value])
    if isinstance(node, expressions.Wrap):
        node.expr = _translate(node.expr, element_is_node)
        return node
    if isinstance(node, expressions.MappingRuleExpression):
        # The source is a key (``name => value``): left as written.
        node.destination = _translate(node.destination, element_is_node)
        return node
    if not isinstance(node, expressions.Function) or \
            isinstance(node, expressions.GetContextValue):
        return node
    translated = _comparison(node, element_is_node)
    if translated is not None:
        return _translate(translated, element_is_node)
    node.name = FUNCTION_NAMES.get(node.name, node.name)
    if node.name in (_DOT, _SAFE_DOT) and len(node.args) == 2:
        receiver, member = node.args
        # ``R.key``: the key is a name, not a value. ``C.where(...)``:
        # inside the method's arguments ``$`` is an element of C.
        receiver = _translate(receiver, element_is_node)
        if not isinstance(member, expressions.KeywordConstant):
            member = _translate(member, _over_nodes(receiver))
        node.args = (receiver, member)
        return node
    node.args = tuple(_translate(arg, element_is_node) for arg in node.args)
    return node


def translate(parsed: expressions.Statement) -> expressions.Statement:
    """``parsed`` with Fuel's vocabulary read as Fuel's (see the
    module's docstring); the tree is changed in place."""
    expression = _translate(parsed.expression, False)
    parsed.expression = expression
    parsed.args = (expression,)
    return parsed


# The functions the translation calls.

@specs.parameter('value', nullable=True)
@specs.name(HAS)
def has(values: Any, value: Any) -> bool:
    """Whether ``value`` is one of a node's roles, or one of its labels'
    keys."""
    if isinstance(values, Mapping) or utils.is_iterable(values):
        return value in values
    return bool(values == value)


@specs.parameter('wanted', yaqltypes.Iterable())
@specs.name(HAS_ANY)
def has_any(values: Any, wanted: Any) -> bool:
    """Whether one of a node's roles (or labels' keys) is ``wanted``."""
    return any(has(values, value) for value in wanted)


FUNCTIONS = (has, has_any)
