"""jsonschema's findings, told as people would tell them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jsonschema

from ironside.strategy.reader.errors import ErrorCollector

_TYPE_NAMES = {'object': 'a mapping', 'array': 'a list', 'string': 'a string',
               'boolean': 'true or false', 'integer': 'an integer',
               'number': 'a number', 'null': 'null'}


# What the patterns of the site layer's schemas ask for, in words.
_PATTERNS = {'^/': 'be an absolute path',
             '^0?[0-7]{3,4}$': 'be an octal mode such as 0644'}


def describe(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def schema_errors(validator: jsonschema.Validator, document: Any,
                  errors: ErrorCollector) -> None:
    """Add every schema violation of ``document`` to ``errors``."""
    seen = set()
    for error in validator.iter_errors(document):
        path = tuple(error.absolute_path)
        instance = error.instance
        kind = error.validator
        if kind == 'required':
            for name in error.validator_value:
                if isinstance(instance, Mapping) and name not in instance \
                        and (path, name) not in seen:
                    seen.add((path, name))
                    errors.add(path + (name,), 'missing required field')
        elif kind == 'additionalProperties':
            known = set(error.schema.get('properties', {}))
            for name in sorted(set(instance) - known, key=str):
                errors.add(path + (name,), 'unknown field')
        elif kind == 'type':
            wanted = error.validator_value
            wanted = wanted if isinstance(wanted, list) else [wanted]
            errors.add(path, 'must be %s, not %s' % (
                ' or '.join(_TYPE_NAMES.get(w, w) for w in wanted),
                describe(instance)))
        elif kind == 'enum':
            errors.add(path, 'must be one of %s, not %s' % (
                ', '.join(str(v) for v in error.validator_value),
                describe(instance)))
        elif kind == 'minimum':
            errors.add(path, 'must be at least %s, not %s'
                       % (error.validator_value, describe(instance)))
        elif kind == 'maximum':
            errors.add(path, 'must be at most %s, not %s'
                       % (error.validator_value, describe(instance)))
        elif kind == 'minLength':
            errors.add(path, 'must not be empty')
        elif kind == 'pattern':
            wanted = _PATTERNS.get(error.validator_value,
                                   'match "%s"' % error.validator_value)
            errors.add(path, 'must %s, not %s' % (wanted,
                                                  describe(instance)))
        else:
            errors.add(path, error.message)
