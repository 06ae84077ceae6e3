"""The OpenAPI document describes exactly the routes the app serves."""

from __future__ import annotations

import falcon.inspect
import pytest

from ironside.api import app as api_app
from ironside.api import openapi
from ironside.api import versions

METHODS = ('get', 'put', 'post', 'delete', 'patch', 'head', 'options')


class _NoConductor:
    ring = None


@pytest.fixture(scope='module')
def served() -> dict[str, set[str]]:
    app = api_app.build_app(_NoConductor())
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
