"""Lists: page size, sort order, fields, and the answer with ``next``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import falcon
import orjson

from ironside.api import links
from ironside.api import versions
from ironside.api import wire
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
    """asc unless given; given empty, refused (as Ironic)."""
    value = 'asc' if value is None else value
    if value not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err="Invalid sort direction: %s. Acceptable values are 'asc' "
                "or 'desc'" % value)
    return value


def sort_key(value: str | None, unsortable: Collection[str] = ()) -> str:
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


def answer(req: falcon.Request, item_name: str,
           items: Sequence[Mapping[str, Any] | orjson.Fragment],
           page_size: int,
           resource: str, params: dict[str, Any],
           key: str = 'uuid', marker: str | None = None
           ) -> dict[str, Any]:
    """``{item_name: items}`` plus ``next`` when the page is full.

    ``marker`` is the last item's ``key``, for items that are encoded
    already.
    """
    body: dict[str, Any] = {item_name: items}
    next_href = links.next_link(req.context.public_url, resource, items,
                                page_size, params, key, marker)
    if next_href:
        body['next'] = next_href
    return body



PAGING_READERS: dict[str, wire.Reader] = {
    'marker': wire.as_uuid, 'limit': wire.as_integer,
    'sort_key': wire.as_string, 'sort_dir': wire.as_string}
FIELDS_READERS: dict[str, wire.Reader] = {
    'fields': wire.as_fields, 'detail': wire.as_boolean}


@dataclasses.dataclass(frozen=True)
class ListQuery:
    """What a list request asks for, read and checked once."""

    # Every query parameter the handler takes, as read.
    values: dict[str, Any]
    # The fields to show (None: all, as on a ``/detail`` endpoint).
    fields: list[str] | None
    page_size: int
    marker: str | None
    sort_key: str
    sort_dir: str

    def next_params(self) -> dict[str, Any]:
        """The parameters the ``next`` link repeats."""
        return {k: v for k, v in self.values.items()
                if k not in ('limit', 'marker')}


def read_list_query(req: falcon.Request, view: Any,
                    unsortable: Sequence[str] = (),
                    filters: Mapping[str, wire.Reader] | None = None,
                    detail_endpoint: bool = False,
                    detail_minor: int = versions.DETAIL_QUERY,
                    authorize: Callable[[], None] | None = None
                    ) -> ListQuery:
    """Read a list request's paging, sorting, fields and ``filters``.

    ``view`` checks the fields asked for and gives the default ones; a
    ``detail_endpoint`` (``.../detail``) takes no ``fields`` nor
    ``detail`` and shows every field. ``authorize`` runs once the
    parameters are read and before they are judged, so a caller who may
    not list gets 403 whatever it asked.
    """
    readers = dict(PAGING_READERS, **(filters or {}))
    if not detail_endpoint:
        readers.update(FIELDS_READERS)
    values = wire.query(req, readers)
    if authorize is not None:
        authorize()
    version = req.context.version
    view.check_fields(version, values.get('fields'))
    fields = None if detail_endpoint else fields_or_default(
        version, values['fields'], values['detail'],
        view.default_list_fields, detail_minor=detail_minor)
    return ListQuery(values, fields, limit(values['limit']),
                     values['marker'],
                     sort_key(values['sort_key'], unsortable),
                     sort_dir(values['sort_dir']))
