"""Task graphs run on the in-memory site: the order rules.

The tasks run for real (the local task runner: a process per task, in
each node's directory) and write a journal; the order is read from it.
"""

from __future__ import annotations

from ironside.osc import report_text
from tests.unit.strategy import fuel_examples as fx
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.graph_site import before
from tests.unit.strategy.graph_site import group
from tests.unit.strategy.graph_site import node
from tests.unit.strategy.graph_site import overlap
from tests.unit.strategy.graph_site import spans
from tests.unit.strategy.graph_site import tasks_of
from tests.unit.strategy.test_runner_rules import RecordingLimit
from tests.unit.strategy.test_site_graph import CROSS_MENDED

USAGE = {'name': 'usage', 'document': fx.USAGE}


def test_spec_usage_example_order(graph_site):
    graph_site.add_roles(fx.USAGE_NODES)
    report = graph_site.run(USAGE)
    assert report['result'] == 'success'
    ran = graph_site.ran()
    # Every node ran setup_network, then setup_services.
    for name in ['node-%d' % i for i in range(1, 9)]:
        assert ran[name] == ['start setup_network', 'end setup_network',
                             'puppet /etc/puppet/manifests/controller.pp']
        assert tasks_of(report, name) == {'setup_network': 'success',
                                          'setup_services': 'success'}
    found = spans(graph_site.journal())
    controllers = ['node-2', 'node-3', 'node-4', 'node-5']
    # node-1 (primary-controller, one_by_one) first.
    assert before(found, ['node-1'], controllers)
    # Controllers two at a time (their waves take them in name order).
    assert overlap(found, 'node-2', 'node-3')
    assert overlap(found, 'node-4', 'node-5')
    assert before(found, ['node-2', 'node-3'], ['node-4', 'node-5'])
    # Network and cinder together, after the controllers.
    assert before(found, controllers, ['node-6', 'node-7'])
    assert overlap(found, 'node-6', 'node-7')
    # Compute after network (and the controllers).
    assert before(found, ['node-7'] + controllers, ['node-8'])


def test_report_and_text_show_the_tasks(graph_site):
    graph_site.add_roles(fx.USAGE_NODES)
    report = graph_site.run(USAGE)
    assert group(report, 'controller') == {
        'name': 'controller', 'critical': False,
        'depends_on': ['primary-controller'],
        'strategy': {'type': 'parallel', 'amount': 2},
        'nodes': ['node-2', 'node-3', 'node-4', 'node-5'],
        'prepare': {'result': 'success'}, 'deploy': {'result': 'success'},
        'tasks': {'result': 'success'}, 'kind': 'graph'}
    network = node(report, 'node-7')['tasks'][0]
    assert network['task'] == 'setup_network'
    assert network['status'] == 'success' and network['exit_status'] == 0
    assert network['duration'] >= 0.2
    assert report['warnings'] == [
        'group "primary-controller": no node has role "primar-controller"']
    text = report_text.text(report)
    assert text.startswith('''Start
|
| prepare primary-controller   <SUCCESS>
| deploy primary-controller    <SUCCESS>
| tasks primary-controller     <SUCCESS>
V
| prepare controller           <SUCCESS>''')
    assert '\n  controller: 4 nodes; prepare success; deploy success; tasks ' \
           'success\n' in text
    assert '\n  node-7  success\n          tasks: 2 of 2 done\n' in text
    assert '\nWarnings:\n  group "primary-controller": no node has role ' \
           '"primar-controller"\n' in text


def test_stages_are_sync_points(graph_site):
    graph_site.add_roles({'controller': ['c1', 'c2'], 'compute': ['k1']})
    graph = '''\
- id: controller
  type: group
  parameters: {strategy: {type: one_by_one}}
- id: compute
  type: group
  requires: [controller]
- id: configure
  type: shell
  groups: [controller, compute]
  parameters: {cmd: "step configure 0.1"}
- id: rsync_puppet
  type: shell
  role: '*'
  stage: pre_deployment
  parameters: {cmd: "step pre 0.1"}
- id: update_hosts
  type: shell
  role: '*'
  stage: post_deployment
  parameters: {cmd: "step post"}
'''
    report = graph_site.run(graph)
    assert report['result'] == 'success'
    journal = graph_site.journal()
    pre = [e.time for e in journal if e.what.endswith(' pre')]
    deployment = [e.time for e in journal if e.what.endswith('configure')]
    post = [e.time for e in journal if e.what.endswith(' post')]
    assert len(pre) == len(post) == len(deployment) == 6
    assert max(pre) < min(deployment) and max(deployment) < min(post)
    assert [g['name'] for g in report['groups']] == [
        'pre_deployment', 'controller', 'compute', 'post_deployment']
    assert group(report, 'pre_deployment')['kind'] == 'stage'
    # The nodes are deployed once, in the first stage they have work in.
    assert all(graph_site.nodes.requests_for(n) == ['manage', 'provide',
                                                   'deploy']
               for n in ('c1', 'c2', 'k1'))


def test_waves(graph_site):
    for index in range(6):
        graph_site.add('n%d' % index, roles=['one' if index < 2 else
                                              'two' if index < 5 else
                                              'all'])
    graph = '''\
- id: one
  type: group
  parameters: {strategy: {type: one_by_one}}
- id: two
  type: group
  requires: [one]
  parameters: {strategy: {type: parallel, amount: 2}}
- id: all
  type: group
  requires: [two]
- id: work
  type: shell
  groups: [one, two, all]
  parameters: {cmd: "step work 0.15"}
'''
    limit = RecordingLimit(100)
    report = graph_site.run(graph, limit=limit)
    assert report['result'] == 'success'
    found = spans(graph_site.journal())
    assert before(found, ['n0'], ['n1'])
    assert overlap(found, 'n2', 'n3')
    assert before(found, ['n2', 'n3'], ['n4'])
    assert before(found, ['n4'], ['n5'])
    assert limit.peak == 2


def test_fleet_cap_bounds_tasks_in_flight(graph_site):
    for index in range(6):
        graph_site.add('n%d' % index, roles=['all'])
    graph = ('- id: all\n  type: group\n'
             '- id: work\n  type: shell\n  groups: [all]\n'
             '  parameters: {cmd: "step work 0.1"}\n')
    limit = RecordingLimit(2)
    report = graph_site.run(graph, limit=limit)
    assert report['result'] == 'success'
    assert limit.peak == 2 and limit.used == 0
    running, peak = 0, 0
    for entry in graph_site.journal():
        running += 1 if entry.what.startswith('start') else -1
        peak = max(peak, running)
    assert peak <= 2


def test_cross_group_requirements_across_nodes(graph_site):
    graph_site.add_roles({'primary-controller': ['ctl'],
                          'compute': ['cmp1', 'cmp2']})
    graph_site.script('puppet', '#!/bin/sh\nrecord "$@"\nsleep 0.05\n')
    report = graph_site.run(CROSS_MENDED)
    assert report['result'] == 'success'
    journal = [(e.node, e.what.split()[-1].rsplit('/', 1)[-1])
               for e in graph_site.journal()]
    order = [what for _node, what in journal]
    assert order.index('site.pp') == 0
    steps = [(n, w) for n, w in journal]
    assert [n for n, _w in steps] [:2] == ['ctl', 'ctl']
    assert {n for n, _w in steps[2:4]} == {'cmp1', 'cmp2'}
    assert steps[4][0] == 'ctl'
    assert {g['name'] for g in report['groups']} == {'compute',
                                                     'primary-controller'}
    assert group(report, 'compute')['kind'] == 'role'


def test_strategy_groups_stay_serialised_beside_a_task_graph(graph_site):
    """Two strategy groups with no dependency between them still run one
    at a time; a task graph's group runs beside them."""
    graph_site.add('s1', tags=['first'])
    graph_site.add('s2', tags=['second'])
    graph_site.add('g1', roles=['third'])
    strategy = {
        'schema': 'ironside/DeploymentStrategy/v1',
        'metadata': {'name': 'two'},
        'data': {'groups': [
            {'name': name, 'critical': False, 'depends_on': [],
             'selectors': [{'node_tags': [name]}]}
            for name in ('first', 'second')]}}
    graph = ('- id: third\n  type: group\n'
             '- id: work\n  type: shell\n  role: "*"\n'
             '  parameters: {cmd: "step work 0.3"}\n')
    report = graph_site.run(strategy, graph)
    assert report['result'] == 'success'
    assert report['strategy'] == 'two, document 2'
    found = spans(graph_site.journal())
    assert before(found, ['s1'], ['s2'])
    assert overlap(found, 'g1', 's1')
    assert tasks_of(report, 's2') == {'work': 'success'}


def test_deploy_steps_of_the_graph_join_the_deploy(graph_site):
    graph_site.add('n1', roles=['all'])
    graph_site.add('n2', roles=['all'])
    graph_site.nodes.by_name('n2').provision_state = 'active'
    graph = '''\
- id: all
  type: group
- id: bios
  type: step
  groups: [all]
  parameters: {interface: bios, step: apply_configuration,
               args: {settings: []}, priority: 150}
- id: raid
  type: step
  groups: [all]
  requires: [bios]
  parameters: {interface: raid, step: create_configuration}
'''
    report = graph_site.run(graph)
    assert graph_site.nodes.by_name('n1').deploy_steps == [
        {'interface': 'bios', 'step': 'apply_configuration',
         'args': {'settings': []}, 'priority': 150},
        {'interface': 'raid', 'step': 'create_configuration'}]
    assert tasks_of(report, 'n1') == {'bios': 'success', 'raid': 'success'}
    # An active node is not redeployed: its steps are not needed.
    assert graph_site.nodes.requests_for('n2') == []
    assert tasks_of(report, 'n2') == {'bios': 'skipped', 'raid': 'skipped'}
    assert isinstance(graph_site.nodes, memory_nodes.MemoryNodes)
