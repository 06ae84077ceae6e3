"""JSON schemas of request bodies, and validation with clear errors."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema

from ironside.common import exception
from ironside.common.conf import CONF


@functools.lru_cache(maxsize=None)
def _validator(schema_json: str) -> jsonschema.Draft7Validator:
    schema = json.loads(schema_json)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def _where(error: jsonschema.ValidationError) -> str:
    path = '/'.join(str(p) for p in error.absolute_path)
    return ' (at /%s)' % path if path else ''


def check_field_sizes(value: Any) -> None:
    """413 naming the field if a JSON field (``extra``, ``properties``,
    ``driver_info``...) is larger than ``[api]max_json_field_size``.

    Each answer that lists the resource carries the field whole: one
    60 MB ``extra`` and a few parallel detail lists took the API from
    166 MB to 909 MB. The body limit alone is meant for configdrives.
    Only objects count: lists (a site design's sources) are bounded by
    the body limit alone.
    """
    if not isinstance(value, dict):
        return
    limit = CONF.api.max_json_field_size
    for field, content in value.items():
        if not isinstance(content, dict):
            continue
        size = len(json.dumps(content, separators=(',', ':')))
        if size > limit:
            raise exception.RequestTooLarge(
                err='field %s is %d bytes of JSON, more than the %d bytes '
                    '[api]max_json_field_size allows' % (field, size, limit))


def validate(name: str, value: Any, schema: dict) -> Any:
    """``value`` if it matches ``schema``; else 400 naming the problem
    (413 for a JSON field past its size limit)."""
    check_field_sizes(value)
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
