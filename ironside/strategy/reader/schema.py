"""jsonschema's findings, told as people would tell them.

:class:`DocumentSchema` checks a document two ways: fastjsonschema (the
schema compiled to Python) answers in microseconds whether a document is
valid, and only for one that is not does jsonschema say, in every detail,
what is wrong. A design of thousands of documents is checked at commit
in a fraction of what jsonschema alone would take.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import fastjsonschema
import jsonschema

from ironside.strategy.expressions import fields
from ironside.strategy.reader.errors import ErrorSink

_TYPE_NAMES = {'object': 'a mapping', 'array': 'a list', 'string': 'a string',
               'boolean': 'true or false', 'integer': 'an integer',
               'number': 'a number', 'null': 'null'}


# What the patterns of the site layer's schemas ask for, in words.
_PATTERNS = {'^/': 'be an absolute path',
             '^0?[0-7]{3,4}$': 'be an octal mode such as 0644'}


def envelope(schemas: Sequence[str], data: dict[str, Any]
             ) -> dict[str, Any]:
    """The JSON schema of a design document of one kind: one of its
    ``schemas``, a named ``metadata``, ``data`` as the kind says, and
    nothing else at the top."""
    return {
        'type': 'object',
        'required': ['schema', 'metadata', 'data'],
        'properties': {
            'schema': {'enum': list(schemas)},
            'metadata': {
                'type': 'object',
                'required': ['name'],
                'properties': {'name': {'type': 'string', 'minLength': 1}},
            },
            'data': data,
        },
        'additionalProperties': False,
    }


def describe(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def schema_errors(validator: jsonschema.Validator, document: Any,
                  errors: ErrorSink, computed: bool = False) -> None:
    """Add every schema violation of ``document`` to ``errors``.

    ``computed``: the document may hold ``yaql_exp`` expressions; what
    the schema says of a value an expression computes is checked once it
    is computed (the plan checks the documents again), not here.
    """
    seen = set()
    for error in validator.iter_errors(document):
        path = tuple(error.absolute_path)
        if computed and fields.at_expression(document, path):
            continue
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
                ' or '.join(_TYPE_NAMES.get(w, str(w)) for w in wanted),
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
        elif kind == 'maxLength':
            errors.add(path, 'must be at most %d characters long'
                       % error.validator_value)
        elif kind == 'pattern':
            wanted = _PATTERNS.get(error.validator_value,
                                   'match %s' % error.validator_value)
            errors.add(path, 'must %s, not %s' % (wanted,
                                                  describe(instance)))
        elif kind == 'uniqueItems':
            errors.add(path, 'must not hold the same value twice')
        else:
            errors.add(path, error.message)


class DocumentSchema:
    """A JSON schema (draft 7) and both of its checkers."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = dict(schema)
        self.validator = jsonschema.Draft7Validator(self.schema)
        # use_default=False: a check never fills in the document.
        self._is_valid = fastjsonschema.compile(self.schema,
                                                use_default=False)

    def is_valid(self, document: Any) -> bool:
        try:
            self._is_valid(document)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    def errors(self, document: Any, errors: ErrorSink) -> bool:
        """Add every violation to ``errors``; True if there was none."""
        if self.is_valid(document):
            return True
        schema_errors(self.validator, document, errors)
        return False
