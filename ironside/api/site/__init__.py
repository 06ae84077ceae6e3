"""The site API, served beside /v1 (under ``/site`` by default).

Routes, relative to the prefix:

``GET /v1``                               what the site API offers
``GET|POST /v1/strategies``               list or create strategies
``POST /v1/strategies/validate``          validate a document, store nothing
``GET|DELETE /v1/strategies/{name}``      show or delete a strategy
``GET|POST /v1/actions``                  list (by state, action, revision;
                                          sorted, paged) or create actions
``GET /v1/actions/{uuid}``                an action with its report
``POST /v1/actions/{uuid}/abort``         abort it: 202 (409 if it ended)
``POST /v1/nodes/filter``                 the nodes selectors select
``GET /v1/nodes/status``                  nodes' provision and power states
``GET /`` and ``GET /static/{name}``      the web view (:mod:`.web`)
``GET|POST /v1/tasks``                    task graphs' tasks (start/end)
``POST /v1/tasks/validate``               validate task graphs together
``GET|DELETE /v1/designs/buffer``         the staged collections; discard
``POST /v1/designs/buffer/{collection}``  create or replace a collection
``POST /v1/designs/commit``               commit the buffer (force, dry_run)
``GET /v1/designs/documents``             a version's documents
``GET /v1/designs/rendered``              a version as site actions read it
``GET /v1/designs/diff``                  what changed between two versions
``GET /v1/revisions``                     revisions with their tags
``GET /v1/revisions/{revision}``          one revision

Errors are IronsideExceptions, answered in Ironic's error format by the
application's error handlers.
"""

from __future__ import annotations

import falcon

from ironside.api.site import designs
from ironside.api.site import node_status
from ironside.api.site import resources
from ironside.api.site import tasks
from ironside.api.site import web
from ironside.strategy.nodes import conductor as conductor_nodes

DEFAULT_PREFIX = '/site'


def register(app: falcon.App, prefix: str = DEFAULT_PREFIX,
             rpcapi: object = None) -> None:
    """Add the site API's routes to ``app`` under ``prefix``."""
    nodes = conductor_nodes.ConductorNodes(rpcapi)
    base = prefix.rstrip('/') + '/v1'
    app.add_route(base, resources.Root(base))
    app.add_route(base + '/strategies', resources.Strategies())
    app.add_route(base + '/strategies/validate', resources.Validate())
    app.add_route(base + '/strategies/{name}', resources.Strategy())
    app.add_route(base + '/actions', resources.Actions(nodes))
    app.add_route(base + '/actions/{uuid}', resources.Action(nodes))
    app.add_route(base + '/actions/{uuid}/abort', resources.ActionAbort())
    app.add_route(base + '/nodes/filter', resources.NodeFilter(nodes))
    app.add_route(base + '/nodes/status', node_status.NodeStatus())
    web.register(app, prefix)
    app.add_route(base + '/tasks', tasks.Tasks())
    app.add_route(base + '/tasks/validate', tasks.Validate())
    app.add_route(base + '/designs/buffer', designs.Buffer())
    app.add_route(base + '/designs/buffer/{collection}',
                  designs.BufferCollection())
    app.add_route(base + '/designs/commit', designs.Commit())
    app.add_route(base + '/designs/documents', designs.Documents())
    app.add_route(base + '/designs/rendered', designs.Rendered())
    app.add_route(base + '/designs/diff', designs.Diff())
    app.add_route(base + '/revisions', designs.Revisions())
    app.add_route(base + '/revisions/{revision}', designs.Revision())
