"""A NUL character anywhere in a request is a 400 that changes nothing
(issue 17, finding 6: on PostgreSQL these were 500s, because it cannot
store one; on SQLite they were stored)."""

from __future__ import annotations

import pytest

from tests.unit.api.conftest import error_of

NUL = 'a\x00b'


@pytest.mark.parametrize('body,where', [
    ({'driver': 'fake-hardware', 'description': NUL}, 'description'),
    ({'driver': 'fake-hardware', 'extra': {'k': [NUL]}}, 'extra/k/0'),
    ({'driver': 'fake-hardware', 'extra': {NUL: 1}}, 'extra'),
])
def test_create_with_a_nul_is_refused(api, body, where):
    response = api.post('/v1/nodes', body)
    assert response.status_code == 400
    assert error_of(response) == \
        'A NUL character is not allowed in the request body/%s' % where
    assert api.get('/v1/nodes').json['nodes'] == []


@pytest.mark.parametrize('path', ['/description', '/owner', '/extra/x'])
def test_patch_with_a_nul_is_refused_and_changes_nothing(api, create_node,
                                                         path):
    node = create_node(name='clean')
    response = api.patch('/v1/nodes/clean', [
        {'op': 'add', 'path': path, 'value': NUL}])
    assert response.status_code == 400
    assert 'A NUL character is not allowed' in error_of(response)
    after = api.get('/v1/nodes/clean').json
    assert (after['description'], after['owner'], after['extra']) == \
        (node['description'], node['owner'], node['extra'])


def test_chassis_description_with_a_nul_is_refused(api):
    response = api.post('/v1/chassis', {'description': NUL})
    assert response.status_code == 400
    assert api.get('/v1/chassis').json['chassis'] == []


@pytest.mark.parametrize('name', ['owner', 'lessee', 'resource_class',
                                  'conductor_group', 'description_contains',
                                  'shard'])
def test_list_filters_with_a_nul_are_refused(api, create_node, name):
    create_node()
    response = api.get('/v1/nodes', **{name: NUL})
    assert response.status_code == 400
    assert error_of(response) == \
        'A NUL character is not allowed in query parameter %s' % name


def test_a_nul_in_the_path_is_refused(api, create_node):
    create_node(name='n')
    response = api.get('/v1/nodes/n%00')
    assert response.status_code == 400
    assert error_of(response) == \
        'A NUL character is not allowed in the request path'
