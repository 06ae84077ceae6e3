"""The report: the spec's flow, details, and the live view."""

from __future__ import annotations

from ironside.db import site_models
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy import progress as site_progress
from ironside.strategy.run import abort
from ironside.strategy.run import node_flow
from ironside.strategy.run import report
from tests.unit.strategy.conftest import run_action
from tests.unit.strategy.conftest import run_partly


def test_details_of_a_failed_run(spec_strategy, memory_site):
    memory_site.by_name('ntp01').fail_prepare = True
    text = report_text.text(run_action(memory_site))
    assert '''
Groups:
  ntp-node (critical): 1 nodes; prepare failed: criteria \
(minimum_successful_nodes needed 1, actual 0); deploy failed: prepare
  control-nodes (critical): 4 nodes; prepare failed: dependency (ntp-node); \
deploy failed: dependency (ntp-node)
  monitoring-nodes: 2 nodes; prepare success; deploy success
''' in text
    assert '\nNodes: 11 not started, 0 prepared, 2 success, 1 failure\n' in \
        text
    assert '\n  ntp01      failure: cleaning failed: fake prepare failure\n' \
        in text
    assert text.endswith('\nResult: failed: critical group ntp-node failed')


def test_report_json(spec_strategy, memory_site):
    result = run_action(memory_site)
    assert result['action'] == 'deploy_site'
    assert result['strategy'] == 'deployment-strategy'
    assert result['state'] == 'finished'
    ntp = result['groups'][0]
    assert ntp == {'name': 'ntp-node', 'critical': True, 'nodes': ['ntp01'],
                   'depends_on': [], 'strategy': {'type': 'parallel'},
                   'prepare': {'result': 'success'},
                   'deploy': {'result': 'success'}}
    edges = {g['name']: g['depends_on'] for g in result['groups']}
    assert edges == {'ntp-node': [], 'monitoring-nodes': [],
                     'control-nodes': ['ntp-node'],
                     'compute-nodes-1': ['control-nodes'],
                     'compute-nodes-2': ['control-nodes']}
    assert result['nodes'][0]['status'] == 'success'
    assert result['node_counts'] == {'not started': 0, 'prepared': 0,
                                     'success': 14, 'failure': 0}


def test_live_report(spec_strategy, memory_site):
    row = run_partly(memory_site, 8)
    live = actions.action_report(row.uuid)
    assert live['state'] == 'running'
    assert live['result'] is None
    text = report_text.flow_text(live)
    assert text.startswith('''Start
|
| prepare ntp-node           <SUCCESS>
| deploy ntp-node            <SUCCESS>
V
| prepare control-nodes      <RUNNING ''')
    assert text.endswith('''
| prepare compute-nodes-1    <PENDING>
| deploy compute-nodes-1     <PENDING>
|
(running)''')
    control = live['groups'][1]
    assert control['prepare']['result'] == 'running'
    assert control['prepare']['total'] == 4
    assert control['deploy'] == {'result': 'pending'}


def test_queued_report(spec_strategy, memory_site):
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    queued = actions.action_report(row.uuid)
    assert queued['state'] == 'queued'
    assert [g['name'] for g in queued['groups']] == [
        'ntp-node', 'control-nodes', 'monitoring-nodes', 'compute-nodes-2',
        'compute-nodes-1']
    assert report_text.flow_text(queued).endswith('|\n(queued)')


def test_client_text_knows_the_report_vocabulary():
    """The client renders the report without importing server modules;
    its words must be the server's."""
    assert report_text.STATUSES == report.STATUSES
    results = {site_progress.SUCCESS, site_progress.FAILED_CRITERIA,
               site_progress.FAILED_TIMEOUT, site_progress.FAILED_PREPARE,
               site_progress.FAILED_DEPENDENCY, site_progress.PENDING,
               abort.ABORTED}
    assert set(report_text._LABELS) == results
    assert set(report_text._FINISH) == {site_progress.ACTION_SUCCESS,
                                        site_progress.ACTION_PARTIAL}
    assert report_text.RUNNING == report.RUNNING
    assert report_text.FINISHED == site_models.FINISHED
    assert report_text.ABORTED == site_models.ABORTED
    assert report_text.ENDED == site_models.ENDED
    assert (report_text.PREPARE, report_text.DEPLOY) == (node_flow.PREPARE,
                                                         node_flow.DEPLOY)
