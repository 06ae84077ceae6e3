"""The site API's task graph resources.

``GET /v1/tasks?version=&start_task=&end_task=``
    The tasks of a design version (default ``committed``): its
    strategy's and task graphs', in graph order, those from
    ``start_task`` to ``end_task`` as a partial run walks them (Fuel's
    ``deployment_tasks?start_task=&end_task=``).
``POST /v1/tasks?start_task=&end_task=``
    The same for the task graphs in the body, with the strategy whose
    groups they use: ``{"documents": [...]}``, each a YAML or JSON text,
    a parsed document (with its ``schema``), or ``{"name": FILE,
    "document": ...}``.
``POST /v1/tasks/validate``
    Task graphs checked without the rest of a site's documents: one
    (``{"document": ..., "name": FILE}``) or several together
    (``{"documents": [...]}``, as above): errors, and warnings for what
    only the rest of a site's documents settle. Each names its file.
"""

from __future__ import annotations

from typing import Any

import falcon

from ironside.api import wire
from ironside.api.schemas import site as schemas
from ironside.api.site.common import allow
from ironside.api.site.common import json_body
from ironside.api.site.common import send
from ironside.common import exception
from ironside.strategy import actions
from ironside.strategy.designs import versions
from ironside.strategy.reader import graph_files

_RANGE = {'start_task': wire.as_string, 'end_task': wire.as_string}

# What the bodies are, for the errors of a body that is not.
_DOCUMENTS_SHAPE = (
    '{"documents": [DOCUMENT, ...]}, each DOCUMENT a YAML or JSON text, '
    'a parsed document (with its "schema"), or {"name": FILE, '
    '"document": DOCUMENT}')
_VALIDATE_SHAPE = '{"document": DOCUMENT, "name": FILE} or ' + \
    _DOCUMENTS_SHAPE


def _body(req: falcon.Request, name: str, schema: dict,
          shape: str) -> dict[str, Any]:
    """The body, checked; a body of another shape (the designs API's
    ``{"sources": ...}``, say) is a 400 that says what is expected."""
    try:
        return json_body(req, name, schema)
    except exception.InvalidParameterValue as exc:
        raise _not_the_shape(req, str(exc), shape) from None


def _not_the_shape(req: falcon.Request, problem: str,
                   shape: str) -> exception.InvalidParameterValue:
    return wire.invalid('%s. %s %s takes %s' % (problem, req.method,
                                                req.path, shape))


def _sources(documents: list[Any]) -> list[tuple[str, Any]]:
    """(file name, document) of each document given: its name, or
    "document N" (its place in the list)."""
    named = []
    for number, given in enumerate(documents, 1):
        if isinstance(given, dict) and set(given) == {'name', 'document'}:
            named.append((given['name'], given['document']))
        else:
            named.append(('document %d' % number, given))
    return named


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
        body = _body(req, 'task graphs', schemas.TASKS, _DOCUMENTS_SHAPE)
        send(resp, {'tasks': actions.list_tasks(
            body['documents'], query['start_task'], query['end_task'])})


class Validate:
    @allow('baremetal:site:task:validate')
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        body = _body(req, 'task graphs', schemas.TASK_GRAPHS,
                     _VALIDATE_SHAPE)
        if ('document' in body) == ('documents' in body) or \
                ('name' in body and 'document' not in body):
            raise _not_the_shape(req, 'Give "document" (and its "name"), '
                                 'or "documents"', _VALIDATE_SHAPE)
        if 'document' in body:
            sources = [(body.get('name', '<input>'), body['document'])]
        else:
            sources = _sources(body['documents'])
        result = graph_files.validate(sources)
        send(resp, {'valid': not result.errors,
                    'errors': [e.as_dict() for e in result.errors],
                    'warnings': [w.as_dict() for w in result.warnings]})
