"""Integers a request gives for an integer column are held to what the
column stores: past it, 400 naming the field, on every backend (run
with IRONSIDE_TEST_DB=postgresql and mysql: PostgreSQL and MariaDB
refuse 2**31 in an INTEGER column, and that was a 500); at its largest,
stored and read back. Then a walk of every request schema of the API
and of /openapi.json: no integer field is left without bounds."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import pytest

import ironside.api
from ironside.api import openapi
from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of

LARGEST = 2 ** 31 - 1
PAST = 2 ** 31
STEP = {'interface': 'deploy', 'step': 'write_image', 'args': {}}


@pytest.fixture
def node(api, create_node):
    """A node powered off: its volume targets may change."""
    uuid = create_node()['uuid']
    response = api.put('/v1/nodes/%s/states/power' % uuid,
                       {'target': 'power off'})
    assert response.status_code == 202, response.text
    utils.wait_for(lambda: nodes_db.get_node(uuid).power_state ==
                   'power off', what='the node to power off')
    return uuid


def _target(node: str, value: Any) -> tuple[str, dict, str]:
    return '/v1/volume/targets', {
        'node_uuid': node, 'volume_type': 'iscsi', 'volume_id': 'v1',
        'boot_index': value}, '/boot_index'


def _template(_node: str, value: Any) -> tuple[str, dict, str]:
    return '/v1/deploy_templates', {
        'name': 'CUSTOM_BOUNDS', 'steps': [dict(STEP, priority=value)]}, \
        '/steps/0/priority'


def _runbook(_node: str, value: Any) -> tuple[str, dict, str]:
    return '/v1/runbooks', {
        'name': 'CUSTOM_BOUNDS', 'steps': [dict(STEP, order=value)]}, \
        '/steps/0/order'


def _read_back(api, location: str, where: str) -> Any:
    item = api.get('/v1' + location.split('/v1', 1)[1]).json
    for part in where.strip('/').split('/'):
        item = item[int(part) if part.isdigit() else part]
    return item


@pytest.mark.parametrize('make', [_target, _template, _runbook],
                         ids=['volume target boot_index',
                              'deploy template step priority',
                              'runbook step order'])
def test_stored_integers_at_their_column_bounds(api, node, make):
    for value in (PAST, str(PAST), 2 ** 63 - 1):
        if isinstance(value, str) and make is _target:
            continue                # boot_index is an integer only
        path, body, where = make(node, value)
        response = api.post(path, body)
        assert response.status_code == 400, response.text
        assert error_of(response).endswith(
            "%r is greater than the maximum of %d (at %s)"
            % (value, LARGEST, where)), error_of(response)
    path, body, where = make(node, LARGEST)
    created = api.post(path, body)
    assert created.status_code == 201, created.text
    assert _read_back(api, created.headers['location'], where) == LARGEST
    # A change past the bound is refused the same way.
    item = '/v1' + created.headers['location'].split('/v1', 1)[1]
    response = api.patch(item, [
        {'op': 'replace', 'path': where if make is _target else '/steps',
         'value': PAST if make is _target else [
             dict(body['steps'][0], **{where.rsplit('/', 1)[1]: PAST})]}])
    assert response.status_code == 400, response.text
    assert _read_back(api, created.headers['location'], where) == LARGEST


def test_digits_strings_at_the_bound_are_stored_as_integers(api):
    path, body, where = _template('', str(LARGEST))
    created = api.post(path, body)
    assert created.status_code == 201, created.text
    assert _read_back(api, created.headers['location'], where) == LARGEST


def test_inspection_rule_priority_stays_checked(api):
    response = api.post('/v1/inspection_rules', {
        'priority': PAST, 'actions': [
            {'op': 'set-attribute',
             'args': {'path': '/properties/cpus', 'value': '1'}}]})
    assert response.status_code == 400, response.text


# The walk: every integer of every request schema has both bounds.

# Integers bounded elsewhere, each with where.
BOUNDED_ELSEWHERE = {
    # check_rule: 0 to 9999 for rules from the API.
    'ironside.common.inspection_rules.SCHEMA/properties/priority',
    # Stored inside the node's target_raid_config (JSON): the body
    # parser's 64 bits bound them.
    'ironside.api.schemas.raid.SCHEMA/properties/logical_disks/items/'
    'properties/size_gb/anyOf/0',
    'ironside.api.schemas.raid.SCHEMA/properties/logical_disks/items/'
    'properties/number_of_physical_disks',
    # A design version to look up, never stored: parsed by the site
    # layer's versions.parse.
    'ironside.api.schemas.site.NODE_FILTER/properties/revision',
}


def _integers(schema: Any, where: str):
    """(where, schema) of every integer node of ``schema``."""
    if isinstance(schema, dict):
        kind = schema.get('type')
        if kind == 'integer' or (isinstance(kind, list) and
                                 'integer' in kind):
            yield where, schema
        for key, value in schema.items():
            yield from _integers(value, '%s/%s' % (where, key))
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _integers(value, '%s/%d' % (where, index))


def _request_schemas():
    """Every module-level JSON schema of the API's modules, and the
    inspection rules' (which live in common)."""
    names = [info.name for info in pkgutil.walk_packages(
        ironside.api.__path__, 'ironside.api.')]
    names.append('ironside.common.inspection_rules')
    for name in sorted(names):
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if attribute.isupper() and not attribute.startswith('_') and \
                    isinstance(value, dict) and \
                    ('type' in value or 'anyOf' in value):
                yield '%s.%s' % (name, attribute), value


def test_every_integer_of_the_request_schemas_has_bounds():
    found = {}
    for name, schema in _request_schemas():
        for where, integer in _integers(schema, name):
            found[where] = integer
    assert len(found) >= 6, found
    unbounded = sorted(
        where for where, integer in found.items()
        if ('minimum' not in integer or 'maximum' not in integer) and
        where not in BOUNDED_ELSEWHERE)
    assert unbounded == []
    assert all(integer['maximum'] <= 2 ** 63 - 1 for integer in
               found.values() if 'maximum' in integer)


# In /openapi.json, the integers of request bodies: the bounds the API
# holds them to.
OPENAPI_BOUNDED_ELSEWHERE = {
    # Not stored; the conductor's power change waits at most that long.
    '#/components/schemas/PowerRequest/properties/timeout',
    # A RAID configuration is kept as JSON, not in integer columns: the
    # body reader holds its integers to 64 bits.
    '#/components/schemas/RaidConfig/properties/logical_disks/items/'
    'properties/size_gb/anyOf/0',
    '#/components/schemas/RaidConfig/properties/logical_disks/items/'
    'properties/number_of_physical_disks',
}


def test_every_integer_of_the_openapi_request_bodies_has_bounds():
    document = openapi.document()
    found = dict(_integers(document['components']['schemas'],
                           '#/components/schemas'))
    for path, item in document['paths'].items():
        for method in openapi.METHODS:
            body = item.get(method, {}).get('requestBody')
            if body:
                found.update(_integers(body, '%s %s' % (method, path)))
    # Steps come from the API's schemas: an integer or a string of digits.
    for where in ('#/components/schemas/Step/properties/priority/anyOf/0',
                  '#/components/schemas/DeployStep/properties/priority/'
                  'anyOf/0',
                  '#/components/schemas/RunbookStep/properties/order/'
                  'anyOf/0',
                  '#/components/schemas/VolumeTarget/properties/'
                  'boot_index'):
        assert found[where]['maximum'] == LARGEST, where
    unbounded = sorted(
        where for where, integer in found.items()
        if 'maximum' not in integer and
        where not in OPENAPI_BOUNDED_ELSEWHERE)
    assert unbounded == []


def test_a_number_past_a_float_is_refused(api, node):
    """``1e400`` is valid JSON, but Python reads it as infinity: the power
    timeout answered 500 (an infinite float has no integer)."""
    response = api.put('/v1/nodes/%s/states/power' % node,
                       raw=b'{"target": "power on", "timeout": 1e400}')
    assert response.status_code == 400, response.text
    assert error_of(response) == ('Request body is not valid JSON: number '
                                  '1e400 is out of range')
