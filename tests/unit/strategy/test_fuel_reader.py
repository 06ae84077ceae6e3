"""Fuel task graphs read and checked one document at a time."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy.core import model
from ironside.strategy.core.selectors import Selector
from ironside.strategy.reader import fuel
from ironside.strategy.reader import graph_files
from tests.unit.strategy import fuel_examples as fx


def validated(text, name):
    """The errors and warnings of one file, as ``openstack site task
    validate`` finds them (:func:`.graph_files.validate`)."""
    found = graph_files.validate([(name, text)])
    return ([str(e.error) for e in found.errors],
            [str(w.error) for w in found.warnings])


def errors(text, name='tasks.yaml'):
    found, _warnings = validated(text, name)
    return found


def warnings(text, name='tasks.yaml'):
    found, warned = validated(text, name)
    assert found == []
    return warned


# The spec's examples, as written

@pytest.mark.parametrize('text', [fx.USAGE, fx.USAGE_GROUPS])
def test_usage_example_loads_clean(text):
    assert validated(text, 'usage') == ([], [])


def test_usage_tasks_alone_name_the_groups_they_need():
    assert warnings(fx.USAGE_TASKS, 'tasks') == [
        'document "tasks", task "setup_services", field "groups[%d]": is in '
        'group "%s", which this document does not define: the site design '
        'must define it before it runs (line 4)' % (index, group)
        for index, group in enumerate(['controller', 'primary-controller',
                                       'compute', 'network', 'cinder'])] + [
        'document "tasks", task "setup_network", field "groups[%d]": is in '
        'group "%s", which this document does not define: the site design '
        'must define it before it runs (line 12)' % (index, group)
        for index, group in enumerate(['controller', 'primary-controller',
                                       'compute', 'network', 'cinder'])]


def test_usage_example_model():
    graph = fuel.load(fx.USAGE, 'usage')
    assert graph.name == 'usage' and graph.schema is None
    assert [s.id for s in graph.stages] == ['deployment']
    controller = next(g for g in graph.groups if g.name == 'controller')
    assert controller.strategy == model.GroupStrategy('parallel', 2)
    assert controller.serialised is False
    primary = next(g for g in graph.groups if g.name == 'primary-controller')
    # The spec's typo is kept; the group's own name is a role too.
    assert primary.roles == ('primar-controller',)
    assert primary.selectors == (Selector(node_roles=frozenset(
        {'primar-controller', 'primary-controller'})),)
    assert primary.strategy.type == 'one_by_one'
    services = next(t for t in graph.tasks if t.id == 'setup_services')
    assert services.type == 'puppet' and services.stage is None
    assert services.parameters['puppet_manifests'] == \
        '/etc/puppet/manifests/controller.pp'
    # "deploy" is Fuel's name of the deployment stage.
    assert ('setup_services', 'required_for', 'deployment') in {
        (r.source, r.field, r.target) for r in graph.references}


def test_pre_post_example_loads_and_names_what_it_leaves_open():
    assert warnings(fx.PRE_POST, 'pre-post') == [
        'document "pre-post", task "update_hosts", field "requires[0]": '
        'requires "upload_nodes_info", which this document does not '
        'define: the site design must define it before it runs (line 5)']
    graph = fuel.load(fx.PRE_POST)
    update_hosts, rsync_puppet = graph.tasks
    assert update_hosts.roles == ('*',)
    assert update_hosts.stage == 'post_deployment'
    assert update_hosts.parameters['puppet_modules'] == \
        '/etc/puppet/modules 16'
    assert rsync_puppet.stage == 'pre_deployment'
    assert rsync_puppet.parameters['src'] == '/etc/pupppet/{VERSION}'


def test_cross_reference_example_loads_as_an_outline():
    assert warnings(fx.CROSS_REFERENCE, 'cross') == [
        'document "cross", task "migrate_vms_from_compute", field '
        '"requires[0]": requires "put_vm_into_maintenance_mode", which '
        'this document does not define: the site design must define it '
        'before it runs (line 7)',
        'document "cross", task "reinstall_ovs", field "requires[0]": '
        'requires "put_vm_into_maintenance_mode", which this document '
        'does not define: the site design must define it before it runs '
        '(line 11)',
        'document "cross", task "make_compute_available": no type: an '
        'outline of a task, which can not run until it has one (line 12)',
        'document "cross", task "make_compute_available", field '
        '"requires[0]": requires "reinstall_vs", which this document '
        'does not define: the site design must define it before it runs '
        '(line 14)']


def test_design_document_form():
    text = '''\
schema: ironside/TaskGraph/v1
metadata:
  name: site-tasks
data:
  tasks:
''' + '\n'.join('    ' + line for line in fx.USAGE.splitlines())
    graph = fuel.load(text, 'ignored')
    assert graph.name == 'site-tasks'
    assert graph.schema == fuel.SCHEMA
    assert len(graph.tasks) == 2 and len(graph.groups) == 5
    assert graph.paths['controller'] == ('data', 'tasks', 2)


# Errors: document, task or group, field, line

def test_unknown_task_type_is_an_error():
    assert errors('- id: a\n  type: reboot\n  role: "*"\n') == [
        'document "tasks.yaml", task "a", field "type": unknown task type '
        '"reboot" (known: shell, upload_file, rsync, puppet, step, '
        'skipped) (line 2)']


def test_schema_errors_name_the_field_and_line():
    text = '''\
- id: net
  type: shell
  groups: controller
  parameters:
    timeout: 10
  colour: blue
- id: controller
  type: group
  parameters:
    strategy:
      type: one_by_one
      amount: 2
'''
    assert errors(text) == [
        'document "tasks.yaml", task "net", field "groups": must be a list,'
        ' not "controller" (line 3)',
        'document "tasks.yaml", task "net", field "parameters.cmd": '
        'missing required field (line 4)',
        'document "tasks.yaml", task "net", field "colour": unknown field '
        '(line 6)',
        'document "tasks.yaml", group "controller", field '
        '"parameters.strategy.amount": amount is only allowed with type '
        'parallel (line 12)']


def test_parameters_of_each_type_are_checked():
    text = '''\
- id: put
  type: upload_file
  role: "*"
  parameters: {path: etc/hosts, data: x}
- id: bios
  type: step
  role: "*"
  parameters: {interface: bios, priority: -1}
- id: everywhere
  type: shell
  role: all
  parameters: {cmd: "true"}
'''
    assert errors(text) == [
        'document "tasks.yaml", task "put", field "parameters.path": must '
        'be an absolute path, not "etc/hosts" (line 4)',
        'document "tasks.yaml", task "bios", field "parameters.step": '
        'missing required field (line 8)',
        'document "tasks.yaml", task "bios", field "parameters.priority": '
        'must be at least 0, not -1 (line 8)',
        'document "tasks.yaml", task "everywhere", field "role": must be a '
        'list of roles, or "*" for every node (line 11)']


def test_duplicates_reserved_names_and_wrong_kinds():
    text = '''\
- id: a
  type: shell
  groups: [b]
  parameters: {cmd: "true"}
- id: b
  type: shell
  parameters: {cmd: "true"}
- id: a
  type: stage
- id: post_deployment
  type: skipped
- id: g
  type: group
  tasks: [g]
'''
    assert errors(text) == [
        'document "tasks.yaml", task "a", field "groups[0]": "b" is a task, '
        'not a group (line 3)',
        'document "tasks.yaml", task "a", field "id": duplicate id; item #1 '
        'has it too (line 8)',
        'document "tasks.yaml", task "post_deployment", field "id": '
        '"post_deployment" is the name of a stage (line 10)',
        'document "tasks.yaml", group "g", field "tasks[0]": "g" is a '
        'group, not a task (line 14)']


def test_a_cycle_is_named_where_it_closes():
    text = '''\
- id: a
  type: shell
  role: "*"
  requires: [c]
  parameters: {cmd: "true"}
- id: b
  type: shell
  role: "*"
  requires: [a]
  parameters: {cmd: "true"}
- id: c
  type: skipped
  required_for: []
  requires: [b]
'''
    assert errors(text) == [
        'document "tasks.yaml", task "a", field "requires[0]": dependency '
        'cycle: a -> b -> c -> a (line 4)']


def test_a_task_can_not_come_before_its_own_stage():
    text = '''\
- id: late
  type: shell
  role: "*"
  stage: post_deployment
  required_for: [pre_deployment]
  parameters: {cmd: "true"}
'''
    found = errors(text)
    assert len(found) == 1
    assert found[0].startswith('document "tasks.yaml", task "late", field '
                               '"required_for[0]": dependency cycle: ')
    assert 'late' in found[0] and 'pre_deployment' in found[0]


def load_errors(text, name='tasks.yaml'):
    with pytest.raises(exception.InvalidTaskGraph) as err:
        fuel.load(text, name)
    return [str(e) for e in err.value.errors]


def test_not_a_task_graph():
    # graph_files refuses a document no kind recognises before the
    # reader checks it; the reader's own errors show where it loads.
    assert load_errors('{a: 1}') == [
        'document "tasks.yaml", field "schema": missing required field '
        '(line 1)',
        'document "tasks.yaml", field "metadata": missing required field '
        '(line 1)',
        'document "tasks.yaml", field "data": missing required field '
        '(line 1)',
        'document "tasks.yaml", field "a": unknown field (line 1)']
    assert load_errors('just text') == [
        'document "tasks.yaml": a task graph is a list of tasks, or a '
        'document with schema ironside/TaskGraph/v1 (line 1)']
    assert load_errors('- [') == [
        'document "tasks.yaml": not valid YAML or JSON: expected the node '
        'content, but found \'<stream end>\' (line 1)']


def test_load_raises_with_every_error():
    with pytest.raises(exception.InvalidTaskGraph) as err:
        fuel.load('- id: a\n  type: nope\n- id: a\n  type: stage\n')
    assert len(err.value.errors) == 2
    assert err.value.code == 400


def test_a_task_type_that_is_not_a_string_is_a_schema_error():
    """A list or mapping as ``type`` was looked up as a parameter
    validator key, and so raised TypeError (unhashable) instead of
    being reported."""
    found = errors('- id: a\n  type: [shell]\n  role: "*"\n'
                   '  parameters: {cmd: "true"}\n')
    assert found and all('field "type"' in e for e in found), found
