"""JSON schemas of request bodies, and validation with clear errors."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

import jsonschema
import sqlalchemy as sa
from sqlalchemy import orm

from ironside.common import exception
from ironside.common.conf import CONF

# The bits of each integer column type, on every backend: PostgreSQL and
# MariaDB refuse a value past them ("integer out of range"), which was a
# 500. Subclasses first (both are Integers too).
_COLUMN_BITS = ((sa.SmallInteger, 16), (sa.BigInteger, 64), (sa.Integer, 32))
_DIGITS = re.compile(r'^[0-9]+$')
# The formats of strings of digits held to a column's range, by bits.
_DIGITS_FORMATS = {'digits-int%d' % bits: bits for bits in (16, 32, 64)}

# A model's attribute (models.VolumeTarget.boot_index) or a table's column.
Column = orm.QueryableAttribute | sa.Column


def column_bits(column: Column) -> int:
    """The bits of the signed integers ``column`` stores."""
    for kind, bits in _COLUMN_BITS:
        if isinstance(column.type, kind):
            return bits
    raise TypeError('%s is not an integer column' % column)


def stored_integer(column: Column, minimum: int | None = None
                   ) -> dict[str, Any]:
    """The schema of an integer a request gives for ``column``: bounded
    by what the column stores, so that a value past it is refused with
    400 naming the field, as any other invalid value."""
    bits = column_bits(column)
    low = -2 ** (bits - 1)
    return {'type': 'integer',
            'minimum': low if minimum is None else max(low, minimum),
            'maximum': 2 ** (bits - 1) - 1}


def stored_integer_or_digits(column: Column) -> dict[str, Any]:
    """An integer for ``column``, at least 0, or the same as a string of
    digits (Ironic takes a step's priority so): the string is held to
    the column's range by the format ``digits-intN``."""
    return {'anyOf': [
        stored_integer(column, minimum=0),
        {'type': 'string', 'minLength': 1, 'pattern': _DIGITS.pattern,
         'format': 'digits-int%d' % column_bits(column)},
    ]}


def _digits_within(bits: int) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        # Other types, and other strings, are the type's and pattern's.
        if not isinstance(value, str) or not _DIGITS.match(value):
            return True
        return int(value) < 2 ** (bits - 1)
    return check


_FORMATS = jsonschema.FormatChecker(formats=())
for _name, _bits in _DIGITS_FORMATS.items():
    _FORMATS.checks(_name)(_digits_within(_bits))


def _message(error: jsonschema.ValidationError) -> str:
    """jsonschema's message; for a string of digits past its column's
    range, the message of the same number given as an integer."""
    if error.validator == 'format' and \
            error.validator_value in _DIGITS_FORMATS:
        bits = _DIGITS_FORMATS[error.validator_value]
        return '%r is greater than the maximum of %d' % (
            error.instance, 2 ** (bits - 1) - 1)
    return error.message


@functools.lru_cache(maxsize=None)
def _validator(schema_json: str) -> jsonschema.Draft7Validator:
    schema = json.loads(schema_json)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=_FORMATS)


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
    message = 'Schema error for %s: %s%s' % (name, _message(error),
                                             _where(error))
    cause = error
    while cause.context:
        cause = jsonschema.exceptions.best_match(cause.context)
    if cause is not error:
        message += '. Possible root cause: %s%s' % (_message(cause),
                                                    _where(cause))
    raise exception.InvalidParameterValue(err=message)
