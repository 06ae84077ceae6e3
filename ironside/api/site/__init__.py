"""The site API, served beside /v1 (under ``/site`` by default).

Routes, relative to the prefix:

``GET /v1``                               what the site API offers
``GET|POST /v1/strategies``               list or create strategies
``POST /v1/strategies/validate``          validate a document, store nothing
``GET|DELETE /v1/strategies/{name}``      show or delete a strategy
``GET|POST /v1/actions``                  list or create site actions
``GET /v1/actions/{uuid}``                an action with its report
``POST /v1/nodes/filter``                 the nodes selectors select
``POST /v1/tasks``                        task graphs' tasks (start/end)
``POST /v1/tasks/validate``               validate a task graph

Errors are IronsideExceptions, answered in Ironic's error format by the
application's error handlers.
"""

from __future__ import annotations

import falcon

from ironside.api.site import resources
from ironside.api.site import tasks
from ironside.strategy import conductor_nodes

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
    app.add_route(base + '/actions/{uuid}', resources.Action())
    app.add_route(base + '/nodes/filter', resources.NodeFilter(nodes))
    app.add_route(base + '/tasks', tasks.Tasks())
    app.add_route(base + '/tasks/validate', tasks.Validate())
