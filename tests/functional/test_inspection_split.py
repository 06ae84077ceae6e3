"""Inspection rules through the real CLI, with the API and a conductor in
separate processes over RabbitMQ, on PostgreSQL and on MariaDB: the rule
is stored by the API process and applied by the conductor's inspection."""

from __future__ import annotations

import json

import pytest

from tests.functional.fixtures import services

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]


def test_rules_apply_when_a_conductor_inspects(split, tmp_path):
    split.start_conductor('conductor-a')
    api = split.start_api()
    actions = [{'op': 'set-attribute',
                'args': {'path': '/extra/memory',
                         'value': '{inventory[memory][physical_mb]}'}},
               {'op': 'add-trait', 'args': {'name': 'CUSTOM_INSPECTED'}}]
    rule = api.cli('inspection', 'rule', 'create', '--priority', '10',
                   '--actions', json.dumps(actions), '-f', 'json')
    failing = api.cli('inspection', 'rule', 'create', '--conditions',
                      json.dumps([{'op': 'eq', 'args': {'values': [
                          '{node.name}', 'doomed']}}]),
                      '--actions', json.dumps([{'op': 'fail', 'args': {
                          'msg': 'not this one'}}]), '-f', 'json')
    for name in ('kept', 'doomed'):
        api.cli('node', 'create', '--driver', 'fake-hardware', '--name',
                name, '--property', 'memory_mb=2048')
        api.cli('node', 'manage', name, '--wait', '60')
    api.cli('node', 'inspect', 'kept', '--wait', '60')
    kept = api.cli('node', 'show', 'kept', '-f', 'json')
    assert kept['extra'] == {'memory': '2048'}
    assert kept['provision_state'] == 'manageable'
    assert 'CUSTOM_INSPECTED' in json.dumps(
        api.cli('node', 'trait', 'list', 'kept', '-f', 'json'))
    saved = tmp_path / 'kept.json'
    api.cli('node', 'inventory', 'save', 'kept', '--file', str(saved))
    assert json.loads(saved.read_text())['inventory']['memory'] == {
        'physical_mb': 2048}
    api.cli('node', 'inspect', 'doomed', '--wait', '60', check=False)
    doomed = api.cli('node', 'show', 'doomed', '-f', 'json')
    assert doomed['provision_state'] == 'inspect failed'
    assert 'not this one' in doomed['last_error']
    assert doomed['failure_reason'] == 'InspectionFailed'
    api.cli('inspection', 'rule', 'delete', rule['uuid'], failing['uuid'])
