"""Servicing (API 1.87): service steps on a deployed node, through the
API and an in-process conductor with fake hardware."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests.unit.api.conftest import error_of
from tests.utils import wait_for

BOOT_MODE = {'interface': 'management', 'step': 'apply_boot_mode',
             'args': {'mode': 'uefi'}}


def _provision(api, node, body, **kwargs):
    return api.put('/v1/nodes/%s/states/provision' % node['uuid'], body,
                   **kwargs)


def _state(node):
    return nodes_db.get_node(node['uuid']).provision_state


@pytest.fixture
def active_node(api, available_node):
    def _make(**values):
        node = available_node(**values)
        assert _provision(api, node, {'target': 'active'}).status_code == 202
        wait_for(lambda: _state(node) == 'active')
        return node
    return _make


def test_service_step_runs_and_the_node_is_active_again(api, active_node):
    node = active_node()
    response = _provision(api, node, {'target': 'service',
                                      'service_steps': [BOOT_MODE]})
    assert response.status_code == 202, response.text
    wait_for(lambda: _state(node) == 'active' and
             nodes_db.get_node(node['uuid']).driver_internal_info.get(
                 'fake_boot_mode') == 'uefi')
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['last_error'] is None
    history = api.get('/v1/nodes/%s/history' % node['uuid']).json
    assert any('Service step management.apply_boot_mode started' in
               entry['event'] for entry in history['history'])


def test_a_failed_service_step_is_named_and_abort_returns_to_active(
        api, active_node):
    node = active_node(driver_info={
        'fake_fail_steps': ['management.apply_boot_mode']})
    assert _provision(api, node, {'target': 'service',
                                  'service_steps': [BOOT_MODE]}
                      ).status_code == 202
    wait_for(lambda: _state(node) == 'service failed')
    shown = api.get('/v1/nodes/%s' % node['uuid']).json
    assert shown['service_step']['step'] == 'apply_boot_mode'
    assert 'management.apply_boot_mode' in shown['last_error']
    assert shown['maintenance'] is False
    assert _provision(api, node, {'target': 'abort'}).status_code == 202
    wait_for(lambda: _state(node) == 'active')


def test_service_requests_that_are_refused(api, active_node,
                                            available_node):
    node = active_node()
    response = _provision(api, node, {'target': 'service'})
    assert response.status_code == 400
    assert error_of(response) == ('"service_steps" is required when '
                                  'setting target provision state to '
                                  'service')
    response = _provision(api, node, {'target': 'service',
                                      'service_steps': [BOOT_MODE]},
                          version='1.86')
    assert response.status_code in (400, 406)
    response = _provision(api, node, {'target': 'service', 'service_steps': [
        {'interface': 'management', 'step': 'wipe_local_storage'}]})
    assert response.status_code == 400
    assert 'has no service step management.wipe_local_storage' in \
        error_of(response)
    response = _provision(api, node, {'target': 'service', 'service_steps': [
        {'interface': 'management', 'step': 'apply_boot_mode'}]})
    assert response.status_code == 400
    assert 'mode' in error_of(response)
    idle = available_node()
    response = _provision(api, idle, {'target': 'service',
                                      'service_steps': [BOOT_MODE]})
    assert response.status_code == 400
    assert _state(idle) == 'available'
