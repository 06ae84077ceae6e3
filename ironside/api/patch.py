"""JSON patches (RFC 6902), with Ironic's rules.

Only ``add``, ``replace`` and ``remove``; paths are ``/field[/key...]``
of word characters and dashes (from 1.98 also ``~0`` and ``~1``
escapes); only allowed top-level fields; ``add`` cannot create a new
top-level field. Operations apply one at a time so an error names the
one that failed. Nothing is saved unless the whole patch applies and the
result validates.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any

import jsonpatch

from ironside.api import schemas
from ironside.api import versions
from ironside.common import exception

_PATH = re.compile(r'^(/[\w-]+)+$')
PATH_ESCAPED = re.compile(r'^(/([\w-]|~0|~1)+)+$')

_SCHEMA = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'path': {'type': 'string'},
            'op': {'type': 'string', 'enum': ['add', 'replace', 'remove']},
            'value': {},
        },
        'additionalProperties': False,
        'required': ['op', 'path'],
    },
}

_ERRORS = (jsonpatch.JsonPatchConflict, jsonpatch.JsonPatchException,
           jsonpatch.JsonPointerException, KeyError, IndexError, TypeError)


def decode(segment: str) -> str:
    return segment.replace('~1', '/').replace('~0', '~')


def root_of(path: str) -> str:
    return decode(path.split('/')[1])


def validate(version: versions.Version, patch: Any) -> list[dict]:
    """The patch, if well formed; 400 naming what is wrong otherwise."""
    schemas.validate('patch', patch, _SCHEMA)
    pattern = PATH_ESCAPED if version.allows(
        versions.SPECIAL_CHARS_IN_PATCH) else _PATH
    for operation in patch:
        if not pattern.match(operation['path']):
            raise exception.InvalidParameterValue(
                err="Invalid patch path '%s': a path is /field[/key...] of "
                    "letters, digits, '_' and '-'" % operation['path'])
        if operation['op'] != 'remove' and 'value' not in operation:
            raise exception.PatchError(
                patch=operation,
                reason="'%s' operation needs a 'value'" % operation['op'])
    return patch


def check_allowed(patch: list[dict], allowed: Iterable[str]) -> set[str]:
    """The top-level fields the patch touches (400 if one is not allowed)."""
    allowed = list(allowed)
    fields = set()
    for operation in patch:
        field = root_of(operation['path'])
        if field not in allowed:
            raise exception.Invalid(
                'Cannot patch %s. Only the following can be updated: %s'
                % (operation['path'], ', '.join(allowed)))
        fields.add(field)
    return fields


def values_at(patch: list[dict], path: str) -> list[Any]:
    """Values the patch sets at exactly ``path`` (not removals)."""
    return [op['value'] for op in patch
            if op['path'] == path and op['op'] != 'remove']


def touches(patch: Iterable[dict], path: str) -> bool:
    path = path.rstrip('/')
    return any(op['path'] == path or op['path'].startswith(path + '/')
               for op in patch)


def apply(document: dict[str, Any], patch: list[dict]) -> dict[str, Any]:
    """A patched copy of ``document``; PatchError naming the failing op."""
    for operation in patch:
        if operation['op'] == 'add' and operation['path'].count('/') == 1 \
                and root_of(operation['path']) not in document:
            raise exception.Invalid(
                'Adding a new attribute (%s) to the root of the resource is '
                'not allowed' % operation['path'])
    result = copy.deepcopy(document)
    for operation in patch:
        try:
            result = jsonpatch.apply_patch(
                result, jsonpatch.JsonPatch([operation]), in_place=True)
        except _ERRORS as exc:
            raise exception.PatchError(patch=operation, reason=exc) \
                from None
    return result


def originals(before: dict[str, Any], changed: dict[str, Any]
              ) -> dict[str, Any]:
    """The values the changed fields had when the patch was applied: what
    the write compares against, so that it never overwrites a change made
    meanwhile by another request."""
    return {key: before[key] for key in changed if key in before}


def changes(before: dict[str, Any], after: dict[str, Any],
            empty: dict[str, Any] | None = None) -> dict[str, Any]:
    """Top-level fields whose value differs; removed ones read as empty.

    ``empty`` gives the value a removed field takes (None by default).
    """
    empty = empty or {}
    changed = {}
    for key, old in before.items():
        new = after.get(key, empty.get(key))
        if new != old:
            changed[key] = new
    return changed
