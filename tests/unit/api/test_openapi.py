"""The OpenAPI document describes exactly the routes the app serves."""

from __future__ import annotations

import falcon.inspect
import jsonschema
import pytest

from ironside.api import app as api_app
from ironside.api import openapi
from ironside.api import site as site_api
from ironside.api import versions
from ironside.api import wire
from ironside.common import exception

METHODS = ('get', 'put', 'post', 'delete', 'patch', 'head', 'options')


class _NoConductor:
    ring = None


@pytest.fixture(scope='module')
def served() -> dict[str, set[str]]:
    app = api_app.build_app(_NoConductor(), extra_apis=[
        (site_api.DEFAULT_PREFIX, site_api.register)])
    return {route.path: {m.method.lower() for m in route.methods
                         if not m.internal}
            for route in falcon.inspect.inspect_routes(app)}


@pytest.fixture(scope='module')
def documented() -> dict[str, set[str]]:
    return {path: {m for m in item if m in METHODS}
            for path, item in openapi.document()['paths'].items()}


@pytest.fixture(scope='module')
def operations(served) -> dict[str, set[str]]:
    """The routes' methods that answer something other than a refusal."""
    refused = openapi.REFUSAL_ONLY
    return {path: methods - refused.get(path, set())
            for path, methods in served.items()
            if path not in refused or methods - refused[path]}


def test_every_route_is_documented(operations, documented):
    missing = sorted(set(operations) - set(documented))
    assert missing == []


def test_nothing_documented_is_missing(operations, documented):
    extra = sorted(set(documented) - set(operations))
    assert extra == []


def test_methods_match(operations, documented):
    for path in operations:
        assert documented.get(path) == operations[path], path


def test_only_served_routes_are_left_out_as_refusals(served):
    # Each route left out is served, with at least the methods listed.
    for path, methods in openapi.REFUSAL_ONLY.items():
        assert methods <= served.get(path, set()), path


def test_references_resolve():
    document = openapi.document()

    def _refs(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == '$ref':
                    yield item
                else:
                    yield from _refs(item)
        elif isinstance(value, list):
            for item in value:
                yield from _refs(item)

    for ref in set(_refs(document)):
        target = document
        for part in ref.lstrip('#/').split('/'):
            target = target[part]
        assert target, ref


def _operations():
    for path, item in openapi.document()['paths'].items():
        for method in METHODS:
            if method in item and path.startswith('/v1'):
                yield path, method, item[method]


def test_every_operation_documents_its_errors():
    for path, method, operation in _operations():
        responses = operation['responses']
        for status in ('400', '404', '406', '503'):
            assert status in responses, (method, path, status)
        if 'requestBody' in operation:
            assert '413' in responses, (method, path)
        assert {'$ref': '#/components/parameters/Version'} in \
            operation['parameters'], (method, path)


# The operations that answer 405 below the microversion that brought
# them, as Ironic does (their GET answers 404 or lists).
NEWER_THAN_THE_VERSION = [
    ('post', '/v1/allocations'),
    ('patch', '/v1/allocations/{allocation_ident}'),
    ('delete', '/v1/allocations/{allocation_ident}'),
    ('post', '/v1/deploy_templates'),
    ('patch', '/v1/deploy_templates/{template_ident}'),
    ('delete', '/v1/deploy_templates/{template_ident}'),
    ('post', '/v1/inspection_rules'),
    ('delete', '/v1/inspection_rules'),
    ('patch', '/v1/inspection_rules/{rule_uuid}'),
    ('delete', '/v1/inspection_rules/{rule_uuid}'),
    ('post', '/v1/runbooks'),
    ('patch', '/v1/runbooks/{runbook_ident}'),
    ('delete', '/v1/runbooks/{runbook_ident}'),
]


@pytest.mark.parametrize('method,path', NEWER_THAN_THE_VERSION)
def test_operations_newer_than_the_version_document_405(method, path):
    responses = openapi.document()['paths'][path][method]['responses']
    assert responses['405'] == {
        '$ref': '#/components/responses/NotAtThisVersion'}


def test_the_version_header_takes_only_what_is_accepted():
    schema = openapi.document()['components']['parameters']['Version'][
        'schema']
    listed = schema['anyOf'][0]['enum']
    assert listed[:3] == ['latest', '1.1', '1.2']
    # Empty is none given (the oldest), as for Ironic.
    assert listed[-2:] == [versions.MAX_VERSION_STRING, '']
    assert 'x' not in listed and '2.0' not in listed


def _version_accepted(value: str) -> bool:
    try:
        versions.parse({versions.VERSION_HEADER: value})
    except exception.NotAcceptable:
        return False
    return True


# A list (the header folded, or given as one with commas): the last value
# counts, as microversion_parse reads it for Ironic.
@pytest.mark.parametrize('value', [
    'latest', '1.1', versions.MAX_VERSION_STRING, '', 'x', '2.0', '1.999',
    '1.x', 'x,', 'pA$(9rUT,', '1.5, ', 'x, 1.5', '1.5,latest', '1.5, x',
    'x, 2.0', ',', 'latest,1.1'])
def test_the_version_header_in_the_document_is_what_the_api_takes(value):
    validator = jsonschema.Draft7Validator(_resolved(
        {'$ref': '#/components/parameters/Version'})['schema'])
    assert validator.is_valid(value) is _version_accepted(value), value


def test_validate_requires_the_node():
    parameters = openapi.document()['paths']['/v1/nodes/validate']['get'][
        'parameters']
    node = next(p for p in parameters if p.get('name') == 'node')
    assert node['required'] is True and node['in'] == 'query'


def test_site_operations_document_their_errors():
    for path, item in openapi.document()['paths'].items():
        if not path.startswith('/site/v1'):
            continue
        for method in METHODS:
            if method in item:
                responses = item[method]['responses']
                assert {'400', '403', '404', '503'} <= set(responses), path
                if 'requestBody' in item[method]:
                    assert '413' in responses, (method, path)


def test_the_site_action_list_documents_its_filters():
    parameters = openapi.document()['paths']['/site/v1/actions']['get'][
        'parameters']
    assert {p['name'] for p in parameters} == {
        'state', 'action', 'revision', 'sort_key', 'sort_dir', 'marker',
        'limit'}
    body = openapi.document()['paths']['/site/v1/tasks']['post'][
        'requestBody']
    assert body['content']['application/json']['schema'] == {
        '$ref': '#/components/schemas/SiteDocuments'}


# Request bodies: what the document says a body may be is what the API
# (as Ironic) takes.

def _resolved(value):
    """``value`` with its references replaced and OpenAPI 3.0's
    ``nullable`` written as JSON Schema's null type."""
    if isinstance(value, list):
        return [_resolved(item) for item in value]
    if not isinstance(value, dict):
        return value
    if '$ref' in value:
        target = openapi.document()
        for part in value['$ref'].lstrip('#/').split('/'):
            target = target[part]
        return _resolved(target)
    result = {k: _resolved(v) for k, v in value.items() if k != 'nullable'}
    if value.get('nullable'):
        if 'type' in result:
            result['type'] = [result['type'], 'null']
        else:
            result = {'anyOf': [result, {'type': 'null'}]}
    return result


def _body_schema(path, method):
    operation = openapi.document()['paths'][path][method]
    return _resolved(operation['requestBody']['content'][
        'application/json']['schema'])


NODE = '/v1/nodes/{node_ident}'


@pytest.mark.parametrize('path,method,body,allowed', [
    # As Ironic's schema of a chassis: a null description is none.
    ('/v1/chassis', 'post', {'description': None}, True),
    ('/v1/chassis', 'post', {'description': 'x' * 256}, False),
    ('/v1/chassis', 'post', {'uuid': 'not-a-uuid'}, False),
    # As Ironic's VIF schema: the id a string (a UUID or a name).
    (NODE + '/vifs', 'post', {'id': None}, False),
    (NODE + '/vifs', 'post', {'id': 'has space'}, False),
    (NODE + '/vifs', 'post', {'id': 'vif-1', 'port_uuid': 'p'}, True),
    # Ironic reads these booleans as strutils does: 0 is false.
    (NODE + '/states/console', 'put', {'enabled': 0}, True),
    (NODE + '/states/console', 'put', {'enabled': ' Yes '}, True),
    (NODE + '/states/console', 'put', {'enabled': 2}, False),
    (NODE + '/states/console', 'put', {'enabled': True, 'x': 1}, False),
    (NODE + '/states/secure_boot', 'put', {'target': 0}, True),
    (NODE + '/states/secure_boot', 'put', {'target': None}, False),
    # A null timeout is the default one.
    (NODE + '/states/power', 'put',
     {'target': 'power on', 'timeout': None}, True),
    (NODE + '/states/power', 'put', {'target': 'power on', 'timeout': 0},
     False),
    (NODE + '/states/provision', 'put', {'target': 'nonsense'}, False),
    (NODE + '/states/provision', 'put',
     {'target': 'clean', 'disable_ramdisk': 'yes'}, True),
])
def test_request_bodies(path, method, body, allowed):
    validator = jsonschema.Draft7Validator(
        _body_schema(path, method),
        format_checker=jsonschema.FormatChecker())
    assert validator.is_valid(body) is allowed


def test_a_raid_body_may_be_left_out():
    # As Ironic: no body is an empty target configuration (it clears it).
    operation = openapi.document()['paths'][NODE + '/states/raid']['put']
    assert operation['requestBody']['required'] is False


# (1.0 is left out: to a JSON schema it is the integer 1, which the API,
# as Ironic, reads as the text "1.0" and refuses.)
@pytest.mark.parametrize('value', [
    True, False, 0, 1, 2, -1, 0.5, None, 'yes', 'YES', ' off ', 'T', 'x',
    '', 'truee', [], {}])
def test_boolean_like_is_what_the_api_reads(value):
    validator = jsonschema.Draft7Validator(
        _resolved({'$ref': '#/components/schemas/BooleanLike'}))
    try:
        reads = wire.as_boolean('b', value) is not None
    except exception.InvalidParameterValue:
        reads = False
    assert validator.is_valid(value) is reads


@pytest.mark.parametrize('name', sorted(openapi.REQUEST_SCHEMAS))
def test_bodies_the_api_validates_are_its_schemas(name):
    # One source: the document's schema is the API's, converted (a
    # property may say more, such as the pattern of a VIF's id).
    document = dict(openapi.document()['components']['schemas'][name])
    expected = openapi.openapi_schema(openapi.REQUEST_SCHEMAS[name])
    assert document.pop('properties', {}).keys() == \
        expected.pop('properties', {}).keys()
    assert document == expected


def test_the_node_sort_keys_documented_are_what_the_list_sorts_by(
        api, create_node):
    """Every sort_key the document offers for the node list sorts it; a
    document that offered any string sent clients to 400s."""
    create_node(name='first')
    create_node(name='second')
    parameter = openapi.document()['components']['parameters'][
        'NodeSortKey']['schema']
    assert 'properties' not in parameter['enum']
    for key in parameter['enum']:
        response = api.get('/v1/nodes', sort_key=key)
        assert response.status_code == 200, (key, response.json)
        assert len(response.json['nodes']) == 2
    assert api.get('/v1/nodes', sort_key='properties').status_code == 400
