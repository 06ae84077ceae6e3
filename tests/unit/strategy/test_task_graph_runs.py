"""Task graphs on the in-memory site: partial runs, failures, takeover."""

from __future__ import annotations

import threading

import futurist

from ironside.common import states
from ironside.db import site as site_db
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy.run.task_flow import TaskExecution
from tests.unit.strategy import fuel_examples as fx
from tests.unit.strategy.graph_site import group
from tests.unit.strategy.graph_site import node
from tests.unit.strategy.graph_site import tasks_of
from tests.unit.strategy.test_runner_rules import StopAfter
from tests.unit.strategy.test_site_graph import CROSS_MENDED

# Four tasks on every node of two groups: a chain and one on its own.
CHAIN = '''\
- id: controller
  type: group
- id: compute
  type: group
  requires: [controller]
- id: netconfig
  type: shell
  groups: [controller, compute]
  parameters: {cmd: "record netconfig"}
- id: hiera
  type: shell
  groups: [controller, compute]
  requires: [netconfig]
  parameters: {cmd: "record hiera"}
- id: galera
  type: shell
  groups: [controller]
  requires: [hiera]
  parameters: {cmd: "record galera"}
- id: nova
  type: shell
  groups: [compute]
  requires: [hiera]
  parameters: {cmd: "record nova"}
'''
NODES = {'controller': ['c1', 'c2'], 'compute': ['k1', 'k2']}


def chain_site(site):
    site.add_roles(NODES)
    return site


def deployed(site):
    """Every node active, as after a first deploy_site."""
    for entry in site.nodes.nodes.values():
        entry.provision_state = states.ACTIVE


# Partial runs

def test_skip(graph_site):
    deployed(chain_site(graph_site))
    report = graph_site.run(CHAIN, options={'skip': ['hiera']})
    assert graph_site.ran() == {
        'c1': ['netconfig', 'galera'], 'c2': ['netconfig', 'galera'],
        'k1': ['netconfig', 'nova'], 'k2': ['netconfig', 'nova']}
    assert report['options'] == {'skip': ['hiera']}
    # The OS of an active node is never deployed again.
    assert graph_site.nodes.requests == []


def test_only_these_tasks(graph_site):
    deployed(chain_site(graph_site))
    graph_site.run(CHAIN, options={'tasks': ['galera', 'netconfig']})
    assert graph_site.ran() == {
        'c1': ['netconfig', 'galera'], 'c2': ['netconfig', 'galera'],
        'k1': ['netconfig'], 'k2': ['netconfig']}


def test_start_and_end(graph_site):
    deployed(chain_site(graph_site))
    # hiera and galera are selected; each runs on the nodes it runs on.
    graph_site.run(CHAIN, options={'start': 'hiera', 'end': 'galera'})
    assert graph_site.ran() == {'c1': ['hiera', 'galera'],
                                'c2': ['hiera', 'galera'],
                                'k1': ['hiera'], 'k2': ['hiera']}
    graph_site.journal_path.write_text('')
    graph_site.run(CHAIN, options={'end': 'hiera'})
    assert graph_site.ran() == {n: ['netconfig', 'hiera']
                                for n in ('c1', 'c2', 'k1', 'k2')}


def test_only_these_nodes(graph_site):
    chain_site(graph_site)
    graph_site.nodes.by_name('k2').provision_state = states.ACTIVE
    report = graph_site.run(CHAIN, options={'nodes': ['c2', 'k2'],
                                            'tasks': ['netconfig']})
    assert graph_site.ran() == {'c2': ['netconfig'], 'k2': ['netconfig']}
    assert [n['name'] for n in report['nodes']] == ['c2', 'k2']
    # c2 was not deployed: the partial run deploys it first; k2 was.
    assert graph_site.nodes.requests_for('c2') == ['manage', 'provide',
                                                   'deploy']
    assert graph_site.nodes.requests_for('k2') == []
    assert graph_site.nodes.requests_for('c1') == []


def test_bad_run_option_refuses_the_action(graph_site):
    chain_site(graph_site)
    try:
        graph_site.start(CHAIN, options={'start': 'nowhere'})
    except Exception as exc:
        assert str(exc) == ('Run option "start": no task, group or stage is '
                            'named "nowhere"')
    else:
        raise AssertionError('accepted')
    assert site_db.list_actions() == []


# Failures

FAILING = CHAIN.replace('record galera', 'echo galera broke; exit 3')


def test_a_failing_task_fails_its_node_only(graph_site):
    chain_site(graph_site)
    graph_site.script('record', '#!/bin/sh\nprintf "%s %s %s\\n" '
                      '"$(date +%s.%N)" "$NODE_NAME" "$*" >> "$JOURNAL"\n')
    report = graph_site.run(FAILING)
    c1 = node(report, 'c1')
    assert c1['status'] == 'failure'
    assert c1['reason'] == 'task galera failed: exited with status 3'
    galera = c1['tasks'][2]
    assert galera == {'task': 'galera', 'stage': 'deployment',
                      'status': 'failed', 'exit_status': 3,
                      'duration': galera['duration'],
                      'output_tail': 'galera broke',
                      'reason': 'exited with status 3'}
    # The group has no criteria: it goes on, and so does compute.
    assert group(report, 'controller')['tasks'] == {'result': 'success'}
    assert tasks_of(report, 'k1') == {'netconfig': 'success',
                                      'hiera': 'success', 'nova': 'success'}
    assert report['result'] == 'success with some nodes or groups failed'
    text = report_text.text(report)
    assert '''
  c1  failure: task galera failed: exited with status 3
      tasks: 2 of 3 done
      galera: failed (exit status 3, ''' in text
    assert '): exited with status 3\n        | galera broke\n' in text


def test_criteria_judge_task_failures(graph_site):
    chain_site(graph_site)
    strategy = {
        'schema': 'ironside/DeploymentStrategy/v1',
        'metadata': {'name': 'criteria'},
        'data': {'groups': [{'name': 'controller', 'critical': True,
                             'depends_on': [], 'selectors': [],
                             'success_criteria': {
                                 'maximum_failed_nodes': 0}}]}}
    # The strategy's controller selects every node: give it the roles'.
    strategy['data']['groups'][0]['selectors'] = [
        {'node_names': ['c1', 'c2']}]
    report = graph_site.run(strategy, FAILING)
    assert group(report, 'controller')['tasks'] == {
        'result': 'failed: criteria', 'criteria': [{
            'criterion': 'maximum_failed_nodes', 'needed': 0,
            'actual': 2}]}
    assert group(report, 'compute')['prepare'] == {
        'result': 'failed: dependency', 'dependencies': ['controller']}
    assert tasks_of(report, 'k1') == {
        'netconfig': 'not run', 'hiera': 'not run', 'nova': 'not run'}
    assert node(report, 'k1')['tasks'][0]['reason'] == \
        'not run: group compute failed: dependency'
    assert report['result'] == 'failed: critical group controller failed'
    assert '| tasks controller     <FAILED>' in report_text.text(report)


def test_timeout_and_unreachable_fail_their_nodes(graph_site):
    graph_site.add_roles({'all': ['slow', 'down', 'fine']})
    graph_site.local.down.add('down')
    graph = '''\
- id: all
  type: group
- id: wait
  type: shell
  groups: [all]
  parameters: {cmd: 'if [ "$NODE_NAME" = slow ]; then sleep 30; fi',
               timeout: 0.5}
- id: after
  type: shell
  groups: [all]
  requires: [wait]
  parameters: {cmd: "record after"}
'''
    report = graph_site.run(graph)
    assert node(report, 'slow')['reason'] == (
        'task wait timed out: did not finish within 0.5s; its processes '
        'were killed')
    assert node(report, 'down')['reason'] == (
        'task wait could not reach the node: 127.0.0.1:22 refused the '
        'connection')
    assert tasks_of(report, 'slow') == {'wait': 'timeout',
                                        'after': 'not run'}
    assert tasks_of(report, 'down') == {'wait': 'unreachable',
                                        'after': 'not run'}
    assert tasks_of(report, 'fine') == {'wait': 'success',
                                        'after': 'success'}
    assert graph_site.ran() == {'fine': ['after']}


def test_a_task_needing_a_failed_task_elsewhere_is_not_run(graph_site):
    graph_site.add_roles({'primary-controller': ['ctl'],
                          'compute': ['cmp1', 'cmp2']})
    graph_site.script('puppet', '#!/bin/sh\n'
                      '[ "$NODE_NAME" = cmp2 ] && exit 1\nrecord "$@"\n')
    report = graph_site.run(CROSS_MENDED)
    assert tasks_of(report, 'cmp2')['reinstall_ovs'] == 'failed'
    assert node(report, 'ctl')['reason'] == (
        'task make_compute_available not run: it requires reinstall_ovs, '
        'which did not succeed on cmp2 (failed)')
    assert tasks_of(report, 'cmp1') == {'reinstall_ovs': 'success'}


# Takeover

class DiesAtLaunch(TaskExecution):
    """Where a conductor's tasks run when it stops once its tasks are
    written running, before a worker gets them: as if it died right
    there. No task ever runs."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def submit(self, target, spec) -> futurist.Future:
        self.stop.set()
        return futurist.Future()

    def close(self, wait: bool = True) -> None:
        pass


class _Collected:
    """A task's future that stops its runner once the runner has read
    its result (and so recorded it)."""

    def __init__(self, future: futurist.Future,
                 stop: threading.Event) -> None:
        self.future = future
        self.stop = stop

    def done(self) -> bool:
        return self.future.done()

    def add_done_callback(self, callback) -> None:
        self.future.add_done_callback(lambda _future: callback(self))

    def result(self):
        try:
            return self.future.result()
        finally:
            self.stop.set()


class StopsAfterAResult(TaskExecution):
    """The site's task runners, for a conductor that stops once it has
    recorded the first task result."""

    def __init__(self, execution: TaskExecution,
                 stop: threading.Event) -> None:
        self.execution = execution
        self.stop = stop

    def submit(self, target, spec) -> _Collected:
        return _Collected(self.execution.submit(target, spec), self.stop)

    def close(self, wait: bool = True) -> None:
        pass


def test_takeover_reruns_idempotent_tasks_only(graph_site):
    """A conductor dies while two tasks run: the puppet task runs again
    on the new conductor; the shell task is failed as interrupted."""
    graph_site.add('p', roles=['all', 'puppet'])
    graph_site.add('s', roles=['all', 'shell'])
    graph_site.add('i', roles=['all', 'safe'])
    graph = '''\
- id: all
  type: group
- id: apply
  type: puppet
  role: [puppet]
  parameters: {puppet_manifest: /etc/site.pp}
- id: command
  type: shell
  role: [shell]
  parameters: {cmd: "record command"}
- id: safe_command
  type: shell
  role: [safe]
  idempotent: true
  parameters: {cmd: "record safe"}
'''
    graph_site.script('puppet', '#!/bin/sh\nrecord puppet\n')
    row = graph_site.start(graph, host='conductor-1')
    stop = threading.Event()
    first = graph_site.runner(row, host='conductor-1', stop=stop,
                              tasks=DiesAtLaunch(stop))
    assert first.run() is False
    running = {r.task: r.status for r in site_db.action_tasks(row.id)}
    assert running == {'apply': 'running', 'command': 'running',
                       'safe_command': 'running'}
    seen = site_db.get_action(row.uuid)
    assert site_db.claim_action(row.id, 'conductor-2', seen.owner,
                                seen.heartbeat_at)
    assert graph_site.runner(row, host='conductor-2').run() is True
    report = actions.action_report(row.uuid)
    assert tasks_of(report, 'p') == {'apply': 'success'}
    assert tasks_of(report, 's') == {'command': 'interrupted'}
    assert node(report, 's')['reason'] == (
        'task command was interrupted: its conductor stopped while it ran; '
        'it is not idempotent, so it is not run again')
    assert tasks_of(report, 'i') == {'safe_command': 'success'}
    assert graph_site.ran() == {'p': ['puppet'], 'i': ['safe']}


def test_takeover_never_reruns_a_finished_task(graph_site):
    graph_site.add_roles({'one': ['n1'], 'two': ['n2']})
    graph = ('- id: one\n  type: group\n'
             '- id: two\n  type: group\n  requires: [one]\n'
             '- id: work\n  type: shell\n  groups: [one, two]\n'
             '  parameters: {cmd: "record work"}\n')
    row = graph_site.start(graph, host='conductor-1')
    stop = threading.Event()
    nodes = StopAfter(graph_site.nodes, 100, stop)
    first = graph_site.runner(
        row, host='conductor-1', nodes=nodes, stop=stop,
        tasks=StopsAfterAResult(graph_site.execution, stop))
    assert first.run() is False
    assert graph_site.ran() == {'n1': ['work']}
    seen = site_db.get_action(row.uuid)
    assert site_db.claim_action(row.id, 'conductor-2', seen.owner,
                                seen.heartbeat_at)
    assert graph_site.runner(row, host='conductor-2').run() is True
    assert graph_site.ran() == {'n1': ['work'], 'n2': ['work']}
    assert actions.action_report(row.uuid)['result'] == 'success'


def test_the_usage_example_text_in_a_design_document(graph_site):
    """The same graph given as an ironside/TaskGraph/v1 document."""
    graph_site.add_roles(fx.USAGE_NODES)
    document = {'schema': 'ironside/TaskGraph/v1',
                'metadata': {'name': 'site-tasks'},
                'data': {'tasks': __import__('yaml').safe_load(fx.USAGE)}}
    report = graph_site.run(document)
    assert report['strategy'] == 'site-tasks'
    assert report['result'] == 'success'


def test_a_wait_only_the_run_can_see_ends_not_run(graph_site):
    """Two strategy groups run one at a time; a task of the first waits
    for a task of the second's node, which can not start before the
    first group ends. The plan can not see it (the order of serialised
    groups is decided as they run): the runner finds nothing moving, and
    the waiting task is not run, failing its node; the rest goes on."""
    graph_site.add('n1', tags=['a'], roles=['ra'])
    graph_site.add('n2', tags=['b'], roles=['rb'])
    strategy = {
        'schema': 'ironside/DeploymentStrategy/v1',
        'metadata': {'name': 'serial'},
        'data': {'groups': [
            {'name': name, 'critical': False, 'depends_on': [],
             'selectors': [{'node_tags': [name]}]} for name in 'ab']}}
    graph = ('- id: y\n  type: shell\n  role: [rb]\n'
             '  parameters: {cmd: "record y"}\n'
             '- id: x\n  type: shell\n  role: [ra]\n  requires: [y]\n'
             '  parameters: {cmd: "record x"}\n')
    report = graph_site.run(strategy, graph)
    assert node(report, 'n1')['reason'] == (
        'task x not run: it waits for y on n2, which can not happen '
        'before it')
    assert tasks_of(report, 'n2') == {'y': 'success'}
    assert graph_site.ran() == {'n2': ['y']}
    assert report['result'] == 'success with some nodes or groups failed'
