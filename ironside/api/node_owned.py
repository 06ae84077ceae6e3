"""Helpers for resources that belong to a node (ports, port groups).

Their access is decided by their node's owner and lessee; a caller who
may not see the node does not see them either (404).
"""

from __future__ import annotations

from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

import falcon

from ironside.api import node_access
from ironside.api import patch as json_patch
from ironside.api import policy
from ironside.api import schemas
from ironside.api import wire
from ironside.common import exception
from ironside.db import node_views


def authorize(req: falcon.Request, rule: str, row: dict[str, Any],
              not_found: exception.IronsideException) -> None:
    """403, or 404 (``not_found``) if the caller may not see the node."""
    context = req.context.ctx
    target = policy.node_target(row.get('node_owner'), row.get('node_lessee'))
    if policy.check(rule, context, target):
        return
    if policy.check('baremetal:node:get', context, target):
        policy.authorize(rule, context, target)
    raise not_found


_BODY_NODE_COLUMNS = ['id', 'uuid', 'owner', 'lessee', 'provision_state',
                      'maintenance']


def node_for_body(req: falcon.Request, ident: str, rule: str
                  ) -> dict[str, Any]:
    """The node a create names: 400 if there is none, 403 unless the
    caller passes ``rule`` on it (as Ironic checks a create: on the
    node, without first hiding a node the caller may not see)."""
    ident = node_access.check_ident(req.context.version, ident)
    try:
        row = node_views.select_node_dict(ident, _BODY_NODE_COLUMNS)
    except exception.NodeNotFound as exc:
        exc.code = HTTPStatus.BAD_REQUEST
        raise
    policy.authorize(rule, req.context.ctx,
                     policy.node_target(row['owner'], row['lessee']))
    return row


def _linked_node(req: falcon.Request, ident: str, rule: str) -> dict[str, Any]:
    """The node an update moves an object to: 400 if there is none or
    the caller may not see it."""
    try:
        return node_access.get_node(req, ident, rule, _BODY_NODE_COLUMNS)
    except exception.NodeNotFound as exc:
        exc.code = HTTPStatus.BAD_REQUEST
        raise


def node_id_filter(req: falcon.Request, ident: str | None) -> int | None:
    """The id of the node a list filters by (404 if it does not exist)."""
    if ident is None:
        return None
    row = node_access.get_node(req, ident, 'baremetal:node:get', ['id'])
    return row['id']


def booleans(values: dict[str, Any], names: Iterable[str]) -> None:
    for name in names:
        if values.get(name) is not None:
            values[name] = wire.as_boolean(name, values[name])


def patched(req: falcon.Request, row: dict[str, Any],
            document_fields: Iterable[str],
            allowed: Iterable[str], schema: dict,
            name: str
            ) -> tuple[list[dict], dict[str, Any], dict[str, Any]]:
    """Apply the JSON patch of the request to ``row``; return the patch,
    the changes and the values the changed fields had (for the
    compare-and-set of the write).

    Removed fields become None; the result is validated against
    ``schema`` before anything changes.
    """
    version = req.context.version
    patch = json_patch.validate(version, wire.read_json(req))
    json_patch.check_allowed(patch, allowed)
    document = {field: row.get(field) for field in document_fields}
    result = json_patch.apply(document, patch)
    schemas.validate(name, {k: v for k, v in result.items()
                            if v is not None}, schema)
    values = json_patch.changes(document, result)
    return patch, values, json_patch.originals(document, values)


def node_uuid_to_id(values: dict[str, Any], req: falcon.Request,
                    rule: str) -> None:
    if 'node_uuid' in values:
        node = _linked_node(req, wire.uuid('node_uuid',
                                           values.pop('node_uuid')),
                            rule)
        values['node_id'] = node['id']


def settle_removals(values: dict[str, Any], documents: Iterable[str],
                    flags: Iterable[str]) -> None:
    """What removing a field means: an empty document, or no change for a
    flag that cannot be empty."""
    for name in documents:
        if name in values and values[name] is None:
            values[name] = {}
    for name in flags:
        if name in values and values[name] is None:
            del values[name]
