"""Fuel's cross-node dependencies and a task's own strategy.

``cross-depends`` makes a task's runs wait for another task's runs on
the nodes of some roles (all of them, or any one); ``cross-depended-by``
says the same from the other side; a task's ``strategy`` caps how many
of its runs go at once. The documents are read and checked, and the
tasks run for real on the in-memory site (the local task runner), the
order read from the journal they write.
"""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.db import site as site_db
from ironside.strategy.plan.action_plan import NodeNeed
from tests.unit.strategy.graph_site import before
from tests.unit.strategy.graph_site import node
from tests.unit.strategy.graph_site import spans
from tests.unit.strategy.graph_site import tasks_of
from tests.unit.strategy.test_fuel_reader import errors
from tests.unit.strategy.test_fuel_reader import warnings
from tests.unit.strategy.test_site_graph import graph
from tests.unit.strategy.test_site_graph import graph_errors

NODES = {'controller': ['c1', 'c2'], 'compute': ['k1', 'k2']}

# keystone on the controllers, nova on the computes; nova's runs wait
# for keystone's on the controllers (the groups run side by side).
GROUPS = '''\
- id: controller
  type: group
  role: [controller]
- id: compute
  type: group
  role: [compute]
'''


def keystone(cmd='step keystone 0.3', **fields):
    text = '''\
- id: keystone
  type: shell
  groups: [controller]
  parameters: {cmd: "%s"}
''' % cmd
    return text + ''.join('  %s: %s\n' % item for item in fields.items())


def nova(**fields):
    text = '''\
- id: nova
  type: shell
  groups: [compute]
  parameters: {cmd: "record nova"}
'''
    return text + ''.join('  %s: %s\n' % item for item in fields.items())


def by_node(site, what):
    """The time each node wrote ``what`` to the journal."""
    return {e.node: e.time for e in site.journal() if e.what == what}


# Reading

def test_cross_fields_are_read_and_checked():
    text = GROUPS + keystone() + nova(**{
        'cross-depends': '[{name: keystone, role: [controller], '
                         'policy: any}, {name: keystone, colour: red}, '
                         '{role: self}, {name: keystone, policy: most}]',
        'strategy': '{type: one_by_one, amount: 2}'})
    assert errors(text) == [
        'document "tasks.yaml", task "nova", field "cross-depends[1].colour":'
        ' unknown field (line 15)',
        'document "tasks.yaml", task "nova", field "cross-depends[2].name": '
        'missing required field (line 15)',
        'document "tasks.yaml", task "nova", field "cross-depends[3].policy":'
         ' must be one of all, any, not "most" (line 15)',
        'document "tasks.yaml", task "nova", field "strategy.amount": '
        'amount is only allowed with type parallel (line 16)']


def test_a_cross_dependency_names_a_task():
    text = GROUPS + nova(**{'cross-depends': '[{name: controller}, '
                                             '{name: glance}]'})
    assert errors(text) == [
        'document "tasks.yaml", task "nova", field "cross-depends[0].name": '
        '"controller" is a group, not a task (line 11)']
    text = GROUPS + nova(**{'cross-depends': '[{name: glance}]'})
    assert warnings(text) == [
        'document "tasks.yaml", task "nova", field "cross-depends[0].name": '
        'cross-depends on "glance", which this document does not define: '
        'the site design must define it before it runs (line 11)']
    assert graph_errors(text) == [
        'document "doc1", task "nova", field "cross-depends[0].name": '
        'cross-depends on "glance", which no document of the action '
        'defines (line 11)']


def test_cross_dependencies_order_the_graph_and_close_cycles():
    text = GROUPS + keystone(**{'cross-depends': '[{name: nova}]'}) + \
        nova(**{'cross-depends': '[{name: keystone}]'})
    assert any('cycle' in e for e in errors(text))
    text = GROUPS + nova(**{'cross-depends': '[{name: keystone}]'}) + \
        keystone()
    assert list(graph(text).tasks) == ['keystone', 'nova']


# Running

def test_cross_depends_waits_for_every_run_on_the_roles(graph_site):
    graph_site.add_roles(NODES)
    report = graph_site.run(GROUPS + keystone() + nova(**{
        'cross-depends': '[{name: keystone, role: [controller]}]'}))
    assert report['result'] == 'success'
    found = spans(graph_site.journal())
    assert before(found, ['c1', 'c2'], ['k1', 'k2'])


def test_without_a_cross_dependency_the_groups_overlap(graph_site):
    """The control of the test above: the same graph without the
    dependency runs nova while keystone still runs."""
    graph_site.add_roles(NODES)
    graph_site.run(GROUPS + keystone('step keystone 1') + nova())
    ends = by_node(graph_site, 'end keystone')
    novas = by_node(graph_site, 'nova')
    assert max(novas.values()) < min(ends.values())


def test_policy_all_fails_when_one_run_failed(graph_site):
    graph_site.add_roles(NODES)
    graph_site.script('fail-on-c2', '#!/bin/sh\n[ "$NODE_NAME" != c2 ]\n')
    report = graph_site.run(GROUPS + keystone('fail-on-c2') + nova(**{
        'cross-depends': '[{name: keystone, role: controller}]'}))
    assert tasks_of(report, 'k1') == {'nova': 'not run'}
    reason = node(report, 'k1')['tasks'][0]['reason']
    assert reason == ('not run: it cross-depends on keystone, which did '
                      'not succeed on c2 (failed)')
    assert 'nova' not in graph_site.ran().get('k1', [])


def test_policy_any_needs_one_run_to_succeed(graph_site):
    graph_site.add_roles(NODES)
    graph_site.script('slow-on-c2', '#!/bin/sh\n[ "$NODE_NAME" != c2 ] || '
                                    'step keystone-c2 1\n')
    report = graph_site.run(GROUPS + keystone('slow-on-c2') + nova(**{
        'cross-depends': '[{name: keystone, role: controller, '
                         'policy: any}]'}))
    assert report['result'] == 'success'
    # nova ran once c1's keystone succeeded, while c2's still ran.
    novas = by_node(graph_site, 'nova')
    assert max(novas.values()) < by_node(graph_site,
                                         'end keystone-c2')['c2']


def test_policy_any_fails_when_no_run_succeeded(graph_site):
    graph_site.add_roles(NODES)
    report = graph_site.run(GROUPS + keystone('false') + nova(**{
        'cross-depends': '[{name: keystone, role: controller, '
                         'policy: any}]'}))
    assert tasks_of(report, 'k2') == {'nova': 'not run'}
    assert node(report, 'k2')['tasks'][0]['reason'] == (
        'not run: it cross-depends on keystone, which did not succeed on '
        'c1 (failed) nor on any other node')


def test_role_self_waits_on_the_own_node_only(graph_site):
    """setup on every node, k1's slow; config waits for setup on its own
    node, so k2's config does not wait for k1's setup."""
    graph_site.add_roles(NODES)
    graph_site.script('setup', '#!/bin/sh\n[ "$NODE_NAME" != k1 ] || '
                               'sleep 1\nrecord setup\n')
    report = graph_site.run(GROUPS + '''\
- id: setup
  type: shell
  role: '*'
  parameters: {cmd: setup}
- id: config
  type: shell
  role: '*'
  parameters: {cmd: record config}
  cross-depends: [{name: setup, role: self}]
''')
    assert report['result'] == 'success'
    setups, configs = by_node(graph_site, 'setup'), by_node(graph_site,
                                                            'config')
    for name in ('c1', 'c2', 'k1', 'k2'):
        assert setups[name] < configs[name]
    assert configs['k2'] < setups['k1']


def test_cross_depended_by_holds_the_named_roles_only(graph_site):
    """keystone is cross-depended on by nova on the computes: nova there
    waits for every keystone run; nova on the controllers does not."""
    graph_site.add_roles(NODES)
    report = graph_site.run(GROUPS + keystone(**{
        'cross-depended-by': '[{name: nova, role: [compute]}]'}) + '''\
- id: nova
  type: shell
  role: '*'
  parameters: {cmd: "record nova"}
''')
    assert report['result'] == 'success'
    ends = by_node(graph_site, 'end keystone')
    novas = by_node(graph_site, 'nova')
    assert min(novas['k1'], novas['k2']) > max(ends.values())


def test_the_plan_stores_the_needs_on_its_nodes(graph_site):
    graph_site.add_roles(NODES)
    row = graph_site.start(GROUPS + keystone(**{
        'cross-depended-by': '[{name: nova, role: compute}]'}) + nova(**{
            'cross-depends': '[{name: keystone, role: self}]'}))
    stored = site_db.get_action(row.uuid).document['cross_needs']
    uuids = {n.node.name: n.node.uuid
             for n in graph_site.nodes.nodes.values()}
    needs = [NodeNeed.from_dict(n) for n in stored['nova']]
    assert needs == [
        NodeNeed('keystone', 'all', on=frozenset(
            (uuids['k1'], uuids['k2']))),
        NodeNeed('keystone', 'all', own=True)]


def test_a_cross_wait_that_never_ends_is_refused(graph_site):
    """The controllers wait for the computes' group, whose nova waits
    for keystone on the controllers: neither would ever start."""
    graph_site.add_roles(NODES)
    text = GROUPS.replace('  role: [controller]\n',
                          '  role: [controller]\n  requires: [compute]\n') \
        + keystone() + nova(**{'cross-depends': '[{name: keystone, '
                                                'role: controller}]'})
    with pytest.raises(exception.InvalidPlan) as err:
        graph_site.start(text)
    assert 'none would ever run' in str(err.value)
    assert '-> task keystone on c' in str(err.value)


# A task's strategy

STRATEGY_TASK = GROUPS + '''\
- id: restart
  type: shell
  role: '*'
  parameters: {cmd: "step restart 0.3"}
  strategy: %s
'''


def most_at_once(site, what='restart'):
    """The most runs of a step that were going at one time."""
    going = most = 0
    for entry in site.journal():
        if entry.what == 'start %s' % what:
            going += 1
            most = max(most, going)
        elif entry.what == 'end %s' % what:
            going -= 1
    return most


@pytest.mark.parametrize('strategy, most', [
    ('{type: one_by_one}', 1),
    ('{type: parallel, amount: 2}', 2),
    ('{type: parallel}', 4),
])
def test_a_task_strategy_caps_its_runs_at_once(graph_site, strategy, most):
    graph_site.add_roles(NODES)
    report = graph_site.run(STRATEGY_TASK % strategy)
    assert report['result'] == 'success'
    assert most_at_once(graph_site) == most


# Computed (yaql_exp) cross-dependencies and strategies

def test_a_computed_cross_dependency_orders_the_runs(graph_site):
    graph_site.add_roles(NODES)
    report = graph_site.run(GROUPS + keystone() + nova(**{
        'cross-depends': '{yaql_exp: "switch($.cluster.status = \'new\' => '
                         '[dict(name => \'keystone\', role => '
                         '\'controller\')], true => [])"}'}))
    assert report['result'] == 'success'
    assert before(spans(graph_site.journal()), ['c1', 'c2'], ['k1', 'k2'])
    assert report['expressions'] == [{
        'document': 'document 1', 'owner': 'nova', 'field': 'cross-depends',
        'expression': "switch($.cluster.status = 'new' => [dict(name => "
                      "'keystone', role => 'controller')], true => [])",
        'value': [{'name': 'keystone', 'role': 'controller'}]}]


@pytest.mark.parametrize('field, expression, message', [
    ('requires', '42', 'field "requires": expression "42" computed 42, '
     'which is wrong here: must be a list, not 42 (line 15)'),
    ('cross-depends', "'keystone'", 'field "cross-depends": expression '
     '"\'keystone\'" computed "keystone", which is wrong here: must be a '
     'list, not "keystone" (line 15)'),
    ('strategy', "dict(type => 'one_by_one', amount => 2)",
     'field "strategy.amount": expression "dict(type => \'one_by_one\', '
     'amount => 2)" computed {"amount": 2, "type": "one_by_one"}, which is '
     'wrong here: amount is only allowed with type parallel (line 15)'),
])
def test_a_computed_value_the_field_can_not_hold_is_refused(
        graph_site, field, expression, message):
    """Before, a number for ``requires`` was ignored and one for
    ``cross-depends`` failed with a TypeError."""
    graph_site.add_roles(NODES)
    text = GROUPS + keystone() + nova(**{field: '{yaql_exp: "%s"}'
                                         % expression})
    with pytest.raises(exception.InvalidTaskGraph) as err:
        graph_site.start(text)
    assert [str(e) for e in err.value.errors] == [
        'document "document 1", task "nova", ' + message]
    assert site_db.list_actions() == []
    assert graph_site.journal() == []


def test_a_computed_strategy_group_field_is_checked_too(graph_site):
    graph_site.add_roles(NODES)
    strategy = '''\
schema: shipyard/DeploymentStrategy/v1
metadata: {name: site}
data:
  groups:
    - name: computes
      critical: {yaql_exp: "len($.nodes)"}
      depends_on: []
      selectors: [{node_roles: [compute]}]
'''
    with pytest.raises(exception.InvalidTaskGraph) as err:
        graph_site.start(strategy)
    assert [str(e) for e in err.value.errors] == [
        'document "site", group "computes", field "critical": expression '
        '"len($.nodes)" computed 4, which is wrong here: must be true or '
        'false, not 4 (line 6)']
