"""The OpenAPI document describes exactly the routes the app serves."""

from __future__ import annotations

import falcon.inspect
import pytest

from ironside.api import app as api_app
from ironside.api import openapi
from ironside.api import site as site_api
from ironside.api import versions

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


def test_every_route_is_documented(served, documented):
    missing = sorted(set(served) - set(documented))
    assert missing == []


def test_nothing_documented_is_missing(served, documented):
    extra = sorted(set(documented) - set(served))
    assert extra == []


def test_methods_match(served, documented):
    for path in served:
        assert documented.get(path) == served[path], path


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
    assert schema['enum'][:3] == ['latest', '1.1', '1.2']
    assert schema['enum'][-1] == versions.MAX_VERSION_STRING
    assert 'x' not in schema['enum'] and '2.0' not in schema['enum']


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
