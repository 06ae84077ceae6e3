"""``GET /site/v1/nodes/status``: what each node is doing, for operators.

The spec's node-status endpoint: every node's provision and power state,
maintenance, fault and last error, with the step it runs now. The nodes
are chosen like a group's: by one selector given as query parameters
(``node_names``, ``node_tags``, ``node_labels`` as ``key:value``,
``rack_names``; each a comma-separated list or repeated, values of one
criterion or-ed, criteria and-ed), and further by ``name`` (a shell-style
pattern, ``cmp-r2-*``) and ``provision_state``. Without parameters,
every node the caller may see (its project's, under keystone, unless
``baremetal:node:list_all`` lets it see all).
"""

from __future__ import annotations

import fnmatch
from typing import Any

import falcon
import sqlalchemy as sa

from ironside.api import wire
from ironside.api.site import scope
from ironside.api.site.common import allow
from ironside.api.site.common import send
from ironside.common import exception
from ironside.db import nodes as nodes_db
from ironside.strategy.core import selectors as site_selectors
from ironside.strategy.nodes import conductor as conductor_nodes
from ironside.strategy.reader import shipyard

SELECTOR_PARAMS = ('node_names', 'node_tags', 'node_labels', 'rack_names')

_STATUS_COLUMNS = ('provision_state', 'target_provision_state',
                   'provision_updated_at', 'power_state', 'maintenance',
                   'maintenance_reason', 'fault', 'last_error',
                   'deploy_step', 'clean_step')


def _view(row: sa.Row[Any], node: site_selectors.SiteNode
          ) -> dict[str, Any]:
    updated = row.provision_updated_at
    return {
        'name': node.name, 'uuid': row.uuid, 'rack': node.rack,
        'provision_state': row.provision_state,
        'target_provision_state': row.target_provision_state,
        'provision_updated_at': updated.isoformat() if updated else None,
        'power_state': row.power_state,
        'maintenance': bool(row.maintenance),
        'maintenance_reason': row.maintenance_reason,
        'fault': row.fault,
        'last_error': row.last_error,
        'step': conductor_nodes.step_name(row.deploy_step or
                                          row.clean_step),
    }


# Comma-separated lists, repeated or not, their case kept.
_LIST = wire.as_fields


class NodeStatus:
    @allow('baremetal:site:node:status')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = wire.query(req, dict(
            {key: _LIST for key in SELECTOR_PARAMS},
            name=wire.as_string, provision_state=_LIST))
        selector = {key: query[key] or [] for key in SELECTOR_PARAMS}
        try:
            selectors = shipyard.check_selectors([selector],
                                                 'node status query')
        except exception.InvalidStrategy as exc:
            raise exception.InvalidParameterValue(err='; '.join(
                str(e) for e in exc.errors)) from None
        pattern = query['name']
        wanted_states = set(query['provision_state'] or ())
        project = scope.visible_project(req)
        rows = {row.uuid: row for row in nodes_db.select_node_columns(
            ('uuid', 'name', 'extra') + _STATUS_COLUMNS,
            {'project': project} if project else None)}
        nodes = sorted((site_selectors.site_node(r.uuid, r.name, r.extra)
                        for r in rows.values()), key=lambda n: n.name)
        found = []
        for node in site_selectors.select(selectors, nodes):
            row = rows[node.uuid]
            if pattern and not fnmatch.fnmatchcase(node.name, pattern):
                continue
            if wanted_states and row.provision_state not in wanted_states:
                continue
            found.append(_view(row, node))
        send(resp, {'nodes': found})
