"""GET /openapi.json: the OpenAPI description of this API.

The document lives beside this module (``openapi.yaml``); a unit test
checks it names exactly the routes the application serves. What every
operation shares is added here, in one place, rather than repeated in
the document: the version header (only the versions accepted), and the
errors any operation can answer — 400 (a bad query argument or body,
an integer past what its column stores, a body that cannot be read
whole), 404 (absent, or newer than the version asked for), 406 (a
version not served, or too old for what is asked), 503 with
``Retry-After`` (the database or the conductors away), 409 for a write
on a node (locked or changed meanwhile), and where a body may be sent
413 (too large) and 408 (shorter than its Content-Length, once
``[api]client_socket_timeout`` passed). The site API (under ``/site``,
beside /v1) is described in the same document; its operations share
400, 403, 404, 503 and, with a body, 408 and 413, not the version
header.
"""

from __future__ import annotations

import functools
import json
import os
from typing import TYPE_CHECKING

import falcon
import yaml

from ironside.api import versions
from ironside.api import wire

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

PATH = os.path.join(os.path.dirname(__file__), 'openapi.yaml')
METHODS = ('get', 'put', 'post', 'delete', 'patch', 'head', 'options')
ERROR = {'$ref': '#/components/responses/Error'}
UNAVAILABLE = {'$ref': '#/components/responses/Unavailable'}
VERSION = {'$ref': '#/components/parameters/Version'}
EVERY_OPERATION = {'400': ERROR, '404': ERROR, '406': ERROR,
                   '503': UNAVAILABLE}
# The site API, served beside /v1 (ironside.api.site, at its default
# prefix), and the errors every one of its operations can answer.
SITE_API = '/site/v1'
SITE_OPERATION = {'400': ERROR, '403': ERROR, '404': ERROR,
                  '503': UNAVAILABLE}
# The methods whose requests may carry a body the API reads.
BODY_METHODS = ('put', 'post', 'patch')


def accepted_versions() -> list[str]:
    """The values of the version header the API accepts."""
    return ['latest'] + ['%d.%d' % (versions.BASE_VERSION, minor) for minor
                         in range(versions.MIN_MINOR, versions.MAX_MINOR + 1)]


def _complete(operation: dict, path: str, method: str) -> None:
    """Add what every operation of its API shares: for /v1 the version
    header and its errors, for the site API (no microversions) its own."""
    site = path.startswith(SITE_API)
    if not site:
        parameters = operation.setdefault('parameters', [])
        if VERSION not in parameters:
            parameters.append(VERSION)
    shared = dict(SITE_OPERATION if site else EVERY_OPERATION)
    if 'requestBody' in operation or method in BODY_METHODS:
        shared['408'] = ERROR
        shared['413'] = ERROR
    if method != 'get' and path.startswith('/v1/nodes/{node_ident}'):
        shared['409'] = ERROR
    responses = operation.setdefault('responses', {})
    for status, response in shared.items():
        responses.setdefault(status, response)


@functools.lru_cache(maxsize=1)
def document() -> dict:
    with open(PATH, encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec['components']['parameters']['Version']['schema'] = {
        'type': 'string', 'enum': accepted_versions()}
    spec['components']['responses']['Unavailable'] = {
        'description': 'The database or the conductors cannot be reached '
                       'for now; try again after Retry-After seconds.',
        'headers': {'Retry-After': {'schema': {'type': 'integer',
                                               'minimum': 0}}},
        'content': {'application/json': {'schema': {
            '$ref': '#/components/schemas/Error'}}}}
    for path, item in spec['paths'].items():
        if not path.startswith(('/v1', SITE_API)):
            continue
        for method in METHODS:
            if method in item:
                _complete(item[method], path, method)
    return spec


@functools.lru_cache(maxsize=1)
def _encoded() -> bytes:
    return json.dumps(document()).encode()


class OpenApi:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        resp.content_type = falcon.MEDIA_JSON
        resp.data = _encoded()


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/openapi.json', OpenApi())
