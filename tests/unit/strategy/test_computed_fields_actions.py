"""Computed fields in site actions: a design's task graph with yaql_exp
fields, deployed once and then updated, runs only what changed.

The site: three controllers and two computes (the in-memory twin, each
node's tasks run by the local runner and recorded in a journal), and the
example's task graph (``examples/site/computed-tasks.yaml``): the tasks
the spec names for a controller addition, cluster, database and rabbitmq
on the controllers, the compute role's task on the computes.
"""

from __future__ import annotations

import pathlib
import textwrap

import pytest
import yaml

from ironside.common import exception
from ironside.db import site as site_db
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy.designs import store
from ironside.strategy.run import runner
from tests.unit.strategy.design_fixtures import config
from tests.unit.strategy.design_fixtures import configuration
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import strategy
from tests.unit.strategy.memory_limit import InFlightLimit

EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / 'examples' / \
    'site' / 'computed-tasks.yaml'
# The example's tasks as text, so tests can change one of them.
TASKS = textwrap.dedent(EXAMPLE.read_text().split('  tasks:\n', 1)[1])


def task_graph(text: str = TASKS) -> dict:
    return {'schema': 'ironside/TaskGraph/v1', 'metadata': {'name': 'site'},
            'data': {'tasks': yaml.safe_load(text)}}


def inventory(*names: str) -> list[dict]:
    return [node(name, tags=[],
                 roles=['controller' if name.startswith('ctl')
                        else 'compute'],
                 os_access={'address': '127.0.0.1'})
            for name in names]


BASE = ('ctl01', 'ctl02', 'ctl03', 'cmp01', 'cmp02')


def commit(names=BASE, nova_workers=8, tasks=TASKS, **kwargs):
    """Stage what differs from the committed design, and commit."""
    for collection, documents, name in (
            ('site', (configuration(), strategy(groups=[]),
                      task_graph(tasks),
                      config('nova', {'workers': nova_workers}),
                      config('keystone', {'token_ttl': 3600})),
             'input.yaml'),
            ('nodes', inventory(*names), 'nodes.yaml')):
        try:
            stage(collection, *documents, name=name)
        except exception.DesignCollectionUnchanged:
            pass
    return store.commit(**kwargs)


def run(site, action: str = 'deploy_site') -> dict:
    before = len(site.journal())
    row = actions.create_action(site.nodes, action)
    assert site_db.claim_action(row.id, 'test-host', None, None)
    assert runner.ActionRunner(row.uuid, 'test-host', site.nodes,
                               InFlightLimit(100),
                               tasks=site.execution).run()
    report = actions.action_report(row.uuid)
    assert report['result'] == 'success', report
    ran: dict[str, list[str]] = {}
    for entry in site.journal()[before:]:
        ran.setdefault(entry.node, []).append(entry.what)
    return {'report': report, 'ran': ran}


def sorted_ran(ran):
    return {name: sorted(what) for name, what in ran.items()}


CONTROLLER_TASKS = ['cluster', 'database', 'rabbitmq']


def test_first_deploy_runs_everything(graph_site):
    commit()
    first = run(graph_site)
    ran = sorted_ran(first['ran'])
    for name in ('ctl01', 'ctl02', 'ctl03'):
        assert ran[name] == sorted(CONTROLLER_TASKS + [
            'controller-addition', 'join %s of 3' % name, 'nova workers=8'])
    for name in ('cmp01', 'cmp02'):
        assert ran[name] == ['compute-role', 'nova workers=8']
    # Why each task ran is in the report.
    computed = {(e['owner'], e['field']): e
                for e in first['report']['expressions']}
    assert computed[('cluster', 'condition')]['value'] is True
    assert computed[('cluster', 'condition')]['document'] == 'site'
    assert computed[('nova', 'strategy.type')]['value'] == 'parallel'
    assert computed[('controller', 'parameters.strategy.type')][
        'value'] == 'parallel'
    join = computed[('join', 'condition')]
    assert join['nodes'] == [{'value': True,
                              'nodes': ['ctl01', 'ctl02', 'ctl03']}]
    assert computed[('nova', 'parameters.cmd')]['value'] == \
        'record nova workers=8'


def test_a_controller_added_runs_controller_tasks_only(graph_site):
    commit()
    run(graph_site)
    commit(BASE + ('ctl04',))
    update = run(graph_site, 'update_site')
    ran = sorted_ran(update['ran'])
    # Nothing on the computes.
    assert set(ran) == {'ctl01', 'ctl02', 'ctl03', 'ctl04'}
    for name in ('ctl01', 'ctl02', 'ctl03'):
        assert ran[name] == CONTROLLER_TASKS
    # Only the new controller joins; it knows it is the fourth.
    assert ran['ctl04'] == sorted(CONTROLLER_TASKS + ['join ctl04 of 4'])
    computed = {(e['owner'], e['field']): e
                for e in update['report']['expressions']}
    # The spec's conjunction: the ready controllers did not change.
    assert computed[('controller-addition', 'condition')]['value'] is False
    assert computed[('compute-role', 'condition')]['value'] is False
    assert computed[('controller', 'parameters.strategy.type')][
        'value'] == 'one_by_one'
    join = computed[('join', 'condition')]['nodes']
    assert {'value': False, 'nodes': ['ctl01', 'ctl02', 'ctl03']} in join
    assert {'value': True, 'nodes': ['ctl04']} in join
    # The text report (openstack site action show --report) says why.
    lines = report_text.text(update['report']).splitlines()
    assert '  compute-role condition = false' in lines
    assert '  join condition = true on 1 node (ctl04)' in lines
    assert '  join condition = false on 3 nodes (ctl01, ctl02, ctl03)' \
        in lines


def test_a_config_change_runs_the_tasks_reading_it(graph_site):
    commit()
    run(graph_site)
    commit(nova_workers=16)
    update = run(graph_site, 'update_site')
    assert sorted_ran(update['ran']) == {
        name: ['nova workers=16'] for name in BASE}
    # nova's own strategy: parallel on the new site, one by one now.
    computed = {(e['owner'], e['field']): e['value']
                for e in update['report']['expressions']
                if 'value' in e}
    assert computed[('nova', 'strategy.type')] == 'one_by_one'
    stored = site_db.get_action(update['report']['uuid']).document
    assert [t['strategy'] for t in stored['tasks'] if t['id'] == 'nova'] == \
        [{'type': 'one_by_one'}]


def test_an_unchanged_design_runs_no_task(graph_site):
    commit()
    run(graph_site)
    update = run(graph_site, 'update_site')
    assert update['ran'] == {}
    assert update['report']['result'] == 'success'


def test_a_removed_node_is_pending_deletion(graph_site):
    tasks = TASKS + """
- id: forget
  type: shell
  groups: [controller]
  condition: {yaql_exp: "$.nodes.where($.pending_deletion).any()"}
  parameters:
    cmd: {yaql_exp: "'record forget ' +
      ','.join($.nodes.where($.pending_deletion).name)"}
"""
    commit(tasks=tasks)
    run(graph_site)
    commit(('ctl01', 'ctl02', 'ctl03', 'cmp01'), tasks=tasks)
    update = run(graph_site, 'update_site')
    ran = sorted_ran(update['ran'])
    assert ran == {name: ['compute-role', 'forget cmp02']
                   if name.startswith('cmp') else ['forget cmp02']
                   for name in ('ctl01', 'ctl02', 'ctl03', 'cmp01')} | {
        'cmp01': ['compute-role']}


# Errors before anything runs

def test_commit_refuses_a_bad_expression(db):
    tasks = TASKS.replace("changed($.configs.nova)", "nosuch($.configs.nova)")
    with pytest.raises(exception.InvalidDesign) as err:
        commit(tasks=tasks)
    (issue,) = [i for i in err.value.issues if i.severity == 'error']
    assert (issue.error.document, issue.error.task, issue.error.field) == (
        'site', 'nova', 'condition')
    assert 'nosuch($.configs.nova)' in issue.error.message
    assert 'nosuch' in issue.error.message.split(':', 1)[1]
    assert issue.error.line is not None


def test_commit_refuses_a_syntax_error_and_an_expression_as_id(db):
    tasks = TASKS.replace("str($.configs.nova.workers)",
                          "str($.configs.nova.workers") + """
- id: {yaql_exp: "'x'"}
  type: shell
  parameters: {cmd: true}
"""
    with pytest.raises(exception.InvalidDesign) as err:
        commit(tasks=tasks)
    messages = {(i.error.task, i.error.field): i.error.message
                for i in err.value.issues if i.severity == 'error'}
    assert 'parameters.cmd' in {f for _t, f in messages}
    assert any('id cannot be an expression' in m for m in messages.values())


def test_an_expression_failing_at_run_time_touches_nothing(graph_site):
    tasks = TASKS.replace("changed($.configs.nova)",
                          "$.configs.nova.workers / 0 > 1")
    commit(tasks=tasks)
    with pytest.raises(exception.ExpressionFailed) as err:
        actions.create_action(graph_site.nodes, 'deploy_site')
    assert err.value.code == 400
    message = str(err.value)
    assert 'document "site"' in message and '"nova"' in message
    assert 'field "condition"' in message
    assert '$.configs.nova.workers / 0 > 1' in message
    # Not one node enrolled, no action stored.
    assert graph_site.nodes.nodes == {}
    assert site_db.list_actions() == []


def test_computed_parameters_of_the_wrong_type_fail_per_node(graph_site):
    tasks = TASKS.replace("""'record join ' + $node.name + ' of ' +
                      str(len($.nodes.where('controller' in $.roles)))""",
                          "len($node.name)")
    commit(tasks=tasks)
    with pytest.raises(exception.ExpressionFailed) as err:
        actions.create_action(graph_site.nodes, 'deploy_site')
    message = str(err.value)
    assert '"join"' in message and 'node "ctl01"' in message
    assert 'cmd' in message


def test_a_field_other_than_condition_or_parameters_reading_node(
        graph_site):
    tasks = TASKS.replace("  requires: [database]\n",
                          "  requires: {yaql_exp: '[$node.name]'}\n")
    commit(tasks=tasks)
    with pytest.raises(exception.ExpressionFailed) as err:
        actions.create_action(graph_site.nodes, 'deploy_site')
    assert 'read $node' in str(err.value)
    assert '"rabbitmq"' in str(err.value)


# Documents given directly, and DeploymentStrategy groups

def test_documents_given_directly_compute_over_the_nodes(graph_site):
    graph_site.add_roles({'controller': ['c1', 'c2'], 'compute': ['m1']})
    tasks = yaml.safe_load("""
- id: hello
  type: shell
  role: '*'
  condition: {yaql_exp: "'controller' in $node.roles"}
  parameters:
    cmd: {yaql_exp: "'record hello ' + $.cluster.status"}
""")
    report = graph_site.run(tasks)
    assert report['result'] == 'success'
    assert sorted_ran(graph_site.ran()) == {
        'c1': ['hello new'], 'c2': ['hello new']}


def test_strategy_group_fields_are_computed(graph_site):
    graph_site.add_roles({'controller': ['c1', 'c2'], 'compute': ['m1']})
    document = strategy(groups=[{
        'name': 'computes', 'depends_on': [],
        'critical': {'yaql_exp': "$.cluster.status = 'new'"},
        'selectors': [{'yaql_exp': "dict(node_roles => ['compute'])"}],
        'success_criteria': {'yaql_exp': "dict(percent_successful_nodes "
                                         "=> 100)"}}])
    report = graph_site.run(document)
    assert report['result'] == 'success'
    (group,) = report['groups']
    assert group['critical'] is True
    assert sorted(n['name'] for n in report['nodes']) == ['m1']
    computed = {(e['owner'], e['field']) for e in report['expressions']}
    assert computed == {('computes', 'critical'),
                        ('computes', 'selectors[0]'),
                        ('computes', 'success_criteria')}


def test_a_rebuilt_node_is_seen_as_being_added(graph_site):
    """redeploy_server's node: its tasks run as on a new node."""
    from ironside.strategy.plan import site_context
    commit()
    run(graph_site)
    design = store.design(1)
    context = site_context.for_design(graph_site.nodes, design,
                                      rebuilt=['ctl02'])
    nodes = {n.name: n for n in context.new.nodes}
    assert (nodes['ctl02'].pending_addition, nodes['ctl02'].status) == (
        True, 'discover')
    assert (nodes['ctl01'].pending_addition, nodes['ctl01'].status) == (
        False, 'ready')
    assert 'ctl02' not in {n.name for n in context.old.nodes}
