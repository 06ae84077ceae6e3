"""Protected nodes (1.48): Ironic's rules for setting and honouring it."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of


def _patch(api, uuid, *operations):
    return api.patch('/v1/nodes/%s' % uuid, [
        {'op': 'replace', 'path': path, 'value': value}
        for path, value in operations])


@pytest.fixture
def active_node(create_node):
    def _make(**values):
        uuid = create_node()['uuid']
        utils.update_node(uuid, dict({'provision_state': 'active'},
                                     **values))
        return uuid
    return _make


@pytest.mark.parametrize('state', ['enroll', 'manageable', 'available',
                                   'deploy failed'])
def test_protected_only_in_active_or_rescue(api, create_node, state):
    uuid = create_node()['uuid']
    utils.update_node(uuid, {'provision_state': state})
    response = _patch(api, uuid, ('/protected', True))
    assert response.status_code == 409
    assert error_of(response) == (
        "Node %s can only be made protected in provision states 'active' "
        "or 'rescue', the current state is '%s'" % (uuid, state))
    assert nodes_db.get_node(uuid).protected is False


@pytest.mark.parametrize('state', ['active', 'rescue'])
def test_protected_with_reason_then_cleared(api, active_node, state):
    uuid = active_node(provision_state=state)
    response = _patch(api, uuid, ('/protected', True),
                      ('/protected_reason', 'keep it'))
    assert response.status_code == 200, response.text
    assert (response.json['protected'],
            response.json['protected_reason']) == (True, 'keep it')
    response = _patch(api, uuid, ('/protected', False))
    assert response.status_code == 200, response.text
    assert (response.json['protected'],
            response.json['protected_reason']) == (False, None)


def test_protected_reason_without_protected_is_400(api, active_node):
    uuid = active_node()
    response = _patch(api, uuid, ('/protected_reason', 'why'))
    assert response.status_code == 400
    assert error_of(response) == (
        'The protected_reason field can only be set when protected is True')
    assert nodes_db.get_node(uuid).protected_reason is None


@pytest.mark.parametrize('target', ['deleted', 'undeploy', 'rebuild'])
def test_protected_node_is_not_undeployed_or_rebuilt(api, active_node,
                                                     target):
    uuid = active_node(protected=True)
    response = api.put('/v1/nodes/%s/states/provision' % uuid,
                       {'target': target})
    assert response.status_code == 403
    assert error_of(response) == (
        'Node %s is protected and cannot be undeployed, rebuilt or deleted'
        % uuid)
    node = nodes_db.get_node(uuid)
    assert (node.provision_state, node.target_provision_state) == \
        ('active', None)


def test_protected_node_is_not_deleted(api, create_node):
    uuid = create_node()['uuid']
    # A protected node is active, but may be in maintenance: the check
    # comes before the state's.
    utils.update_node(uuid, {'protected': True})
    response = api.delete('/v1/nodes/%s' % uuid)
    assert response.status_code == 403
    assert error_of(response) == (
        'Node %s is protected and cannot be undeployed, rebuilt or deleted'
        % uuid)
    assert api.get('/v1/nodes/%s' % uuid).status_code == 200
