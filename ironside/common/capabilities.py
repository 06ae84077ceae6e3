"""Node and instance capabilities: one parser and one writer.

Ironic keeps them in ``properties['capabilities']`` (and an instance's in
``instance_info['capabilities']``) as ``"key:value,key:value"``, and
takes a JSON object too; readers must accept both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def parse(value: Any) -> dict[str, str]:
    """The capabilities of ``value``: a mapping, or ``"k:v,k:v"`` (a key
    without a value maps to ``''``)."""
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    found: dict[str, str] = {}
    for item in str(value or '').split(','):
        if not item:
            continue
        key, _sep, val = item.partition(':')
        found[key.strip()] = val.strip()
    return found


def format(capabilities: Mapping[str, str]) -> str:  # noqa: A001
    """``"k:v,k:v"``, as Ironic stores them."""
    return ','.join('%s:%s' % item for item in capabilities.items())


def with_default(value: Any, name: str, default: str) -> Any:
    """``value`` with ``name`` set to ``default`` unless it is set; kept
    in the form it came in (a mapping, or text)."""
    if isinstance(value, Mapping):
        return dict({name: default}, **value)
    if name in parse(value):
        return value
    return ','.join(filter(None, (str(value or ''), '%s:%s' % (name,
                                                               default))))


def lookup(name: str, *holders: Mapping[str, Any] | None) -> str | None:
    """The first non-empty capability ``name`` among the holders' own
    (``instance_info`` before ``properties``, as Ironic reads them)."""
    for holder in holders:
        value = parse((holder or {}).get('capabilities')).get(name)
        if value:
            return value
    return None
