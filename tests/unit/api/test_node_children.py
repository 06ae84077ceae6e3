"""Child nodes (1.83): GET /v1/nodes/{node}/children and the list filters."""

from __future__ import annotations

import pytest

from tests.unit.api.conftest import error_of
from tests.unit.api.conftest import identity

SYSTEM_ADMIN = identity(['admin', 'member', 'reader'], system=True)
OWNER_READER = identity(['reader'], project='p1')


@pytest.fixture
def family(create_node):
    parent = create_node(name='parent')['uuid']
    first = create_node(name='first', parent_node=parent)['uuid']
    second = create_node(name='second', parent_node='parent')['uuid']
    create_node(name='grandchild', parent_node=first)
    create_node(name='stranger')
    return parent, first, second


def test_children_of_a_node(api, family):
    parent, first, second = family
    for ident in (parent, 'parent'):
        response = api.get('/v1/nodes/%s/children' % ident)
        assert response.status_code == 200, response.text
        assert response.json == {
            'children': [first, second],
            'links': {'href': 'http://falconframework.org/v1/nodes'
                              '?parent_node=%s' % parent,
                      'rel': 'children'}}
    assert api.get('/v1/nodes/second/children').json['children'] == []


def test_children_need_1_83(api, family):
    response = api.get('/v1/nodes/parent/children', version='1.82')
    assert response.status_code == 404


def test_children_of_an_unknown_node_is_404(api):
    response = api.get('/v1/nodes/nobody/children')
    assert response.status_code == 404
    assert error_of(response) == 'Node nobody could not be found.'


def test_children_a_project_sees(api, keystone):
    def create(**values):
        values.setdefault('driver', 'fake-hardware')
        response = api.post('/v1/nodes', values, headers=SYSTEM_ADMIN)
        assert response.status_code == 201, response.text
        return response.json['uuid']
    parent = create(name='parent', owner='p1')
    mine = create(name='mine', parent_node=parent, owner='p1')
    create(name='theirs', parent_node=parent, owner='p2')
    leased = create(name='leased', parent_node=parent, lessee='p1')
    hidden = create(name='hidden', owner='p2')
    response = api.get('/v1/nodes/parent/children', headers=OWNER_READER)
    assert response.status_code == 200, response.text
    assert response.json['children'] == [mine, leased]
    response = api.get('/v1/nodes/%s/children' % hidden,
                       headers=OWNER_READER)
    assert response.status_code == 404
    assert error_of(response) == 'Node %s could not be found.' % hidden


def test_list_filters(api, family):
    parent, first, second = family

    def names(**params):
        response = api.get('/v1/nodes', **params)
        assert response.status_code == 200, response.text
        return sorted(n['name'] for n in response.json['nodes'])

    everyone = ['first', 'grandchild', 'parent', 'second', 'stranger']
    assert names() == ['parent', 'stranger']
    assert names(parent_node=parent) == ['first', 'second']
    assert names(parent_node=first) == ['grandchild']
    # As Ironic's database filter: include_children lists every node,
    # whatever parent_node says, and parent_node compares UUIDs only.
    assert names(include_children='true') == everyone
    assert names(include_children='true', parent_node=first) == everyone
    assert names(include_children='false', parent_node=first) == \
        ['grandchild']
    assert names(parent_node='parent') == []
    assert api.get('/v1/nodes', parent_node=parent,
                   version='1.82').status_code == 406
