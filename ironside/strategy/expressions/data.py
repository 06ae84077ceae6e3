"""The data expressions work on: YAQL's immutable forms and back.

YAQL wants its input as immutable values (mappings as ``FrozenDict``,
lists as tuples); results come back lazy (``where`` gives an iterator)
and must be made concrete before they are kept or compared. A site's
state is converted once per action, and the records of nodes,
configuration documents and settings that did not change between the
old and the new state are the same objects in both, so comparing them
costs an identity check.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from yaql.language import utils

_ATOMS = (str, int, float, bool, type(None))


class _Undefined:
    """The value of ``old(expr)`` when there is nothing to evaluate on."""

    __slots__ = ()

    def __repr__(self) -> str:
        return 'undefined'

    def __bool__(self) -> bool:
        return False


UNDEFINED = _Undefined()


def plain(value: Any, engine: Any = None) -> Any:
    """A value as JSON data: dicts, lists, strings, numbers, booleans,
    None. Undefined is None; dates and times are ISO 8601 text; any
    other value its text."""
    if value is UNDEFINED:
        return None
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v, engine) for k, v in value.items()}
    if utils.is_iterable(value):
        items = value if engine is None else \
            utils.limit_iterable(value, engine)
        return [plain(item, engine) for item in items]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)


def freeze(value: Any, clean: set[int] | None = None) -> Any:
    """Plain data (dicts, lists, scalars) in YAQL's immutable forms.

    The id of every container made is added to ``clean``.
    """
    kind = type(value)
    if kind is dict:
        frozen: Any = utils.FrozenDict(
            {k: freeze(v, clean) for k, v in value.items()})
    elif kind is list or kind is tuple:
        frozen = tuple(freeze(item, clean) for item in value)
    elif isinstance(value, _ATOMS):
        return value
    else:
        return utils.convert_input_data(value)
    if clean is not None:
        clean.add(id(frozen))
    return frozen


def _freeze_like(new: Mapping[str, Any], old: Mapping[str, Any],
                 frozen_old: Mapping[str, Any],
                 clean: set[int]) -> utils.FrozenDict:
    """``new`` frozen, reusing each of ``frozen_old``'s values whose
    plain form in ``old`` equals the one in ``new``."""
    result = {key: frozen_old[key] if key in old and old[key] == value
              else freeze(value, clean) for key, value in new.items()}
    frozen = utils.FrozenDict(result)
    clean.add(id(frozen))
    return frozen


def freeze_states(new: Mapping[str, Any], old: Mapping[str, Any] | None
                  ) -> tuple[Any, Any, frozenset[int]]:
    """Both states frozen, sharing what did not change; and the ids of
    every container in them (which :func:`settle` need not walk)."""
    clean: set[int] = set()
    if old is None:
        return freeze(new, clean), None, frozenset(clean)
    frozen_old = freeze(old, clean)
    old_nodes = {n['name']: (n, f)
                 for n, f in zip(old['nodes'], frozen_old['nodes'],
                                     strict=True)}
    nodes = []
    for node in new['nodes']:
        same = old_nodes.get(node['name'])
        nodes.append(same[1] if same is not None and same[0] == node
                     else freeze(node, clean))
    frozen_nodes = tuple(nodes)
    frozen_new = utils.FrozenDict({
        'nodes': frozen_nodes,
        'configs': _freeze_like(new['configs'], old['configs'],
                                frozen_old['configs'], clean),
        'settings': frozen_old['settings']
        if new['settings'] == old['settings']
        else freeze(new['settings'], clean),
        'cluster': freeze(new['cluster'], clean)})
    clean.update((id(frozen_nodes), id(frozen_new)))
    return frozen_new, frozen_old, frozenset(clean)


def settle(value: Any, engine: Any, clean: frozenset[int] = frozenset()
           ) -> Any:
    """``value`` with every lazy sequence in it made a tuple.

    Results are kept and compared, and an iterator can be read once.
    Containers without iterators in them are returned as they are;
    those whose id is in ``clean`` (the state's records) are not walked.
    """
    if isinstance(value, _ATOMS) or id(value) in clean:
        return value
    if utils.is_iterator(value):
        return tuple(settle(item, engine, clean)
                     for item in utils.limit_iterable(value, engine))
    if isinstance(value, tuple):
        items = [settle(item, engine, clean) for item in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return tuple(items)
    if isinstance(value, Mapping):
        settled = {k: settle(v, engine, clean) for k, v in value.items()}
        if all(settled[k] is v for k, v in value.items()):
            return value
        return utils.FrozenDict(settled)
    return value
