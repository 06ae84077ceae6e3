"""Lists: page size, sort order, fields, and the answer with ``next``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ironside.api import links
from ironside.api import versions
from ironside.common import exception
from ironside.common.conf import CONF


def limit(value: int | None) -> int:
    """The page size: at most [api]max_limit, which is the default."""
    if value is None:
        return CONF.api.max_limit
    if value <= 0:
        raise exception.InvalidParameterValue(err='Limit must be positive')
    return min(CONF.api.max_limit, value)


def sort_dir(value: str | None) -> str:
    value = value or 'asc'
    if value not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err="Invalid sort direction: %s. Acceptable values are 'asc' "
                "or 'desc'" % value)
    return value


def sort_key(value: str | None, unsortable: Sequence[str] = ()) -> str:
    value = value or 'id'
    if value in unsortable:
        raise exception.InvalidParameterValue(
            err='The sort_key value %s is an invalid field for sorting'
                % value)
    return value


def fields_or_default(version: versions.Version,
                      fields: list[str] | None, detail: bool | None,
                      default: Sequence[str] | None,
                      detail_minor: int = versions.DETAIL_QUERY
                      ) -> list[str] | None:
    """What a list shows: the fields asked, the defaults, or all (None)."""
    if detail is not None and not version.allows(detail_minor):
        raise exception.InvalidParameterValue(
            err='Invalid query parameter ?detail=%s received.' % detail)
    if fields is not None and detail:
        raise exception.InvalidParameterValue(
            err='Can not specify ?detail=True and fields in the same '
                'request.')
    if fields is None and not detail:
        return list(default) if default is not None else None
    return fields


def answer(req, item_name: str, items: list[dict], page_size: int,
           resource: str, params: dict[str, Any],
           key: str = 'uuid') -> dict[str, Any]:
    """``{item_name: items}`` plus ``next`` when the page is full."""
    body: dict[str, Any] = {item_name: items}
    next_href = links.next_link(req.context.public_url, resource, items,
                                page_size, params, key)
    if next_href:
        body['next'] = next_href
    return body

