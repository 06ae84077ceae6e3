"""Finding the node a request names, and checking the caller may use it.

A node is named by UUID or, from 1.5, by name. A caller whose policy
does not let them see a node gets 404, as if it did not exist; one who
may see it but not act on it gets 403.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from oslo_utils import uuidutils

from ironside.api import node_view
from ironside.api import policy
from ironside.api import versions
from ironside.api import wire
from ironside.common import exception
from ironside.db import node_views

ALL_COLUMNS = tuple(sorted(node_views.COLUMNS)) + node_views.JOINED


def check_ident(version: versions.Version, ident: str) -> str:
    """The identity a path names, checked as Ironic checks it."""
    if uuidutils.is_uuid_like(ident):
        return ident
    if not version.allows(versions.NODE_NAME):
        raise exception.NodeNotFound(node=ident)
    valid = wire.is_logical_name(ident) \
        if version.allows(versions.UNRESTRICTED_NODE_NAME) \
        else wire.is_hostname_safe(ident)
    if not valid:
        raise exception.InvalidIdentity(identity=ident)
    return ident


def authorize_node(req, rule: str, row: dict[str, Any],
                   ident: str | None = None) -> None:
    """403 (or 404, if the caller may not even see it) unless allowed."""
    context = req.context.ctx
    target = policy.node_target(row.get('owner'), row.get('lessee'))
    if policy.check(rule, context, target):
        return
    if rule != 'baremetal:node:get' and \
            policy.check('baremetal:node:get', context, target):
        policy.authorize(rule, context, target)
    raise exception.NodeNotFound(node=ident or row.get('uuid'))


def get_node(req, ident: str, rule: str,
             columns: Sequence[str] | None = None) -> dict[str, Any]:
    """The node ``ident`` names, as a dict of ``columns`` (all if None)."""
    ident = check_ident(req.context.version, ident)
    wanted = list(columns or ALL_COLUMNS)
    for needed in ('uuid', 'owner', 'lessee'):
        if needed not in wanted:
            wanted.append(needed)
    row = node_views.select_node_dict(ident, wanted)
    authorize_node(req, rule, row, ident)
    return row


def node_uuid(req, ident: str, rule: str) -> str:
    """The UUID of the node a request acts on, once ``rule`` allows it."""
    return get_node(req, ident, rule, ['uuid'])['uuid']


def show_node(req, rpcapi, ident: str, rule: str | None = None,
              fields: Sequence[str] | None = None) -> dict[str, Any]:
    """The node as an answer shows it; checks ``rule`` if given."""
    view = node_view.NodeView(req, fields, ring=rpcapi.ring)
    rows = view.select(check_ident(req.context.version, ident))
    if rule is not None:
        row = dict(zip(rows.keys, rows.rows[0], strict=True))
        authorize_node(req, rule, row, ident)
    return view.render(rows)[0]
