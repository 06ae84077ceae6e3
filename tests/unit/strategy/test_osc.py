"""``openstack site ...`` against the site API over HTTP."""

from __future__ import annotations

import json

import pytest

from ironside.db import site as site_db
from ironside.db import site_models
from ironside.osc import actions as osc_actions
from ironside.strategy import actions
from ironside.strategy import service as site_service
from ironside.strategy.nodes import conductor as conductor_nodes
from ironside.strategy.run.task_flow import TaskExecution
from ironside.strategy.tasks.registry import TaskRunners
from tests import utils
from tests.unit.strategy import cli
from tests.unit.strategy import fuel_examples as fx
from tests.unit.strategy import spec_flows
from tests.unit.strategy.conftest import EXAMPLES
from tests.unit.strategy.conftest import INVENTORY
from tests.unit.strategy.conftest import node_values
from tests.unit.strategy.local_tasks import LocalTaskRunner

STRATEGY_FILE = str(EXAMPLES / 'deployment-strategy.yaml')


@pytest.fixture(scope='module')
def endpoint(test_database):
    """One server for the module."""
    with cli.serve() as url:
        yield url


@pytest.fixture
def openstack(endpoint, db, capsys):
    """Run ``openstack`` in this process; returns (exit code, output)."""
    cli.forget_site_client()
    yield cli.runner(endpoint, capsys)
    cli.forget_site_client()


def test_strategy_commands(openstack):
    code, out = openstack('site', 'strategy', 'validate', STRATEGY_FILE)
    assert (code, out) == (0, '%s is valid\n' % STRATEGY_FILE)
    code, out = openstack('site', 'strategy', 'create', STRATEGY_FILE,
                          '-f', 'json')
    assert code == 0
    created = json.loads(out)
    # A summary of what was stored, not the document again.
    assert created['name'] == 'deployment-strategy'
    assert created['group_count'] == 5
    assert created['groups'] == ('control-nodes, compute-nodes-1, '
                                 'compute-nodes-2, monitoring-nodes, '
                                 'ntp-node')
    assert created['created_at']
    assert 'document' not in created
    code, out = openstack('site', 'strategy', 'list', '-f', 'value',
                          '-c', 'Name')
    assert (code, out) == (0, 'deployment-strategy\n')
    code, out = openstack('site', 'strategy', 'list', '-f', 'json')
    assert json.loads(out)[0]['UUID'] == created['uuid']
    code, out = openstack('site', 'strategy', 'show', 'deployment-strategy',
                          '-f', 'value', '-c', 'schema')
    assert (code, out) == (0, 'shipyard/DeploymentStrategy/v1\n')
    # The document: itself with -f json, YAML in the table.
    code, out = openstack('site', 'strategy', 'show', 'deployment-strategy',
                          '-f', 'json')
    shown = json.loads(out)
    assert shown['document']['data']['groups'][4]['name'] == 'ntp-node'
    code, out = openstack('site', 'strategy', 'show', 'deployment-strategy')
    assert 'schema: shipyard/DeploymentStrategy/v1' in out
    code, out = openstack('site', 'strategy', 'create', STRATEGY_FILE)
    assert code == 1
    assert 'A deployment strategy named deployment-strategy already ' \
        'exists. (HTTP 409)' in out


def test_validate_prints_every_error(openstack, tmp_path):
    bad = tmp_path / 'bad.yaml'
    bad.write_text(open(STRATEGY_FILE).read().replace(
        'minimum_successful_nodes: 3', 'minimum_successful_nodes: -3'))
    code, out = openstack('site', 'strategy', 'validate', bad)
    assert code == 1
    assert out == ('file "bad.yaml", document "deployment-strategy", group '
                   '"control-nodes", field "success_criteria.minimum_'
                   'successful_nodes": must be at least 0, not -3 '
                   '(line 25)\n')


def test_deploy_site_and_wait(openstack, rpc, context, conf):
    """The spec's compute-nodes-2 run, followed live, then shown."""
    fail = {'fake_fail_steps': ['deploy.write_image']}
    for entry in INVENTORY['nodes']:
        values = utils.fake_node_values(**node_values(entry))
        if entry['name'] in ('cmp-r2-01', 'cmp-r2-02'):
            values['driver_info'] = fail
        rpc.create_node(context, values)
    conductor_service = site_service.SiteActionService(
        'test-conductor', conductor_nodes.ConductorNodes(rpc))
    conductor_service.start()
    try:
        openstack('site', 'strategy', 'create', STRATEGY_FILE)
        code, out = openstack('site', 'action', 'create', 'deploy_site',
                              '--strategy', 'deployment-strategy', '--wait',
                              '--poll-interval', '0.05')
    finally:
        conductor_service.stop()
    assert code == 0
    flow = spec_flows.COMPUTE_2_DEPLOY_FAILS.splitlines()
    live = [line for line in out.splitlines() if line.startswith('| ')]
    # Each phase once as it ended, then the report's flow.
    assert live == [line for line in flow if line.startswith('| ')] * 2
    assert spec_flows.COMPUTE_2_DEPLOY_FAILS in out
    assert out.rstrip().endswith(
        'Result: success with some nodes or groups failed')
    uuid = out.split()[2].rstrip(':')
    code, out = openstack('site', 'action', 'show', uuid, '--report',
                          '--no-nodes')
    assert code == 0
    assert out.startswith(spec_flows.COMPUTE_2_DEPLOY_FAILS)
    detail = 'compute-nodes-2: 3 nodes; prepare success; deploy failed: ' \
        'criteria (percent_successful_nodes needed 50, actual 33.33)'
    assert detail in out
    assert 'cmp-r2-01' not in out
    # The fields, with the groups and nodes in words, in a table.
    code, out = openstack('site', 'action', 'show', uuid)
    assert code == 0
    assert detail in out
    assert 'cmp-r2-01' in out
    # The report as the API answers it, with -f json (and --format json).
    code, out = openstack('site', 'action', 'show', uuid, '-f', 'json')
    report = json.loads(out)
    assert report['state'] == site_models.FINISHED
    assert report == actions.action_report(uuid)
    code, out = openstack('site', 'action', 'show', uuid, '--format',
                          'json', '--no-nodes')
    assert 'nodes' not in json.loads(out)
    code, out = openstack('site', 'action', 'show', uuid, '-f', 'value',
                          '-c', 'state', '-c', 'result')
    assert out == 'finished\nsuccess with some nodes or groups failed\n'
    code, out = openstack('site', 'action', 'list', '-f', 'value', '-c',
                          'Result')
    assert out == 'success with some nodes or groups failed\n'
    code, out = openstack('site', 'action', 'list', '-f', 'json')
    assert [a['UUID'] for a in json.loads(out)] == [uuid]
    code, out = openstack('site', 'action', 'abort', uuid)
    assert code == 1
    assert 'Site action %s has already ended (finished); there is ' \
        'nothing to abort. (HTTP 409)' % uuid in out


def test_action_errors(openstack):
    code, out = openstack('site', 'action', 'create', 'deploy_site',
                          '--strategy', 'missing')
    assert code == 1
    assert 'Deployment strategy missing could not be found. (HTTP 404)' \
        in out
    code, out = openstack('site', 'action', 'create', 'redeploy_server',
                          '--param', 'node=ctl09')
    assert code == 1
    assert 'Node ctl09 could not be found. (HTTP 404)' in out
    code, out = openstack('site', 'action', 'create', 'redeploy_server',
                          '--param', 'node=ctl09', '--param',
                          'drain-node-timeout=5', '--param',
                          'drain-node-grace-period=10')
    assert code == 1
    assert 'BadRequest: drain grace period (10 s) must not be longer than ' \
        'the drain timeout (5 s) (HTTP 400)' in out


def test_abort_a_queued_action(openstack, enrolled):
    openstack('site', 'strategy', 'create', STRATEGY_FILE)
    code, out = openstack('site', 'action', 'create', 'deploy_site',
                          '--strategy', 'deployment-strategy', '-f', 'json')
    assert code == 0
    created = json.loads(out)
    uuid = created['uuid']
    # The action as the API answers it.
    assert created == actions.action_report(uuid)
    assert created['state'] == 'queued'
    # No conductor runs it: the abort ends it at once.
    code, out = openstack('site', 'action', 'abort', uuid, '-f', 'json')
    assert code == 0
    aborted = json.loads(out)
    assert (aborted['uuid'], aborted['state'], aborted['result']) == (
        uuid, 'aborted', 'aborted')
    assert set(aborted) == {'uuid', 'action', 'strategy', 'revision',
                            'state', 'result', 'owner', 'created_at',
                            'started_at', 'finished_at'}
    code, out = openstack('site', 'action', 'abort', uuid, '-f', 'value',
                          '-c', 'state')
    assert code == 1
    assert 'has already ended (aborted)' in out
    code, out = openstack('site', 'action', 'show', uuid, '-f', 'value',
                          '-c', 'state')
    assert out == 'aborted\n'
    code, out = openstack('site', 'action', 'show', uuid, '--report')
    assert '\n|\nAborted\n' in out
    assert out.rstrip().endswith('Result: aborted')
    code, out = openstack('site', 'action', 'list', '-f', 'value', '-c',
                          'State')
    assert out == 'aborted\n'
    code, out = openstack('site', 'action', 'abort',
                          'f00b0000-0000-4000-8000-000000000000')
    assert code == 1
    assert 'could not be found. (HTTP 404)' in out


BAD_YAML = 'schema: shipyard/DeploymentStrategy/v1\ndata: {groups: [}\n'


@pytest.mark.parametrize('command', [
    ('site', 'strategy', 'create'),
    ('site', 'strategy', 'validate'),
    ('site', 'task', 'validate'),
    ('site', 'task', 'list'),
    ('site', 'action', 'create', 'deploy_site', '--task-graph'),
    ('site', 'design', 'create', 'site', '--file'),
])
def test_yaml_errors_name_the_file_given(openstack, tmp_path, monkeypatch,
                                         command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'bad.yaml').write_text(BAD_YAML)
    code, out = openstack(*command, 'bad.yaml')
    assert code == 1
    assert 'bad.yaml, line 2, column 17: not valid YAML: expected the ' \
        'node content, but found \'}\'' in out
    assert '<input>' not in out


class Terminal:
    def __init__(self):
        self.written = []

    def isatty(self):
        return True

    def write(self, text):
        self.written.append(text)

    def flush(self):
        pass


def test_progress_redraws_in_place_on_a_terminal(spec_strategy,
                                                 memory_site):
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    terminal = Terminal()
    progress = osc_actions.Progress(terminal)
    report = actions.action_report(row.uuid)
    progress.show(report)
    progress.show(report)
    lines = len(terminal.written[0].splitlines())
    assert lines == 19
    assert terminal.written[0].splitlines()[-1] == (
        'Nodes: 14 not started, 0 prepared, 0 success, 0 failure')
    assert terminal.written[1] == '\x1b[19F\x1b[J'
    assert terminal.written[2] == terminal.written[0]


@pytest.fixture
def enrolled(rpc, context):
    for entry in INVENTORY['nodes']:
        rpc.create_node(context, utils.fake_node_values(**node_values(entry)))


def test_node_status(openstack, enrolled):
    code, out = openstack('site', 'node', 'status', '--rack', 'rack02',
                          '--tag', 'compute', '-f', 'json')
    assert code == 0, out
    nodes = json.loads(out)
    assert [n['Name'] for n in nodes] == ['cmp-r2-01', 'cmp-r2-02',
                                          'cmp-r2-03']
    assert nodes[0] == {'Name': 'cmp-r2-01', 'Provision State': 'enroll',
                        'Power State': None, 'Maintenance': False,
                        'Fault': None, 'Step': None, 'Last Error': None}
    code, out = openstack('site', 'node', 'status', '--name', 'ctl0[12]',
                          '--long', '-f', 'value', '-c', 'Name', '-c',
                          'Rack')
    assert (code, out) == (0, 'ctl01 rack03\nctl02 rack03\n')
    code, out = openstack('site', 'node', 'status', '--label',
                          'ucp_control_plane:enabled', '--node-name',
                          'ctl04', '--node-name', 'ntp01', '-f', 'value',
                          '-c', 'Name')
    assert (code, out) == (0, 'ctl04\n')
    code, out = openstack('site', 'node', 'status', '--provision-state',
                          'active', '-f', 'json')
    assert (code, json.loads(out)) == (0, [])


def test_node_status_bad_label(openstack, enrolled):
    code, out = openstack('site', 'node', 'status', '--label', 'nocolon')
    assert code == 1
    assert 'label "nocolon" is not of the form key: value' in out
    assert '(HTTP 400)' in out


def test_node_filter(openstack, enrolled, tmp_path):
    selectors = tmp_path / 'selectors.yaml'
    selectors.write_text('- rack_names: [rack01]\n'
                         '  node_tags: [monitoring]\n'
                         '- node_names: [ntp01]\n')
    code, out = openstack('site', 'node', 'filter', selectors, '-f', 'yaml')
    assert code == 0, out
    assert out == ('- Labels: \'\'\n  Name: mon01\n  Rack: rack01\n'
                   '  Tags: monitoring\n  UUID: %s\n'
                   '- Labels: \'\'\n  Name: ntp01\n  Rack: rack03\n'
                   '  Tags: ntp\n  UUID: %s\n') % tuple(
        line.split(': ')[1] for line in out.splitlines()
        if 'UUID' in line)
    selectors.write_text('selectors:\n  - node_labels: ["openstack-compute:'
                         ' enabled"]\n    rack_names: [rack02]\n')
    code, out = openstack('site', 'node', 'filter', selectors, '-f',
                          'value', '-c', 'Name', '-c', 'Labels')
    assert code == 0, out
    assert out.splitlines() == ['cmp-r2-0%d openstack-compute: enabled' % i
                                for i in (1, 2, 3)]
    code, out = openstack('site', 'node', 'filter', '--rack', 'rack03',
                          '--tag', 'ntp', '-f', 'value', '-c', 'Name')
    assert (code, out) == (0, 'ntp01\n')
    code, out = openstack('site', 'node', 'filter', '-f', 'value', '-c',
                          'Name')
    assert code == 0 and len(out.splitlines()) == len(INVENTORY['nodes'])


@pytest.mark.parametrize('text, message', [
    ('- rack_names: [rack01\n- node_names: []\n',
     '%s, line 2, column 13: not valid YAML: expected \',\' or \']\', '
     'but got \':\''),
    ('rack_names: rack01\n',
     '%s: expected a list of selectors, or a mapping with "selectors"'),
    ('- node_labels: [nocolon]\n',
     '%s: Invalid deployment strategy: document "node filter", field '
     '"selectors[0].node_labels[0]": label "nocolon" is not of the form '
     'key: value'),
])
def test_node_filter_file_errors_name_the_file(openstack, tmp_path, text,
                                               message):
    path = tmp_path / 'selectors.yaml'
    path.write_text(text)
    code, out = openstack('site', 'node', 'filter', path)
    assert code == 1
    assert message % path in out


def test_node_filter_unreadable_file(openstack, tmp_path):
    code, out = openstack('site', 'node', 'filter', tmp_path / 'nope.yaml')
    assert code == 1
    assert 'Cannot read %s: No such file or directory' % (
        tmp_path / 'nope.yaml') in out


def test_task_graph_commands(openstack, tmp_path):
    usage = tmp_path / 'usage.yaml'
    usage.write_text(fx.USAGE)
    code, out = openstack('site', 'task', 'list', usage, '--start',
                          'setup_services', '-f', 'value', '-c', 'ID',
                          '-c', 'Requires')
    assert (code, out) == (0, 'setup_services setup_network\n')
    code, out = openstack('site', 'task', 'list', usage, '-f', 'json')
    assert [t['ID'] for t in json.loads(out)] == ['setup_network',
                                                  'setup_services']
    cross = tmp_path / 'cross.yaml'
    cross.write_text(fx.CROSS_REFERENCE)
    code, out = openstack('site', 'task', 'validate', cross)
    assert code == 0
    assert out.splitlines()[2] == (
        'warning: document "cross.yaml", task "make_compute_available": no '
        'type: an outline of a task, which can not run until it has one '
        '(line 12)')
    assert out.endswith('%s is valid\n' % cross)


def test_task_validate_takes_several_files(openstack, tmp_path):
    """A graph split in a groups file and a tasks file is validated
    together: the groups the tasks name are in the other file."""
    groups = tmp_path / 'groups.yaml'
    groups.write_text(fx.USAGE_GROUPS)
    tasks = tmp_path / 'tasks.yaml'
    tasks.write_text(fx.USAGE_TASKS)
    code, out = openstack('site', 'task', 'validate', tasks)
    assert code == 0
    assert out.count('warning: document "tasks.yaml", task ') == 10
    code, out = openstack('site', 'task', 'validate', groups, tasks)
    assert (code, out) == (0, '%s, %s are valid\n' % (groups, tasks))
    tasks.write_text(fx.USAGE_TASKS.replace('type: shell', 'type: shel'))
    code, out = openstack('site', 'task', 'validate', groups, tasks)
    assert code == 1
    assert out == (
        'document "tasks.yaml", task "setup_network", field "type": unknown '
        'task type "shel" (known: shell, upload_file, rsync, puppet, step, '
        'skipped) (line 11)\n')
    # A wrapped document is named by its metadata: the file is named too.
    wrapped = tmp_path / 'wrapped.yaml'
    wrapped.write_text('schema: ironside/TaskGraph/v1\n'
                       'metadata: {name: usage}\n'
                       'data:\n  tasks:\n    - id: x\n      type: nope\n')
    code, out = openstack('site', 'task', 'validate', groups, wrapped)
    assert code == 1
    assert out.startswith('file "wrapped.yaml", document "usage", task "x", '
                          'field "type": unknown task type "nope"')
    assert out.rstrip().endswith('(line 6)')


def test_action_list_filters(openstack, enrolled):
    """Each option of site action list is the API's query parameter."""
    openstack('site', 'strategy', 'create', STRATEGY_FILE)
    code, out = openstack('site', 'action', 'create', 'deploy_site',
                          '--strategy', 'deployment-strategy', '-f',
                          'value', '-c', 'uuid')
    assert code == 0
    first = out.strip()
    openstack('site', 'action', 'abort', first)
    code, out = openstack('site', 'action', 'create', 'update_site',
                          '--strategy', 'deployment-strategy', '-f',
                          'value', '-c', 'uuid')
    second = out.strip()

    def listed(*options):
        code, out = openstack('site', 'action', 'list', '-f', 'value',
                              '-c', 'UUID', *options)
        assert code == 0, out
        return out.split()
    assert listed() == [second, first]
    assert listed('--state', 'aborted') == [first]
    assert listed('--state', 'queued', '--state', 'aborted') == [second,
                                                                 first]
    assert listed('--state', 'failed') == []
    assert listed('--action', 'update_site') == [second]
    assert listed('--revision', '1') == []
    assert listed('--sort', 'created_at:asc') == [first, second]
    assert listed('--sort', 'action') == [second, first]
    assert listed('--limit', '1') == [second]
    assert listed('--marker', second) == [first]
    code, out = openstack('site', 'action', 'list', '--long', '-f', 'json',
                          '--state', 'aborted')
    row, = json.loads(out)
    assert row['Finished At'] and row['Started At'] is None
    code, out = openstack('site', 'action', 'list', '--sort', 'owner')
    assert code == 1
    assert 'Invalid sort_key "owner"; expected one of created_at, ' \
        'action, state (HTTP 400)' in out
    code, out = openstack('site', 'action', 'list', '--state', 'done')
    assert code == 1
    assert 'Invalid state "done"' in out


def test_deploy_a_task_graph_and_wait(openstack, rpc, context, tmp_path):
    """The spec's example on fake hardware, its tasks run by the local
    runner; a partial run skips setup_services."""
    for role, names in fx.USAGE_NODES.items():
        for name in names:
            rpc.create_node(context, utils.fake_node_values(
                name=name, extra={'roles': [role]}))
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    (bin_dir / 'run_setup_network.sh').write_text(
        '#!/bin/sh\necho "network of $NODE_NAME is set up"\n')
    (bin_dir / 'run_setup_network.sh').chmod(0o755)
    local = LocalTaskRunner(tmp_path / 'nodes', path=[str(bin_dir)])
    usage = tmp_path / 'usage.yaml'
    usage.write_text(fx.USAGE)
    access = tmp_path / 'access.yaml'
    access.write_text('nodes:\n' + ''.join(
        '  node-%d: {address: 127.0.0.1}\n' % i for i in range(1, 9)))
    key = tmp_path / 'key'
    key.write_text('not a real key')
    conductor_service = site_service.SiteActionService(
        'test-conductor', conductor_nodes.ConductorNodes(rpc),
        tasks=TaskExecution(TaskRunners([local]), 4))
    conductor_service.start()
    try:
        code, out = openstack(
            'site', 'action', 'create', 'deploy_site', '--task-graph', usage,
            '--skip', 'setup_services', '--access', access, '--ssh-key',
            key, '--wait', '--poll-interval', '0.05')
    finally:
        conductor_service.stop()
    assert code == 0, out
    assert out.splitlines()[1] == ('Warning: group "primary-controller": '
                                   'no node has role "primar-controller"')
    assert '\n  node-7 setup_network: success (' in out
    assert '| tasks network                <SUCCESS>' in out
    assert 'Partial run: skip setup_services' in out
    assert out.rstrip().endswith('Result: success')
    assert 'not a real key' not in out


def test_progress_shows_the_task_each_node_runs(graph_site):
    graph_site.add_roles({'all': ['n1', 'n2']})
    row = graph_site.start('- id: all\n  type: group\n'
                           '- id: work\n  type: shell\n  groups: [all]\n'
                           '  parameters: {cmd: "true"}\n')
    site_db.save_progress(row.id, 'test-host', tasks=[
        {'id': run.id, 'status': 'running'}
        for run in site_db.action_tasks(row.id)
        if run.node_uuid == graph_site.nodes.by_name('n2').node.uuid])
    terminal = Terminal()
    osc_actions.Progress(terminal).show(actions.action_report(row.uuid))
    assert terminal.written[0].splitlines()[-2:] == [
        'Nodes: 2 not started, 0 prepared, 0 success, 0 failure',
        '  n2: work']


def test_every_show_and_list_takes_the_output_formats():
    """Every site command that shows or lists takes ``-f json|yaml|table|
    value`` like the rest of ``openstack`` (a new one that does not would
    break scripts that parse it)."""
    from importlib.metadata import entry_points

    shown = []
    for ep in entry_points(group='openstack.site.v1'):
        verb = ep.name.rsplit('_', 1)[1]
        if verb not in ('list', 'show', 'status', 'filter') and \
                ep.name not in ('site_action_create', 'site_action_abort'):
            continue
        parser = ep.load()(app=None, app_args=None).get_parser(ep.name)
        formats = next(a.choices for a in parser._actions
                       if '-f' in a.option_strings)
        assert {'json', 'yaml', 'table', 'value'} <= set(formats), ep.name
        shown.append(ep.name)
    assert {'site_action_list', 'site_action_show', 'site_action_create',
            'site_action_abort', 'site_node_status', 'site_node_filter',
            'site_strategy_show'} <= set(shown)
