"""Every path and method of Ironic's API reference, walked.

The list is data (tests/data/ironic_api_paths.yaml, written from Ironic's
API reference up to 1.115). A client that negotiated 1.115 must find every
route; below the microversion that introduced it, a route answers 404 or
406 as Ironic's does. Routes marked ``missing`` must still be missing, so
the data says exactly what is left to build.
"""

from __future__ import annotations

import pathlib
import re

import pytest
import yaml

from ironside.api import versions

DATA = pathlib.Path(__file__).parents[2] / 'data' / 'ironic_api_paths.yaml'
ROUTES = [dict(route, family=family)
          for family, routes in yaml.safe_load(DATA.read_text()).items()
          for route in routes]
# GETs whose placeholders name objects the fixture creates: they must
# answer 200 at 1.115. The others (a VIF, a history event...) may be 404.
_ALWAYS_THERE = {'node', 'port', 'portgroup', 'chassis', 'driver',
                 'conductor', 'allocation', 'deploy_template',
                 'volume_connector', 'volume_target', 'runbook',
                 'inspection_rule'}
# A node's allocation and inventory: the node has none (never inspected).
_MAY_BE_ABSENT = {'/v1/nodes/{node}/allocation',
                  '/v1/nodes/{node}/inventory'}
# GETs that need query parameters to find anything (400 without).
_NEEDS_QUERY = {'/v1/lookup'}
_PLACEHOLDER = re.compile(r'{(\w+)}')


def _id(route):
    return '%s %s' % (route['method'], route['path'])


def _responder(app, method: str, path: str):
    """The resource method Falcon routes ``method path`` to, or None."""
    found = app._router.find(path)
    if found is None:
        return None
    resource, method_map = found[0], found[1]
    responder = method_map.get(method)
    if getattr(responder, '__self__', None) is not resource:
        return None         # Falcon's own 405 responder
    return responder


@pytest.fixture
def objects(api, create_node):
    """One of each object the routes name, by placeholder."""
    node = create_node(name='walker')['uuid']

    def created(path, body):
        response = api.post(path, body)
        assert response.status_code == 201, response.text
        return response.json['uuid']

    chassis = created('/v1/chassis', {})
    portgroup = created('/v1/portgroups', {'node_uuid': node,
                                           'address': '52:54:00:00:00:01'})
    port = created('/v1/ports', {'node_uuid': node,
                                 'address': '52:54:00:00:00:02'})
    allocation = created('/v1/allocations', {'resource_class': 'walker'})
    template = created('/v1/deploy_templates', {
        'name': 'CUSTOM_WALK', 'steps': [{
            'interface': 'deploy', 'step': 'deploy', 'args': {},
            'priority': 10}]})
    served = {(r['method'], r['path']) for r in ROUTES
              if 'missing' not in r}
    connector = target = runbook = 'none'
    if ('PATCH', '/v1/volume/connectors/{volume_connector}') in served:
        connector = created('/v1/volume/connectors', {
        'node_uuid': node, 'type': 'iqn',
            'connector_id': 'iqn.2026-11.org.example:walker'})
        target = created('/v1/volume/targets', {
            'node_uuid': node, 'volume_type': 'iscsi', 'boot_index': 0,
            'volume_id': 'walker-volume'})
    if ('POST', '/v1/runbooks') in served:
        runbook = created('/v1/runbooks', {
            'name': 'CUSTOM_WALK', 'steps': [{
                'interface': 'deploy', 'step': 'erase_devices', 'args': {},
                'order': 0}]})
    rule = created('/v1/inspection_rules', {
        'actions': [{'op': 'log', 'args': {'msg': 'walked'}}]})
    return {'node': node, 'port': port, 'portgroup': portgroup,
            'chassis': chassis, 'driver': 'fake-hardware',
            'conductor': 'test-conductor', 'allocation': allocation,
            'deploy_template': template, 'volume_connector': connector,
            'volume_target': target, 'runbook': runbook,
            'trait': 'CUSTOM_WALK', 'vif': 'vif-walker',
            'bios_setting': 'walker', 'indicator': 'led@system',
            'history_event': '4b6b8d61-a1e5-4b36-9a16-4b4f6dfb7b4a',
            'inspection_rule': rule}


def _below(route) -> tuple[int, ...]:
    """What Ironic answers under the route's microversion."""
    return (route['below'],) if 'below' in route else (404, 406)


def _concrete(path: str, objects: dict) -> str:
    return _PLACEHOLDER.sub(lambda m: objects[m.group(1)], path)


def test_the_data_is_well_formed():
    seen = set()
    for route in ROUTES:
        assert set(route) <= {'method', 'path', 'since', 'missing',
                              'below', 'family'}, route
        assert route['method'] in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')
        assert 1 <= route['since'] <= versions.MAX_MINOR, route
        assert _id(route) not in seen, route
        seen.add(_id(route))


@pytest.mark.parametrize('route', [r for r in ROUTES if 'missing' not in r],
                         ids=_id)
def test_route_is_served_at_latest(app, route):
    assert _responder(app, route['method'], route['path']), \
        '%s is not routed' % _id(route)


@pytest.mark.parametrize('route', [r for r in ROUTES if 'missing' in r],
                         ids=_id)
def test_route_still_missing_is_listed_with_its_reason(app, route):
    """When one of these is built, drop its ``missing`` key."""
    assert route['missing'].strip()
    assert _responder(app, route['method'], route['path']) is None, \
        '%s is routed now: remove its "missing" mark' % _id(route)


def test_gets_answer_at_latest_and_hide_below(api, objects):
    for route in ROUTES:
        if 'missing' in route or route['method'] != 'GET':
            continue
        path = _concrete(route['path'], objects)
        names = set(_PLACEHOLDER.findall(route['path']))
        response = api.get(path)
        if route['path'] in _NEEDS_QUERY:
            assert response.status_code == 400, _id(route)
        elif names <= _ALWAYS_THERE and \
                route['path'] not in _MAY_BE_ABSENT \
                and 'none' not in path.split('/'):
            assert response.status_code == 200, (_id(route), response.text)
        else:
            assert response.status_code in (200, 404), _id(route)
        if route['since'] > versions.MIN_MINOR:
            below = api.get(path, version='1.%d' % (route['since'] - 1))
            assert below.status_code in _below(route), (
                _id(route), below.status_code)


def test_other_verbs_are_refused_below_their_version(api, objects):
    for route in ROUTES:
        if 'missing' in route or route['method'] == 'GET' \
                or route['since'] <= versions.MIN_MINOR:
            continue
        path = _concrete(route['path'], objects)
        response = api.request(route['method'], path, body={},
                               version='1.%d' % (route['since'] - 1))
        assert response.status_code in _below(route), (
            _id(route), response.status_code, response.text)
