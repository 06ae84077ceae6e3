"""Finding the node a request names, and checking the caller may use it.

A node is named by UUID or, from 1.5, by name. A caller whose policy
does not let them see a node gets 404, as if it did not exist; one who
may see it but not act on it gets 403.

With ``[api]project_admin_can_manage_own_nodes`` (the default), a
project admin creates nodes for its own project and deletes the nodes
its project owns, as in Ironic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any

import falcon
from oslo_utils import uuidutils

from ironside.api import node_view
from ironside.api import policy
from ironside.api import url_forms
from ironside.api import versions
from ironside.api import wire
from ironside.common import exception
from ironside.common.conf import CONF
from ironside.db import node_views

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

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


def authorize_node(req: falcon.Request, rule: str, row: dict[str, Any],
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


def get_node(req: falcon.Request, ident: str, rule: str,
             columns: Sequence[str] | None = None) -> dict[str, Any]:
    """The node ``ident`` names, as a dict of ``columns`` (all if None)."""
    wanted = list(columns or ALL_COLUMNS)
    for needed in ('uuid', 'owner', 'lessee'):
        if needed not in wanted:
            wanted.append(needed)
    row = url_forms.find(
        req, ident, lambda name: node_views.select_node_dict(
            check_ident(req.context.version, name), wanted),
        exception.NodeNotFound)
    authorize_node(req, rule, row, ident)
    return row


def node_uuid(req: falcon.Request, ident: str, rule: str) -> str:
    """The UUID of the node a request acts on, once ``rule`` allows it."""
    return get_node(req, ident, rule, ['uuid'])['uuid']


def show_node(req: falcon.Request, rpcapi: ConductorAPI, ident: str,
              rule: str | None = None,
              fields: Sequence[str] | None = None) -> dict[str, Any]:
    """The node as an answer shows it; checks ``rule`` if given."""
    view = node_view.NodeView(req, fields, ring=rpcapi.ring)
    rows = url_forms.find(req, ident, lambda name: view.select(
        check_ident(req.context.version, name)), exception.NodeNotFound)
    if rule is not None:
        row = dict(zip(rows.keys, rows.rows[0], strict=True))
        authorize_node(req, rule, row, ident)
    return view.render(rows)[0]


def authorize_create(req: falcon.Request) -> bool:
    """403 unless the caller may create nodes; whether it creates them
    for its own project (``baremetal:node:create:self_owned_node``).

    Only under keystone: without it nobody has a project (Ironic would
    refuse every ``owner`` then).
    """
    context = req.context.ctx
    if CONF.api.project_admin_can_manage_own_nodes and policy.enforced() \
            and policy.check('baremetal:node:create:self_owned_node',
                             context):
        return True
    policy.authorize('baremetal:node:create', context)
    return False


def claim_for_project(req: falcon.Request, values: dict[str, Any]) -> None:
    """Make a project-scoped caller's new node its project's: naming
    another owner is a 400. System-scoped callers name any owner."""
    context = req.context.ctx
    if context.system_scope == 'all':
        return
    project = context.project_id
    if values.get('owner') and values['owner'] != project:
        raise exception.Invalid(
            'Cannot create a node as a project scoped admin with an owner '
            'other than your own project.')
    values['owner'] = project


def node_uuid_to_delete(req: falcon.Request, ident: str) -> str:
    """The UUID of the node a DELETE names, once the caller may delete
    it: as anyone who passes ``baremetal:node:delete``, or as the admin
    of the project that owns it."""
    try:
        return node_uuid(req, ident, 'baremetal:node:delete')
    except exception.NotAuthorized:
        if not CONF.api.project_admin_can_manage_own_nodes:
            raise
    return node_uuid(req, ident, 'baremetal:node:delete:self_owned_node')
