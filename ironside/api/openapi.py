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

Routes that only refuse, as Ironic's routing does (``REFUSAL_ONLY``),
are served but not described: no request to them can succeed.

The request bodies the API checks with a JSON schema of its own
(``ironside.api.schemas``) are not written in the document but taken
from there (``REQUEST_SCHEMAS``), so that what the document says a body
may be is what the API takes; so is ``BooleanLike``, what a boolean
parameter may be given as (``wire.as_boolean``).
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import TYPE_CHECKING
from typing import Any
from typing import cast

import falcon
import yaml

from ironside.api import patch as json_patch
from ironside.api import runbooks
from ironside.api import versions
from ironside.api import wire
from ironside.api.schemas import chassis as chassis_schema
from ironside.api.schemas import common as common_schemas
from ironside.api.schemas import node as node_schema
from ironside.api.schemas import port as port_schemas
from ironside.api.schemas import raid as raid_schemas
from ironside.common import inspection_rules as rules
from ironside.common import states
from ironside.db import node_filters

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
# Routes served only to refuse, with Ironic's message, a URL form its
# routing reaches but no operation answers: a heartbeat naming no node, a
# chassis' nodes without a chassis or written to, one node below a
# chassis. No request to them can succeed, so the document leaves them
# out rather than describe an operation that does not exist.
REFUSAL_ONLY: dict[str, frozenset[str]] = {
    '/v1/heartbeat': frozenset({'post'}),
    '/v1/chassis/nodes': frozenset({'get', 'post', 'put', 'patch',
                                    'delete'}),
    '/v1/chassis/{chassis_uuid}/nodes': frozenset({'post', 'put', 'patch',
                                                   'delete'}),
    '/v1/chassis/{chassis_uuid}/nodes/detail': frozenset(
        {'post', 'put', 'patch', 'delete'}),
    '/v1/chassis/{chassis_uuid}/nodes/{node_ident}': frozenset(
        {'get', 'post', 'put', 'patch', 'delete'}),
}
# The methods whose requests may carry a body the API reads.
BODY_METHODS = ('put', 'post', 'patch')
# components/schemas the document takes from the schemas the API
# validates bodies with.
REQUEST_SCHEMAS = {
    'ChassisBody': chassis_schema.CHASSIS,
    'VifAttach': node_schema.VIF,
    'Trait': common_schemas.TRAIT,
    'Step': common_schemas.CLEAN_STEPS['items'],
    'DeployStep': common_schemas.DEPLOY_STEP,
    'RunbookStep': runbooks.STEP,
    'LocalLinkConnection': port_schemas.LOCAL_LINK_CONNECTION,
    'RaidConfig': raid_schemas.SCHEMA,
}


def openapi_schema(schema: Any) -> Any:
    """``schema`` (JSON Schema draft 7, as ``ironside.api.schemas``
    writes them) in OpenAPI 3.0's dialect: a list of types becomes one
    type (or anyOf the types), ``nullable`` if null is among them."""
    if isinstance(schema, list):
        return [openapi_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: openapi_schema(value) for key, value in schema.items()}
    kinds = schema.get('type')
    if isinstance(kinds, list):
        named = [kind for kind in kinds if kind != 'null']
        del result['type']
        if len(named) == 1:
            result['type'] = named[0]
        else:
            result['anyOf'] = [{'type': kind} for kind in named]
        if 'null' in kinds:
            result['nullable'] = True
    return result


def _any_case(word: str) -> str:
    return ''.join('[%s%s]' % (c.upper(), c) if c.isalpha() else c
                   for c in word)


def boolean_like() -> dict:
    """What ``wire.as_boolean`` takes for true or false, as Ironic's
    boolean parameters do: a boolean, 0 or 1, or one of its strings in
    any case with blanks around."""
    words = sorted(wire.TRUE_STRINGS | wire.FALSE_STRINGS)
    return {'anyOf': [
        {'type': 'boolean'},
        {'type': 'integer', 'enum': [0, 1], 'minimum': 0, 'maximum': 1},
        {'type': 'string', 'pattern': r'^\s*(%s)\s*$' % '|'.join(
            _any_case(word) for word in words)},
    ]}


def accepted_versions() -> list[str]:
    """The values of the version header the API accepts (empty is none
    given: the oldest version, as for Ironic)."""
    return ['latest'] + ['%d.%d' % (versions.BASE_VERSION, minor) for minor
                         in range(versions.MIN_MINOR, versions.MAX_MINOR + 1)
                         ] + ['']


def folded_versions() -> str:
    """The version header as a list (comma-separated, or the header
    given more than once): microversion_parse, as Ironic, reads the last
    value, an empty one being none given."""
    return r'^.*,\s*(%s)?\s*$' % '|'.join(
        re.escape(version) for version in accepted_versions() if version)


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
    spec['components']['parameters']['Version']['schema'] = {'anyOf': [
        {'type': 'string', 'enum': accepted_versions()},
        {'type': 'string', 'pattern': folded_versions()}]}
    for name, schema in REQUEST_SCHEMAS.items():
        spec['components']['schemas'][name] = openapi_schema(schema)
    schemas = spec['components']['schemas']
    schemas['BooleanLike'] = boolean_like()
    # What the API checks in code (``wire``) rather than with a schema.
    schemas['Name'] = {'type': 'string',
                       'pattern': wire.LOGICAL_NAME.pattern}
    schemas['MacAddress'] = {'type': 'string', 'pattern':  # any case
                             wire.MAC_ADDRESS.pattern.replace('0-9a-f',
                                                              '0-9A-Fa-f')}
    # A JSON patch's path (~0 and ~1 escapes from 1.98).
    schemas['PatchPath'] = {'type': 'string', 'example': '/extra/rack',
                            'pattern': json_patch.PATH_ESCAPED.pattern}
    # What nodes may be sorted by: their columns but the JSON documents
    # (empty: by id, as Ironic).
    spec['components']['parameters']['NodeSortKey']['schema']['enum'] = \
        [''] + sorted(node_filters.SORTABLE_COLUMNS)
    # The provision verbs (which of them the node's state allows is the
    # state machine's).
    schemas['ProvisionRequest']['properties']['target']['enum'] = sorted(
        states.VERBS)
    # An inspection rule's conditions and actions, as the API checks them.
    rule = spec['paths']['/v1/inspection_rules']['post']['requestBody'][
        'content']['application/json']['schema']['properties']
    pieces = cast('dict[str, Any]', rules.SCHEMA['properties'])
    for piece in ('conditions', 'actions'):
        rule[piece] = openapi_schema(pieces[piece])
    # A VIF's id is a UUID or a name: the API checks it after the
    # schema, as Ironic does, and says so in Ironic's words.
    schemas['VifAttach']['properties']['id']['pattern'] = \
        wire.LOGICAL_NAME.pattern
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
