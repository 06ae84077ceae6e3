"""The runner against Ironside's conductor, on fake hardware.

Failures come from fake-hardware's driver_info knobs, as an operator
would cause them: a failing clean step fails prepare (automated cleaning
runs on provide), a failing deploy step fails deploy.
"""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.db import deploy_templates as templates_db
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from ironside.osc import report_text
from ironside.strategy import actions
from ironside.strategy.nodes import conductor as conductor_nodes
from tests import utils
from tests.unit.strategy import spec_flows
from tests.unit.strategy.conftest import INVENTORY
from tests.unit.strategy.conftest import node_values
from tests.unit.strategy.conftest import run_action

FAIL_CLEANING = {'fake_fail_steps': ['deploy.erase_devices_metadata']}
FAIL_DEPLOY = {'fake_fail_steps': ['deploy.write_image']}


@pytest.fixture
def site(rpc, context):
    """Enroll the example site; returns {name: uuid}."""
    def _enroll(driver_info=None):
        driver_info = driver_info or {}
        uuids = {}
        for entry in INVENTORY['nodes']:
            values = utils.fake_node_values(**node_values(entry))
            values['driver_info'] = driver_info.get(entry['name'], {})
            uuids[entry['name']] = rpc.create_node(context, values)
        return uuids
    return _enroll


@pytest.fixture
def nodes(rpc):
    return conductor_nodes.ConductorNodes(rpc)


def _states(uuids):
    return {name: nodes_db.get_node(uuid).provision_state
            for name, uuid in uuids.items()}


def test_spec_all_success(spec_strategy, site, nodes):
    uuids = site()
    result = run_action(nodes)
    assert report_text.flow_text(result) == spec_flows.ALL_SUCCESS
    assert set(_states(uuids).values()) == {states.ACTIVE}


def test_spec_ntp_prepare_fails(spec_strategy, site, nodes):
    uuids = site({'ntp01': FAIL_CLEANING})
    result = run_action(nodes)
    assert report_text.flow_text(result) == spec_flows.NTP_PREPARE_FAILS
    assert result['result'] == 'failed: critical group ntp-node failed'
    found = _states(uuids)
    assert found['ntp01'] == states.CLEANFAIL
    assert found['mon01'] == found['mon02'] == states.ACTIVE
    # Groups that failed due to dependency were never attempted.
    assert found['ctl01'] == found['cmp-r1-01'] == states.ENROLL
    ntp = next(n for n in result['nodes'] if n['name'] == 'ntp01')
    assert ntp['status'] == 'failure'
    assert 'deploy.erase_devices_metadata' in ntp['reason']


def test_spec_compute_2_deploy_fails(spec_strategy, site, nodes):
    uuids = site({'cmp-r2-01': FAIL_DEPLOY, 'cmp-r2-02': FAIL_DEPLOY})
    result = run_action(nodes)
    assert report_text.flow_text(result) == spec_flows.COMPUTE_2_DEPLOY_FAILS
    assert result['result'] == 'success with some nodes or groups failed'
    compute_2 = next(g for g in result['groups']
                     if g['name'] == 'compute-nodes-2')
    assert compute_2['deploy']['criteria'] == [{
        'criterion': 'percent_successful_nodes', 'needed': 50,
        'actual': 33.33}]
    found = _states(uuids)
    assert found['cmp-r2-01'] == states.DEPLOYFAIL
    assert found['cmp-r2-03'] == states.ACTIVE


def test_active_nodes_are_not_redeployed(spec_strategy, site, nodes, rpc,
                                         context):
    uuids = site()
    run_action(nodes)
    deploys = {name: _deploy_starts(uuid) for name, uuid in uuids.items()}
    assert set(deploys.values()) == {1}
    result = run_action(nodes, action='update_site')
    assert report_text.flow_text(result) == spec_flows.ALL_SUCCESS
    assert {name: _deploy_starts(uuid)
            for name, uuid in uuids.items()} == deploys


def _deploy_starts(uuid):
    node = nodes_db.get_node(uuid)
    return sum(1 for h in history_db.list_for_node(node.id)
               if h.event == 'Deploy step deploy.deploy started')


def test_no_free_conductor_worker_is_retried(spec_strategy, site, nodes,
                                             conductor, conf):
    """A full worker pool answers 503; the runner asks again later."""
    site()
    # Take every worker slot but one, so most requests are refused at once.
    held = []
    while conductor._slots.acquire(blocking=False):
        held.append(1)
    conductor._slots.release()
    held.pop()
    try:
        result = run_action(nodes)
    finally:
        for _ in held:
            conductor._slots.release()
    assert report_text.flow_text(result) == spec_flows.ALL_SUCCESS


def test_second_action_on_overlapping_nodes_is_refused(spec_strategy, site,
                                                        nodes):
    site()
    first = actions.create_action(nodes, 'deploy_site',
                                  'deployment-strategy')
    with pytest.raises(exception.SiteActionConflict) as err:
        actions.create_action(nodes, 'update_site', 'deployment-strategy')
    assert first.uuid in str(err.value)
    assert 'cmp-r1-01' in str(err.value)
    assert err.value.code == 409


def test_group_deploy_templates_and_steps(db, site, nodes, rpc, context):
    """A group's deploy templates and steps reach the conductor's deploy."""
    templates_db.create({'name': 'CUSTOM_BIOS', 'steps': [
        {'interface': 'bios', 'step': 'apply_configuration', 'priority': 150,
         'args': {'settings': [{'name': 'HT', 'value': 'off'}]}}]})
    actions.create_strategy({
        'schema': 'ironside/DeploymentStrategy/v1',
        'metadata': {'name': 'bios'},
        'data': {'groups': [
            {'name': 'ntp', 'critical': False, 'depends_on': [],
             'selectors': [{'node_names': ['ntp01']}],
             'deploy_templates': ['CUSTOM_BIOS'],
             'deploy_steps': [{'interface': 'bios', 'step': 'factory_reset',
                               'priority': 160}]},
            {'name': 'monitoring', 'critical': False, 'depends_on': [],
             'selectors': [{'node_tags': ['monitoring']}],
             'deploy_templates': ['CUSTOM_MISSING']}]}})
    uuids = site()
    result = run_action(nodes, 'bios')
    ntp = nodes_db.get_node(uuids['ntp01'])
    assert ntp.provision_state == states.ACTIVE
    # factory_reset (160) ran before apply_configuration (150).
    assert ntp.driver_internal_info['bios_settings'] == {'HT': 'off'}
    mon = next(n for n in result['nodes'] if n['name'] == 'mon01')
    assert mon['status'] == 'failure'
    assert mon['reason'] == \
        'deploy refused: deploy template CUSTOM_MISSING not found'
