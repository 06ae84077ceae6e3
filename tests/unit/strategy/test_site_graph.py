"""An action's documents as one graph: references settled, groups merged,
partial runs selected."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy.designs import graph as site_graph
from ironside.strategy.reader import action_input
from ironside.strategy.reader.action_input import RunOptions
from tests.unit.strategy import fuel_examples as fx
from tests.unit.strategy.conftest import SPEC_STRATEGY

# The cross-reference example with its typos mended and a type given.
CROSS_MENDED = fx.CROSS_REFERENCE \
    .replace('put_vm_into_maintenance_mode',
             'put_compute_into_maintenance_mode') \
    .replace('reinstall_vs', 'reinstall_ovs') \
    .replace('- id: make_compute_available\n',
             '- id: make_compute_available\n  type: puppet\n')


def graph(*texts):
    return site_graph.build(action_input.parse_documents(
        [{'name': 'doc%d' % i, 'document': text}
         for i, text in enumerate(texts, 1)]))


def graph_errors(*texts):
    with pytest.raises(exception.InvalidTaskGraph) as err:
        graph(*texts)
    return [str(e) for e in err.value.errors]


def test_usage_example_as_one_graph():
    usage = graph(fx.USAGE)
    assert list(usage.tasks) == ['setup_network', 'setup_services']
    assert usage.stages == ['pre_deployment', 'deployment',
                            'post_deployment']
    assert usage.groups['compute'].depends_on == ('controller', 'network')
    assert usage.members['cinder'] == ['setup_network', 'setup_services']
    assert usage.tasks['setup_services'].needs_tasks == ('setup_network',)


def test_groups_and_tasks_in_separate_documents():
    split = graph(fx.USAGE_TASKS, fx.USAGE_GROUPS)
    assert split.members == graph(fx.USAGE).members


def test_unresolved_references_are_errors_when_the_graph_runs():
    assert graph_errors(fx.PRE_POST) == [
        'document "doc1", task "update_hosts", field "requires[0]": '
        'requires "upload_nodes_info", which no document of the action '
        'defines (line 5)']
    assert graph_errors(fx.CROSS_REFERENCE) == [
        'document "doc1", task "migrate_vms_from_compute", field '
        '"requires[0]": requires "put_vm_into_maintenance_mode", which no '
        'document of the action defines (line 7)',
        'document "doc1", task "reinstall_ovs", field "requires[0]": '
        'requires "put_vm_into_maintenance_mode", which no document of the '
        'action defines (line 11)',
        'document "doc1", task "make_compute_available": no type: give the '
        'task one to run it (line 12)',
        'document "doc1", task "make_compute_available", field '
        '"requires[0]": requires "reinstall_vs", which no document of the '
        'action defines (line 14)']


def test_another_document_settles_a_reference():
    upload = ('- id: upload_nodes_info\n  type: upload_file\n  role: "*"\n'
              '  stage: post_deployment\n'
              '  parameters: {path: /etc/nodes.yaml, data: "nodes"}\n')
    both = graph(fx.PRE_POST, upload)
    assert list(both.tasks) == ['rsync_puppet', 'upload_nodes_info',
                                'update_hosts']
    assert both.tasks['update_hosts'].needs_tasks == ('upload_nodes_info',)


def test_cross_reference_example_mended():
    cross = graph(CROSS_MENDED)
    assert list(cross.tasks) == [
        'put_compute_into_maintenance_mode', 'migrate_vms_from_compute',
        'reinstall_ovs', 'make_compute_available']
    assert cross.tasks['reinstall_ovs'].needs_tasks == (
        'put_compute_into_maintenance_mode', 'migrate_vms_from_compute')


def test_strategy_and_task_graph_groups_merge():
    groups = '''\
- id: control-nodes
  type: group
  role: [controller]
  parameters: {strategy: {type: parallel, amount: 2}}
- id: extra
  type: group
  requires: [control-nodes]
- id: configure
  type: shell
  groups: [control-nodes, extra]
  parameters: {cmd: "true"}
'''
    merged = graph(SPEC_STRATEGY, groups)
    control = merged.groups['control-nodes']
    assert control.serialised and control.critical
    assert control.depends_on == ('ntp-node',)
    assert control.roles == ('controller',)
    assert control.strategy.amount == 2
    assert control.success_criteria.minimum_successful_nodes == 3
    # Its nodes: the strategy's selectors, and the nodes with its roles.
    assert control.selectors[-1].node_roles == {'controller',
                                                'control-nodes'}
    assert len(control.selectors) == 2
    assert merged.groups['extra'].serialised is False
    assert merged.groups['extra'].depends_on == ('control-nodes',)
    assert merged.members['control-nodes'] == ['configure']


def test_conflicts_between_documents():
    group = '- id: g\n  type: group\n'
    task = '- id: t\n  type: skipped\n  role: "*"\n'
    assert graph_errors(group + task, group, task, '- id: g\n  type: '
                        'skipped\n') == [
        'document "doc2", group "g", field "id": group "g" is defined in '
        'document "doc1" too (line 1)',
        'document "doc3", task "t", field "id": task "t" is defined in '
        'document "doc1" too (line 1)',
        'document "doc4", task "g", field "id": "g" is a task here and a '
        'group elsewhere (line 1)']
    strategy = SPEC_STRATEGY
    waves = ('- id: ntp-node\n  type: group\n  parameters:\n    strategy: '
             '{type: one_by_one}\n')
    # The strategy gives no waves to ntp-node: the graph may.
    assert graph(strategy, waves).groups['ntp-node'].strategy.type == \
        'one_by_one'


def test_a_cycle_across_documents():
    first = '- id: a\n  type: skipped\n  role: "*"\n  requires: [b]\n'
    second = '- id: b\n  type: skipped\n  role: "*"\n  requires: [a]\n'
    assert graph_errors(first, second) == [
        'document "doc1", task "a", field "requires[0]": dependency cycle: '
        'a -> b -> a (line 4)']


# Partial runs

def selected(text, **options):
    return graph(text).select(RunOptions(**options))


PIPELINE = '''\
- id: hiera
  type: shell
  role: "*"
  stage: pre_deployment
  parameters: {cmd: "true"}
- id: netconfig
  type: shell
  role: "*"
  parameters: {cmd: "true"}
- id: database
  type: shell
  role: "*"
  requires: [netconfig]
  parameters: {cmd: "true"}
- id: galera
  type: shell
  role: "*"
  requires: [database]
  parameters: {cmd: "true"}
- id: keystone
  type: shell
  role: "*"
  requires: [netconfig]
  parameters: {cmd: "true"}
- id: hosts
  type: shell
  role: "*"
  stage: post_deployment
  parameters: {cmd: "true"}
- id: disabled
  type: shell
  role: "*"
  condition: false
  parameters: {cmd: "true"}
'''


def test_start_and_end_walk_the_graph():
    # Graph order: what a task requires comes first; ties go in document
    # order.
    assert selected(PIPELINE) == ['hiera', 'netconfig', 'database',
                                  'galera', 'keystone', 'hosts']
    assert selected(PIPELINE, start='database') == ['database', 'galera',
                                                    'hosts']
    assert selected(PIPELINE, end='galera') == ['hiera', 'netconfig',
                                                'database', 'galera']
    assert selected(PIPELINE, start='netconfig', end='galera') == [
        'netconfig', 'database', 'galera']
    assert selected(PIPELINE, end='pre_deployment') == ['hiera']
    assert selected(PIPELINE, start='post_deployment') == ['hosts']
    assert selected(PIPELINE, start='deploy', end='deploy') == [
        'netconfig', 'database', 'galera', 'keystone']


def test_only_and_skip():
    assert selected(PIPELINE, tasks=('galera', 'hiera')) == ['hiera',
                                                              'galera']
    assert selected(PIPELINE, skip=('netconfig', 'hosts')) == [
        'hiera', 'database', 'galera', 'keystone']
    assert selected(PIPELINE, start='netconfig', skip=('keystone',)) == [
        'netconfig', 'database', 'galera', 'hosts']


def test_start_at_a_group_brings_its_tasks_and_later_stages():
    usage = graph(fx.USAGE)
    assert usage.select(RunOptions(start='network')) == [
        'setup_network', 'setup_services']
    assert usage.select(RunOptions(end='primary-controller')) == [
        'setup_network', 'setup_services']


@pytest.mark.parametrize('options, message', [
    ({'tasks': ('nope',)}, 'Run option "tasks": no task, group or stage is '
                           'named "nope"'),
    ({'start': 'nope'}, 'Run option "start": no task, group or stage is '
                        'named "nope"'),
    ({'skip': ('post_deployment',)}, 'Run option "skip": '
                                     '"post_deployment" is a stage; name '
                                     'tasks'),
])
def test_bad_run_options(options, message):
    with pytest.raises(exception.InvalidParameterValue) as err:
        selected(PIPELINE, **options)
    assert str(err.value) == message
