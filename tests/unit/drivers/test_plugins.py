"""Step plugins: interfaces from other packages, loaded by entry point."""

from __future__ import annotations

from ironside.common import states
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from ironside.drivers import factory
from tests import utils
from tests.utils import wait_for


def test_example_plugin_is_loaded_through_its_entry_point(conductor):
    drivers = factory.get_factory()
    assert 'example-fake' in drivers.supported_interfaces('fake-hardware',
                                                          'deploy')
    assert drivers.default_interface('fake-hardware', 'deploy') == 'fake'


def test_plugin_step_runs_in_priority_order(rpc, context, make_node):
    node = make_node(deploy_interface='example-fake')
    utils.update_node(node.id, {'provision_state': states.AVAILABLE})
    rpc.do_node_deploy(context, node.uuid, deploy_steps=[
        {'interface': 'deploy', 'step': 'write_motd', 'priority': 70,
         'args': {'message': 'hello'}}])
    wait_for(lambda: nodes_db.get_node(node.id).provision_state ==
             states.ACTIVE)
    node = nodes_db.get_node(node.id)
    assert node.extra['motd'] == 'hello'
    started = [h.event for h in history_db.list_for_node(node.id)
               if h.event.endswith(' started')]
    assert started == ['Deploy step deploy.deploy started',
                       'Deploy step deploy.write_image started',
                       'Deploy step deploy.write_motd started',
                       'Deploy step deploy.prepare_instance_boot started',
                       'Deploy step deploy.boot_instance started']
