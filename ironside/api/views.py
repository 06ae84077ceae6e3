"""How simple resources (ports, port groups, allocations, ...) look.

A :class:`ResourceView` knows a resource's fields and the microversion
that added each: it hides newer fields from answers, refuses them in
``fields`` (406), refuses unknown ones (400), and adds the links.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any

import falcon

from ironside.api import links
from ironside.api import node_view
from ironside.api import versions
from ironside.common import exception

TIME_FIELDS = frozenset(('created_at', 'updated_at'))


@dataclasses.dataclass(frozen=True)
class ResourceView:
    resource: str                           # 'ports'
    fields: tuple[tuple[str, int], ...]     # (field, minor version)
    default_list_fields: tuple[str, ...] | None = None
    key: str = 'uuid'
    # Sub-collections linked from a full answer: (name, minor).
    sub_links: tuple[tuple[str, int], ...] = ()
    # Extra rendering (e.g. masking), called on the answer and the row.
    finish: Callable[[dict, dict], None] | None = None

    def names(self) -> set[str]:
        return {name for name, _ in self.fields}

    def visible(self, version: versions.Version) -> list[str]:
        return [name for name, minor in self.fields if version.allows(minor)]

    def check_fields(self, version: versions.Version,
                     fields: Iterable[str] | None) -> None:
        if fields is None:
            return
        versions.require(version, versions.FIELDS, 'fields')
        self.check_newer(version, fields)
        unknown = [f for f in fields if f not in self.names()]
        if unknown:
            raise exception.InvalidParameterValue(
                err='Field(s) "%s" are not valid' % ', '.join(unknown))

    def check_newer(self, version: versions.Version,
                    fields: Iterable[str]) -> None:
        minors = dict(self.fields)
        newer = sorted(f for f in fields
                       if f in minors and not version.allows(minors[f]))
        if newer:
            raise exception.NotAcceptable(
                'Field(s) %s need a newer API version than %s'
                % (', '.join(newer), version))

    def renderer(self, req: falcon.Request, fields: Iterable[str] | None = None
                 ) -> Callable[[dict], dict]:
        """A function rendering rows for this request."""
        version = req.context.version
        base = req.context.public_url
        shown = self.visible(version)
        if fields is not None:
            wanted = set(fields)
            shown = [name for name in shown if name in wanted]
        sub_links = [name for name, minor in self.sub_links
                     if version.allows(minor)] if fields is None else []

        def render(row: dict[str, Any]) -> dict[str, Any]:
            item = {}
            for name in shown:
                value = row.get(name)
                item[name] = node_view.isotime(value) \
                    if name in TIME_FIELDS else value
            if self.finish is not None:
                self.finish(item, row)
            key = row[self.key]
            item['links'] = links.self_and_bookmark(base, self.resource,
                                                    key)
            for name in sub_links:
                item[name] = links.self_and_bookmark(
                    base, self.resource, '%s/%s' % (key, name))
            return item
        return render
