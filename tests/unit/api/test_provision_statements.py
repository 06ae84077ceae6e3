"""A provision verb reads the node once on its way to the conductor."""

from __future__ import annotations

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.db.test_hot_path import statements

ROUTE_READ = 'SELECT nodes.uuid, nodes.driver, nodes.conductor_group'


def test_the_verb_hands_its_node_to_the_rpc_api(api, create_node):
    node = create_node(name='routed')
    for ident in (node['uuid'], 'routed'):
        utils.update_node(node['uuid'], {'provision_state': 'enroll'})
        with statements() as sent:
            response = api.put('/v1/nodes/%s/states/provision' % ident,
                               {'target': 'manage'})
        assert response.status_code == 202, response.text
        assert not [s for s in sent if s.startswith(ROUTE_READ)]
        utils.wait_for(
            lambda: nodes_db.get_node(node['uuid']).provision_state
            == 'manageable' and not nodes_db.get_node(
                node['uuid']).reservation,
            what='node to be manageable')
