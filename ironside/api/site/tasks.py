"""The site API's task graph resources.

``GET /v1/tasks?version=&start_task=&end_task=``
    The tasks of a design version (default ``committed``): its
    strategy's and task graphs', in graph order, those from
    ``start_task`` to ``end_task`` as a partial run walks them (Fuel's
    ``deployment_tasks?start_task=&end_task=``).
``POST /v1/tasks?start_task=&end_task=``
    The same for the task graphs in the body (``{"documents": [...]}``,
    with the strategy whose groups they use).
``POST /v1/tasks/validate``
    One task graph (``{"document": ...}``) checked on its own: errors,
    and warnings for what only the rest of a site's documents settle.
"""

from __future__ import annotations

import falcon

from ironside.api import wire
from ironside.api.schemas import site as schemas
from ironside.api.site.common import allow
from ironside.api.site.common import json_body
from ironside.api.site.common import send
from ironside.strategy import actions
from ironside.strategy.designs import versions
from ironside.strategy.reader import fuel

_RANGE = {'start_task': wire.as_string, 'end_task': wire.as_string}


class Tasks:
    @allow('baremetal:site:task:get')
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = wire.query(req, dict(_RANGE, version=wire.as_string))
        version = versions.parse(query['version'] or versions.COMMITTED)
        send(resp, {'tasks': actions.list_tasks(
            None, query['start_task'], query['end_task'], version)})

    @allow('baremetal:site:task:validate')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = wire.query(req, _RANGE)
        body = json_body(req, 'task graphs', schemas.TASKS)
        send(resp, {'tasks': actions.list_tasks(
            body['documents'], query['start_task'], query['end_task'])})


class Validate:
    @allow('baremetal:site:task:validate')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req, 'task graph', schemas.ONE_DOCUMENT)
        errors, warnings = fuel.validate(body['document'])
        send(resp, {'valid': not errors,
                    'errors': [dict(e.as_dict(), text=str(e))
                               for e in errors],
                    'warnings': [dict(w.as_dict(), text=str(w))
                                 for w in warnings]})
