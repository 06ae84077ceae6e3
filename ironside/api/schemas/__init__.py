"""JSON schemas of request bodies, and validation with clear errors."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema

from ironside.common import exception


@functools.lru_cache(maxsize=None)
def _validator(schema_json: str) -> jsonschema.Draft7Validator:
    schema = json.loads(schema_json)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def _where(error: jsonschema.ValidationError) -> str:
    path = '/'.join(str(p) for p in error.absolute_path)
    return ' (at /%s)' % path if path else ''


def validate(name: str, value: Any, schema: dict) -> Any:
    """``value`` if it matches ``schema``; else 400 naming the problem."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return value
    message = 'Schema error for %s: %s%s' % (name, error.message,
                                             _where(error))
    cause = error
    while cause.context:
        cause = jsonschema.exceptions.best_match(cause.context)
    if cause is not error:
        message += '. Possible root cause: %s%s' % (cause.message,
                                                    _where(cause))
    raise exception.InvalidParameterValue(err=message)
