"""Links in answers: self and bookmark links, and paging ``next`` links."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from urllib import parse

import orjson


def url(base: str, resource: str, args: str = '',
        bookmark: bool = False) -> str:
    """``{base}/v1/{resource}/{args}`` (bookmarks have no /v1)."""
    prefix = base if bookmark else base + '/v1'
    if not args:
        return '%s/%s' % (prefix, resource)
    if args.startswith('?'):
        return '%s/%s%s' % (prefix, resource, args)
    return '%s/%s/%s' % (prefix, resource, args)


def make(rel: str, base: str, resource: str, args: str = '',
         bookmark: bool = False, type_: str | None = None
         ) -> dict[str, str]:
    link = {'href': url(base, resource, args, bookmark), 'rel': rel}
    if type_:
        link['type'] = type_
    return link


def self_and_bookmark(base: str, resource: str, args: str = ''
                      ) -> list[dict[str, str]]:
    return [make('self', base, resource, args),
            make('bookmark', base, resource, args, bookmark=True)]


def next_link(base: str, resource: str,
              items: Sequence[Mapping[str, Any] | orjson.Fragment],
              limit: int, params: dict[str, Any], key: str = 'uuid',
              marker: str | None = None) -> str | None:
    """The link to the page after ``items``, if the page is full.

    ``params`` are the query parameters the client gave (filters, sort,
    fields); they are repeated so the next page lists the same things.
    """
    if not limit or len(items) != limit:
        return None
    query = {name: value for name, value in params.items()
             if value is not None}
    query['limit'] = limit
    if marker is None:
        last = items[-1]
        # Items encoded already come with their marker.
        assert isinstance(last, Mapping)
        marker = last[key]
    query['marker'] = marker
    pairs = []
    for name, value in query.items():
        if isinstance(value, bool):
            value = 'True' if value else 'False'
        elif isinstance(value, (list, tuple)):
            value = ','.join(value)
        pairs.append('%s=%s' % (name, parse.quote(str(value), safe=',')))
    return url(base, resource, '?' + '&'.join(pairs))
