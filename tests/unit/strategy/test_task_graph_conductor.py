"""A task graph against Ironside's conductor, on fake hardware: the
graph's deploy steps run in the nodes' deploys, its commands after."""

from __future__ import annotations

from ironside.common import states
from ironside.db import nodes as nodes_db
from ironside.db import site as site_db
from ironside.strategy import actions
from ironside.strategy.nodes import conductor as conductor_nodes
from ironside.strategy.run import runner
from tests import utils
from tests.unit.strategy.graph_site import node
from tests.unit.strategy.graph_site import tasks_of
from tests.unit.strategy.memory_limit import InFlightLimit

GRAPH = '''\
- id: all
  type: group
- id: bios
  type: step
  groups: [all]
  parameters:
    interface: bios
    step: apply_configuration
    args: {settings: [{name: HyperThreading, value: "off"}]}
    priority: 150
- id: motd
  type: shell
  groups: [all]
  requires: [bios]
  parameters: {cmd: "record motd"}
'''


def test_deploy_steps_and_commands_on_fake_hardware(graph_site, rpc,
                                                    context):
    uuids = {name: rpc.create_node(context, utils.fake_node_values(
        name=name, extra={'roles': ['all']})) for name in ('fh-1', 'fh-2')}
    nodes = conductor_nodes.ConductorNodes(rpc)
    bad = GRAPH.replace('apply_configuration', 'no_such_step')
    row = actions.create_action(
        nodes, 'deploy_site', documents=[GRAPH],
        access={'nodes': {'fh-1': '127.0.0.1', 'fh-2': '127.0.0.1'}})
    assert site_db.claim_action(row.id, 'test-host', None, None)
    assert runner.ActionRunner(row.uuid, 'test-host', nodes,
                               InFlightLimit(10),
                               tasks=graph_site.execution).run()
    report = actions.action_report(row.uuid)
    assert report['result'] == 'success'
    for name, uuid in uuids.items():
        found = nodes_db.get_node(uuid)
        assert found.provision_state == states.ACTIVE
        assert found.driver_internal_info['bios_settings'] == {
            'HyperThreading': 'off'}
        assert tasks_of(report, name) == {'bios': 'success',
                                          'motd': 'success'}
    assert graph_site.ran() == {'fh-1': ['motd'], 'fh-2': ['motd']}
    # A step the nodes do not have is refused by the conductor when the
    # deploy is asked for: the node fails, naming it; nothing runs on it.
    fresh = rpc.create_node(context, utils.fake_node_values(
        name='fh-3', extra={'roles': ['all']}))
    row = actions.create_action(
        nodes, 'deploy_site', documents=[bad],
        access={'nodes': {'fh-3': '127.0.0.1'}},
        parameters={'nodes': ['fh-3']})
    assert site_db.claim_action(row.id, 'test-host', None, None)
    assert runner.ActionRunner(row.uuid, 'test-host', nodes,
                               InFlightLimit(10),
                               tasks=graph_site.execution).run()
    report = actions.action_report(row.uuid)
    assert 'bios.no_such_step' in node(report, 'fh-3')['reason']
    assert tasks_of(report, 'fh-3') == {'bios': 'not run',
                                        'motd': 'not run'}
    assert nodes_db.get_node(fresh).provision_state == states.AVAILABLE
