"""GET /, GET /v1, and microversion negotiation on every answer."""

from __future__ import annotations

import pytest

from ironside.api import versions
from tests.unit.api.conftest import error_of

HEADERS = (versions.MIN_HEADER, versions.MAX_HEADER, versions.VERSION_HEADER)


def _version_headers(response) -> tuple:
    return tuple(response.headers.get(name) for name in HEADERS)


def test_root_document(api):
    response = api.get('/', version=None)
    assert response.status_code == 200
    body = response.json
    assert body['name'] == 'OpenStack Ironic API'
    version = body['default_version']
    assert version == body['versions'][0]
    assert version['id'] == 'v1'
    assert version['min_version'] == '1.1'
    assert version['version'] == '1.115'
    assert version['status'] == 'CURRENT'
    assert version['links'] == [{'href': 'http://falconframework.org/v1/',
                                 'rel': 'self'}]
    assert _version_headers(response) == ('1.1', '1.115', '1.1')


def test_v1_document_with_and_without_slash(api):
    for path in ('/v1', '/v1/'):
        body = api.get(path, version=None).json
        assert body['id'] == 'v1'
        assert body['media_types'] == {
            'base': 'application/json',
            'type': 'application/vnd.openstack.ironic.v1+json'}
        assert body['links'][0] == {
            'href': 'http://falconframework.org/v1/', 'rel': 'self'}
        assert body['links'][1]['rel'] == 'describedby'
        assert body['links'][1]['type'] == 'text/html'
        assert body['nodes'] == [
            {'href': 'http://falconframework.org/v1/nodes', 'rel': 'self'},
            {'href': 'http://falconframework.org/nodes', 'rel': 'bookmark'}]
        assert body['version']['version'] == '1.115'


@pytest.mark.parametrize('name,minor', [
    ('portgroups', 23), ('volume', 32), ('conductors', 49),
    ('allocations', 52), ('deploy_templates', 55), ('shards', 82)])
def test_v1_links_are_version_gated(api, name, minor):
    assert name not in api.get('/v1', version='1.%d' % (minor - 1)).json
    assert name in api.get('/v1', version='1.%d' % minor).json


def test_v1_does_not_link_what_ironside_lacks(api):
    body = api.get('/v1', version='latest').json
    for name in ('lookup', 'heartbeat', 'events', 'runbooks',
                 'inspection_rules', 'continue_inspection'):
        assert name not in body


@pytest.mark.parametrize('path', ['/', '/v1'])
@pytest.mark.parametrize('method', ['POST', 'PUT', 'PATCH', 'DELETE'])
def test_other_methods_are_405(api, path, method):
    response = api.request(method, path)
    assert response.status_code == 405
    assert error_of(response) == \
        'The method specified is not allowed for this resource.'
    assert _version_headers(response)[:2] == ('1.1', '1.115')


def test_latest_and_no_header(api):
    assert api.get('/v1', version='latest').headers[
        versions.VERSION_HEADER] == '1.115'
    assert api.get('/v1', version=None).headers[
        versions.VERSION_HEADER] == '1.1'


def test_openstack_api_version_header_wins(api):
    response = api.get('/v1', version='1.20', headers={
        'OpenStack-API-Version': 'baremetal 1.50'})
    assert response.headers[versions.VERSION_HEADER] == '1.50'
    response = api.get('/v1', version=None, headers={
        'OpenStack-API-Version': 'baremetal latest'})
    assert response.headers[versions.VERSION_HEADER] == '1.115'


@pytest.mark.parametrize('value', ['1.1000', '1.0', '1.116'])
def test_unsupported_minor_is_406(api, value):
    response = api.get('/v1/nodes', version=value)
    assert response.status_code == 406
    assert error_of(response) == (
        'Version %s was requested but the minor version is not supported '
        'by this service. The supported version range is: [1.1, 1.115].'
        % value)
    assert _version_headers(response)[:2] == ('1.1', '1.115')


def test_other_major_is_406(api):
    response = api.get('/', version='2.1')
    assert response.status_code == 406
    assert error_of(response).startswith(
        'Mutually exclusive versions requested. Version 2.1 requested')


@pytest.mark.parametrize('value', ['abc', '1', '1.2.3', '1.x'])
def test_malformed_version_is_406(api, value):
    response = api.get('/v1', version=value)
    assert response.status_code == 406
    assert error_of(response) == \
        'Invalid value for X-OpenStack-Ironic-API-Version header'


def test_headers_on_404(api):
    response = api.get('/v1/nothing-here', version='1.50')
    assert response.status_code == 404
    assert error_of(response) == 'The resource could not be found.'
    assert _version_headers(response) == ('1.1', '1.115', '1.50')
    assert response.headers['X-OpenStack-Request-Id'].startswith('req-')


def test_public_endpoint_sets_links(api, conf):
    conf.set('api', public_endpoint='https://bm.example.com:6385/')
    body = api.get('/v1').json
    assert body['links'][0]['href'] == 'https://bm.example.com:6385/v1/'
