"""Inspection rules (API 1.96): what a rule may say, and its conditions.

A rule has ``conditions`` (all must hold) and ``actions`` (run in order
when they do), each ``{"op": NAME, "args": {...}}``, optionally with a
``loop`` (a list, or one object) run once per ``item``; a condition in
a loop says how its results combine with ``multiple`` (any, all, first,
last). A condition's ``op`` may be negated with a leading ``!``.

String arguments are Python format strings over ``node``, ``inventory``,
``plugin_data`` (and ``item`` in a loop): ``"{inventory[cpu][count]}"``.
Only the arguments an operator or action names as formatted are (all of
them inside a loop); one that names what does not exist stays as written.

The operators and actions, their arguments and what they do are those
Ironic documents; the actions themselves run in the conductor
(ironside.conductor.inspection), which can change nodes.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import logging
import re
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import jsonschema
import netaddr
import yaml

from ironside.common import exception
from ironside.common import secrets

LOG = logging.getLogger(__name__)

PHASES = ('main',)
MAX_PRIORITY = 9999
# What rules see of a secret (see [inspection_rules]mask_secrets); which
# keys are secret is common.secrets' one answer.
MASK = '***'
MULTIPLE = ('any', 'all', 'first', 'last')


@dataclasses.dataclass(frozen=True)
class Signature:
    """The arguments of an operator or action."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    formatted: tuple[str, ...] = ()

    def named(self, args: Any) -> dict[str, Any]:
        """``args`` by name; a list gives them in order (Ironic's old,
        deprecated form)."""
        if isinstance(args, list):
            if len(args) < len(self.required):
                raise ValueError('missing required argument(s): %s'
                                 % ', '.join(self.required[len(args):]))
            names = self.required + self.optional
            if len(args) > len(names):
                raise ValueError('too many arguments')
            return dict(zip(names, args, strict=False))
        if not isinstance(args, dict):
            raise ValueError('args must be either a list or dictionary')
        return dict(args)

    def check(self, args: Any) -> None:
        named = self.named(args)
        problems = []
        missing = [n for n in self.required if n not in named]
        if missing:
            problems.append('missing required argument(s): %s'
                            % ', '.join(missing))
        unexpected = sorted(set(named) - set(self.required + self.optional))
        if unexpected:
            problems.append('unexpected argument(s): %s'
                            % ', '.join(unexpected))
        if problems:
            raise ValueError('; '.join(problems))


# Operators: name -> (signature, check(args) -> bool).

def _compare(op: Callable[[Any, Any], bool]
             ) -> tuple[Signature, Callable[[dict[str, Any]], bool]]:
    def check(args: dict[str, Any]) -> bool:
        values = args['values']
        if not isinstance(values, list):
            raise exception.HardwareInspectionFailure(
                error="Expected a list for 'values', got: %s"
                      % type(values).__name__)
        if args.get('force_strings'):
            values = [str(v) for v in values]
        return all(op(a, b) for a, b in zip(values, values[1:],
                                                  strict=False))
    return Signature(('values',), ('force_strings',), ('values',)), check


def _regex(args: dict[str, Any]) -> re.Pattern:
    try:
        return re.compile(args['regex'])
    except (re.error, TypeError) as exc:
        raise exception.HardwareInspectionFailure(
            error='invalid regular expression: %s' % exc) from None


def _in_net(args: dict[str, Any]) -> bool:
    try:
        return netaddr.IPAddress(args['address']) in \
            netaddr.IPNetwork(args['subnet'])
    except (netaddr.AddrFormatError, ValueError, TypeError) as exc:
        raise exception.HardwareInspectionFailure(
            error='invalid value: %s' % exc) from None


def _is_true(value: Any) -> bool:
    if isinstance(value, (bool, int, float)):
        return bool(value)
    if isinstance(value, str):
        return value.lower() in ('yes', 'true')
    return False


def _is_false(value: Any) -> bool:
    if isinstance(value, (bool, int, float)):
        return not value
    if isinstance(value, str):
        return value.lower() in ('no', 'false')
    return value is None


_VALUE = Signature(('value',), (), ('value',))
_MATCH = Signature(('value', 'regex'), (), ('value',))

OPERATORS: dict[str, tuple[Signature, Callable[[dict], bool]]] = {
    'eq': _compare(lambda a, b: a == b),
    'lt': _compare(lambda a, b: a < b),
    'gt': _compare(lambda a, b: a > b),
    'is-empty': (_VALUE, lambda a: str(a['value']) in (
        '', 'None', '[]', '{}')),
    'in-net': (Signature(('address', 'subnet'), (),
                         ('address', 'subnet')), _in_net),
    'matches': (_MATCH, lambda a: _regex(a).fullmatch(
        str(a['value'])) is not None),
    'contains': (_MATCH, lambda a: _regex(a).search(
        str(a['value'])) is not None),
    'one-of': (Signature(('value',), ('values',), ('value',)),
               lambda a: a['value'] in (a.get('values') or [])),
    'is-none': (_VALUE, lambda a: a['value'] is None),
    'is-true': (_VALUE, lambda a: _is_true(a['value'])),
    'is-false': (_VALUE, lambda a: _is_false(a['value'])),
}

# Actions: name -> signature (the conductor carries them out). Those
# that change plugin data get it as their target, not as an argument.
_PATH_VALUE = Signature(('path', 'value'), (), ('value',))
_EXTEND = Signature(('path', 'value'), ('unique',), ('value',))
_PORT = ('port_id', 'path')
ACTIONS: dict[str, Signature] = {
    'fail': Signature(('msg',)),
    'log': Signature(('msg',), ('level',), ('msg',)),
    'set-attribute': _PATH_VALUE,
    'extend-attribute': _EXTEND,
    'del-attribute': Signature(('path',)),
    'set-capability': Signature(('name', 'value'), (), ('value',)),
    'unset-capability': Signature(('name',)),
    'add-trait': Signature(('name',)),
    'remove-trait': Signature(('name',)),
    'set-plugin-data': _PATH_VALUE,
    'extend-plugin-data': _EXTEND,
    'unset-plugin-data': Signature(('path',)),
    'set-port-attribute': Signature(_PORT + ('value',), (), ('value',)),
    'extend-port-attribute': Signature(_PORT + ('value',), ('unique',),
                                       ('value',)),
    'del-port-attribute': Signature(_PORT),
    'api-call': Signature(('url',), ('headers', 'proxies', 'timeout',
                                     'retries', 'backoff_factor'),
                          ('url',)),
}


def parse_op(op: str) -> tuple[str, bool]:
    """The operator's name, and whether a leading ``!`` negates it."""
    op = op.strip()
    if op.count('!') > 1:
        raise ValueError('Multiple exclamation marks are not allowed. To '
                         'invert an operation, add one exclamation mark '
                         'before the operator, e.g. !eq.')
    return op.lstrip('!').strip(), op.startswith('!')


def _piece_schema(ops: list[str], extra: dict) -> dict:
    return {
        'type': 'object',
        'required': ['op', 'args'],
        'properties': dict({'op': {'enum': ops},
                            'args': {'type': ['array', 'object']},
                            'loop': {'type': ['array', 'object']}}, **extra),
        'additionalProperties': True,
    }


SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'description': {'type': ['string', 'null'], 'maxLength': 255},
        'phase': {'type': ['string', 'null'], 'maxLength': 16},
        'priority': {'type': 'integer', 'minimum': 0},
        'sensitive': {'type': ['boolean', 'null']},
        # null: none (ironicclient sends it when given no conditions).
        'conditions': {'type': ['array', 'null'], 'items': _piece_schema(
            list(OPERATORS) + ['!' + op for op in OPERATORS],
            {'multiple': {'enum': list(MULTIPLE)}})},
        'actions': {'type': 'array', 'minItems': 1,
                    'items': _piece_schema(list(ACTIONS), {})},
    },
    'required': ['actions'],
    'additionalProperties': False,
}


def check_rule(rule: dict[str, Any], built_in: bool = False) -> None:
    """Ironic's checks beyond the schema; Invalid naming every problem.
    Built-in rules may have any priority."""
    errors = []
    phase = rule.get('phase') or 'main'
    if phase not in PHASES:
        errors.append('Invalid phase: %s. Valid phases are: %s'
                      % (phase, ', '.join(PHASES)))
    if rule.get('priority', 0) > MAX_PRIORITY and not built_in:
        errors.append('Priority must be between 0 and %d for user-defined '
                      'rules.' % MAX_PRIORITY)
    for condition in rule.get('conditions') or ():
        try:
            op, _negated = parse_op(condition['op'])
            OPERATORS[op][0].check(condition['args'])
        except ValueError as exc:
            errors.append('Invalid parameters for condition operator %s: '
                          '%s' % (condition['op'], exc))
    for action in rule['actions']:
        try:
            ACTIONS[action['op']].check(action['args'])
        except ValueError as exc:
            errors.append('Invalid parameters for action operator %s: %s'
                          % (action['op'], exc))
    if len(errors) == 1:
        raise exception.Invalid(errors[0])
    if errors:
        raise exception.Invalid('Multiple validation errors occurred: %s'
                                % '; '.join(errors))


_BUILT_IN_SCHEMA = dict(SCHEMA, properties=dict(
    SCHEMA['properties'], priority={'type': 'integer'}))


def built_in_rules(text: str, source: str) -> list[dict[str, Any]]:
    """The rules of a built-in rules file (a YAML list), checked as the
    API checks rules, with their defaults; those without a UUID get
    00000000-0000-0000-0000-<n>. ConfigInvalid naming the file if bad."""
    try:
        loaded = yaml.safe_load(text)
        if not isinstance(loaded, list):
            raise ValueError('it must be a list of rules')
        found = []
        for index, rule in enumerate(loaded):
            jsonschema.validate(rule, _BUILT_IN_SCHEMA)
            check_rule(rule, built_in=True)
            found.append({
                'uuid': rule.get('uuid') or
                '00000000-0000-0000-0000-%012x' % index,
                'description': rule.get('description'),
                'phase': rule.get('phase') or 'main',
                'priority': rule.get('priority', 0),
                'sensitive': bool(rule.get('sensitive')),
                'conditions': rule.get('conditions') or [],
                'actions': rule['actions']})
        return found
    except (yaml.YAMLError, ValueError, jsonschema.ValidationError,
            exception.Invalid) as exc:
        message = getattr(exc, 'message', None) or str(exc).splitlines()[0]
        raise exception.ConfigInvalid(
            error_msg='built-in inspection rules %s: %s' % (source, message)
        ) from None


class Masked(collections.abc.Mapping):
    """A read-only view of a document in which secrets read as '***'.

    Rules see the inventory and plugin data through it, so a rule cannot
    copy a password into a field users may read. A view rather than a
    masked copy (:func:`ironside.common.secrets.mask_secrets`): a rule
    reads a few fields of a large inventory.
    """

    def __init__(self, data: Any, enabled: bool = True) -> None:
        self._data = data
        self._enabled = enabled

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, dict):
            return Masked(value, self._enabled)
        if isinstance(value, list):
            return [self._wrap(v) for v in value]
        return value

    def __getitem__(self, key: Any) -> Any:
        if self._enabled and isinstance(key, str) and \
                secrets.is_secret_key(key):
            return MASK
        return self._wrap(self._data[key])

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr({k: self[k] for k in self._data})


def interpolate(value: Any, context: dict[str, Any],
                missing: Any = ...) -> Any:
    """``value`` with its format strings filled from ``context``.

    A field that cannot be filled leaves the string as written (logged),
    or gives ``missing`` when one is passed and the field is absent.
    """
    if isinstance(value, str):
        try:
            return value.format(**context)
        except KeyError as exc:
            if missing is not ...:
                return missing
            LOG.warning('Interpolation failed: %s: KeyError %s', value, exc)
        except (AttributeError, ValueError, IndexError, TypeError) as exc:
            LOG.warning('Interpolation failed: %s: %s %s', value,
                        type(exc).__name__, exc)
        return value
    if isinstance(value, dict):
        return {interpolate(k, context, missing):
                interpolate(v, context, missing) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, context, missing) for v in value]
    return value


def arguments(signature: Signature, piece: dict[str, Any],
              context: dict[str, Any], in_loop: bool,
              missing: Any = ...) -> dict[str, Any]:
    """A condition's or action's arguments, formatted where they are."""
    return {name: interpolate(value, context, missing)
            if in_loop or name in signature.formatted else value
            for name, value in signature.named(piece['args']).items()}


def _loop_items(loop: list[Any] | dict[str, Any]) -> list[Any]:
    """A piece's ``loop`` (the schema: an array or an object) as the
    items it runs the piece for."""
    return [loop] if isinstance(loop, dict) else list(loop)


def check_condition(condition: dict[str, Any],
                    context: dict[str, Any]) -> bool:
    """Whether one condition holds (over its loop, if it has one)."""
    op, negated = parse_op(condition['op'])
    signature, check = OPERATORS[op]
    missing = None if op == 'is-empty' else ...

    def once(item_context: dict[str, Any], in_loop: bool) -> bool:
        args = arguments(signature, condition, item_context, in_loop,
                         missing)
        if in_loop and 'force_strings' in signature.optional:
            args['force_strings'] = True
        return check(args) != negated

    if not condition.get('loop'):
        return once(context, False)
    results = [once(dict(context, item=item), True)
               for item in _loop_items(condition['loop'])]
    multiple = condition.get('multiple', 'any')
    if multiple == 'all':
        return all(results)
    if multiple == 'first':
        return results[0]
    if multiple == 'last':
        return results[-1]
    return any(results)


def action_calls(action: dict[str, Any], context: dict[str, Any]
                 ) -> list[dict[str, Any]]:
    """The arguments of each run of an action: one, or one per item."""
    signature = ACTIONS[action['op']]
    if not action.get('loop'):
        return [arguments(signature, action, context, False)]
    return [arguments(signature, action, dict(context, item=item), True)
            for item in _loop_items(action['loop'])]


def split_path(path: str) -> list[str]:
    """``/a/b`` or ``a.b`` as its parts."""
    return path.strip('/').split('/') if '/' in path else path.split('.')
