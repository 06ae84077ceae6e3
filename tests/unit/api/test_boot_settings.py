"""PUT /v1/nodes/{node}/states/boot_mode and /secure_boot (API 1.76)."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of
from tests.utils import wait_for


def _path(node, what):
    return '/v1/nodes/%s/states/%s' % (node['uuid'], what)


def _node(node):
    return nodes_db.get_node(node['uuid'])


def test_boot_mode_is_changed_by_the_conductor(api, create_node):
    node = create_node()
    response = api.put(_path(node, 'boot_mode'), {'target': 'bios'})
    assert response.status_code == 202
    assert response.content == b''
    assert response.headers['location'].endswith(
        '/v1/nodes/%s/states' % node['uuid'])
    wait_for(lambda: _node(node).boot_mode == 'bios')
    assert _node(node).driver_internal_info['fake_boot_mode'] == 'bios'
    assert api.put(_path(node, 'boot_mode'),
                   {'target': 'uefi'}).status_code == 202
    wait_for(lambda: _node(node).boot_mode == 'uefi')
    states = api.get('/v1/nodes/%s/states' % node['uuid']).json
    assert states['boot_mode'] == 'uefi'
    assert states['last_error'] is None


def test_secure_boot_is_changed_by_the_conductor(api, create_node):
    node = create_node()
    response = api.put(_path(node, 'secure_boot'), {'target': True})
    assert response.status_code == 202
    wait_for(lambda: _node(node).secure_boot is True)
    assert api.put(_path(node, 'secure_boot'),
                   {'target': 'false'}).status_code == 202
    wait_for(lambda: _node(node).secure_boot is False)
    assert api.get('/v1/nodes/%s' % node['uuid']).json[
        'secure_boot'] is False


@pytest.mark.parametrize('what', ['boot_mode', 'secure_boot'])
def test_not_found_below_1_76(api, create_node, what):
    node = create_node()
    target = 'uefi' if what == 'boot_mode' else True
    response = api.put(_path(node, what), {'target': target},
                       version='1.75')
    assert response.status_code == 404


@pytest.mark.parametrize('what, body, message', [
    ('boot_mode', {'target': 'legacy'},
     'Invalid boot mode legacy requested for node.'),
    ('boot_mode', {}, 'Missing mandatory parameter: target'),
    ('boot_mode', {'target': 'uefi', 'now': 1}, 'Unexpected arguments: now'),
    ('secure_boot', {'target': 'maybe'}, 'maybe'),
    ('secure_boot', {}, 'Missing mandatory parameter: target'),
])
def test_bad_requests_are_400(api, create_node, what, body, message):
    node = create_node()
    response = api.put(_path(node, what), body)
    assert response.status_code == 400
    assert message in error_of(response)


@pytest.mark.parametrize('what, target', [('boot_mode', 'bios'),
                                          ('secure_boot', True)])
def test_refused_while_the_node_is_transitioning(api, create_node, what,
                                                 target):
    node = create_node()
    utils.update_node(node['uuid'], {'provision_state': 'cleaning'})
    response = api.put(_path(node, what), {'target': target})
    assert response.status_code == 409
    assert 'is in state cleaning' in error_of(response)
    assert _node(node).boot_mode is None


@pytest.mark.parametrize('what, target', [('boot_mode', 'bios'),
                                          ('secure_boot', True)])
def test_locked_node_is_409(api, create_node, what, target):
    node = create_node()
    utils.update_node(node['uuid'], {'reservation': 'other-host'})
    response = api.put(_path(node, what), {'target': target})
    assert response.status_code == 409
    assert 'is locked by host other-host' in error_of(response)


def test_unknown_node_is_404(api):
    response = api.put('/v1/nodes/no-such-node/states/boot_mode',
                       {'target': 'uefi'})
    assert response.status_code == 404
