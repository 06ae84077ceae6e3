"""A deploy over [conductor]max_concurrent_deploy: 503, as Ironic."""

from __future__ import annotations

from ironside.common import states
from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of


def test_api_answers_503_in_ironics_format(conf, api, available_node):
    busy = available_node(name='busy')
    utils.update_node(busy['uuid'], {'provision_state':
                                        states.DEPLOYING})
    node = available_node(name='other')
    conf.set('conductor', max_concurrent_deploy=1)
    response = api.put('/v1/nodes/%s/states/provision' % node['uuid'],
                       {'target': 'active'})
    assert response.status_code == 503
    assert 'concurrent action limit for provisioning' in error_of(response)
    assert nodes_db.get_node(node['uuid']).provision_state == states.AVAILABLE
