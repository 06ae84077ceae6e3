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
from ironside.api.site.common import document_source
from ironside.api.site.common import json_body
from ironside.api.site.common import send
from ironside.common import exception
from ironside.strategy import actions
from ironside.strategy.designs import versions
from ironside.strategy.reader import fuel


class Tasks:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        version = versions.parse(wire.as_string(
            'version', req.get_param('version')) or versions.COMMITTED)
        send(resp, {'tasks': actions.list_tasks(
            None, req.get_param('start_task'), req.get_param('end_task'),
            version)})

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = json_body(req)
        documents = body.get('documents')
        if not isinstance(documents, list) or not documents:
            raise exception.MissingParameterValue(
                err='The request body needs "documents": a list of task '
                    'graphs')
        send(resp, {'tasks': actions.list_tasks(
            documents, req.get_param('start_task'),
            req.get_param('end_task'))})


class Validate:
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        errors, warnings = fuel.validate(document_source(json_body(req)))
        send(resp, {'valid': not errors,
                     'errors': [dict(e.as_dict(), text=str(e))
                                for e in errors],
                     'warnings': [dict(w.as_dict(), text=str(w))
                                  for w in warnings]})
