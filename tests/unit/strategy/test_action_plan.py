"""The plan of an action: nodes by role, tasks per node, role and stage
groups, what can not run."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy.plan import action_plan
from ironside.strategy.plan import build
from ironside.strategy.reader import action_input
from ironside.strategy.reader.action_input import ActionInput
from ironside.strategy.reader.action_input import RunOptions
from ironside.strategy.reader.action_input import TaskAccess
from tests.unit.strategy import fuel_examples as fx
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.conftest import SPEC_STRATEGY
from tests.unit.strategy.test_site_graph import CROSS_MENDED


def site(roles):
    nodes = memory_nodes.MemoryNodes()
    for role, names in roles.items():
        for name in names:
            nodes.add(name, roles=[role] if role else [])
    return nodes


def access(nodes):
    return TaskAccess.read({'nodes': {n.node.name: '10.0.0.%d' % i for i, n
                                      in enumerate(nodes.nodes.values())},
                            'private_key': 'key'})


def plan(nodes, *texts, options=RunOptions(), given_access=None):
    documents = action_input.parse_documents(
        [{'name': 'doc%d' % i, 'document': t}
         for i, t in enumerate(texts, 1)])
    return build.build_plan(ActionInput(
        tuple(documents), options,
        access(nodes) if given_access is None else given_access), nodes)


def by_name(built, mapping):
    return {built.node_names[u]: v for u, v in mapping.items()}


def groups(built):
    return {g.name: sorted(built.node_names[u]
                           for u in built.group_nodes[g.name])
            for g in built.groups}


def test_spec_usage_plan():
    nodes = site(fx.USAGE_NODES)
    built = plan(nodes, fx.USAGE)
    assert groups(built) == {
        'primary-controller': ['node-1'],
        'controller': ['node-2', 'node-3', 'node-4', 'node-5'],
        'cinder': ['node-6'], 'compute': ['node-8'], 'network': ['node-7']}
    assert by_name(built, built.node_tasks) == {
        'node-%d' % i: ['setup_network', 'setup_services']
        for i in range(1, 9)}
    # The spec's group lists role "primar-controller": no node has it.
    assert built.warnings == [
        'group "primary-controller": no node has role "primar-controller"']


def test_tasks_for_every_node_and_role_groups():
    nodes = site({'primary-controller': ['ctl'], 'compute': ['c1', 'c2'],
                  'storage': ['s1'], None: ['bare']})
    pre = ('- id: rsync_puppet\n  type: shell\n  role: "*"\n'
           '  stage: pre_deployment\n  parameters: {cmd: "true"}\n')
    built = plan(nodes, CROSS_MENDED, pre)
    assert [(g.name, g.kind, g.stage, g.after) for g in built.groups] == [
        ('pre_deployment', 'stage', 'pre_deployment', ()),
        ('compute', 'role', 'deployment', ('pre_deployment',)),
        ('primary-controller', 'role', 'deployment', ('pre_deployment',)),
        ('storage', 'role', 'deployment', ('pre_deployment',))]
    assert groups(built)['pre_deployment'] == ['c1', 'c2', 'ctl', 's1']
    assert by_name(built, built.node_tasks) == {
        'ctl': ['rsync_puppet', 'put_compute_into_maintenance_mode',
                'migrate_vms_from_compute', 'make_compute_available'],
        'c1': ['rsync_puppet', 'reinstall_ovs'],
        'c2': ['rsync_puppet', 'reinstall_ovs'],
        's1': ['rsync_puppet']}
    assert 'bare' not in built.node_names.values()


def test_strategy_groups_with_task_graph_tasks():
    nodes = memory_nodes.MemoryNodes()
    nodes.add('ntp01', tags=['ntp'])
    nodes.add('ctl01', rack='rack03', tags=['control'], roles=['controller'])
    tasks = ('- id: hosts\n  type: shell\n  role: "*"\n'
             '  parameters: {cmd: "true"}\n'
             '- id: keystone\n  type: shell\n  role: [controller]\n'
             '  parameters: {cmd: "true"}\n')
    built = plan(nodes, SPEC_STRATEGY, tasks)
    assert by_name(built, built.node_tasks) == {
        'ntp01': ['hosts'], 'ctl01': ['hosts', 'keystone']}
    assert all(g.serialised for g in built.groups)


def test_partial_run_options_select_tasks_and_nodes():
    nodes = site(fx.USAGE_NODES)
    built = plan(nodes, fx.USAGE, options=RunOptions(
        tasks=('setup_services',), nodes=('node-3', 'node-8')))
    assert by_name(built, built.node_tasks) == {
        'node-3': ['setup_services'], 'node-8': ['setup_services']}
    assert groups(built)['controller'] == ['node-3']
    assert groups(built)['cinder'] == []
    with pytest.raises(exception.InvalidParameterValue) as err:
        plan(nodes, fx.USAGE, options=RunOptions(nodes=('node-9',)))
    assert str(err.value) == \
        'Run option "nodes": node-9 not in any group of the plan'


def test_what_can_not_run_is_refused():
    nodes = site(fx.USAGE_NODES)
    half = TaskAccess.read({'nodes': {'node-1': '10.0.0.1'}})
    with pytest.raises(exception.InvalidPlan) as err:
        plan(nodes, fx.USAGE, given_access=half)
    assert str(err.value) == (
        'The site action can not run: no access (address, port, user) for '
        'nodes node-2, node-3, node-4, node-5, node-6, node-7, node-8, '
        'which have tasks to run')


def test_a_wait_that_never_ends_is_refused():
    """The cross-reference example, with the compute group waiting for
    the primary controller's: the controller's last task waits for the
    computes' reinstall_ovs, which waits for the controller's group."""
    nodes = site({'primary-controller': ['ctl'], 'compute': ['c1']})
    serial = ('- id: primary-controller\n  type: group\n'
              '- id: compute\n  type: group\n'
              '  requires: [primary-controller]\n')
    with pytest.raises(exception.InvalidPlan) as err:
        plan(nodes, CROSS_MENDED, serial)
    message = str(err.value)
    assert message.startswith('The site action can not run: these wait '
                              'for each other, so none would ever run: ')
    for step in ('task make_compute_available on ctl',
                 'end of group primary-controller',
                 'start of group compute', 'task reinstall_ovs on c1'):
        assert step in message


def test_snapshot_restores_the_same_plan():
    nodes = site(fx.USAGE_NODES)
    built = plan(nodes, fx.USAGE, options=RunOptions(start='setup_network'))
    restored = action_plan.ActionPlan.restore(
        built.snapshot(), built.group_nodes, built.node_names,
        built.node_tasks)
    assert restored.groups == built.groups
    assert restored.tasks.keys() == built.tasks.keys()
    assert restored.input.options == built.input.options
    assert restored.input.access.target('node-1').private_key == 'key'
    assert restored.warnings == built.warnings
