"""The runner against the in-memory site: every rule of the Process."""

from __future__ import annotations

from ironside.osc import report_text
from tests.unit.strategy import spec_flows
from tests.unit.strategy.conftest import run_action


def test_spec_all_success(spec_strategy, memory_site):
    result = run_action(memory_site)
    assert report_text.flow_text(result) == spec_flows.ALL_SUCCESS
    assert result['result'] == 'success'
    assert result['node_counts']['success'] == 14


def test_spec_ntp_prepare_fails(spec_strategy, memory_site):
    memory_site.by_name('ntp01').fail_prepare = True
    result = run_action(memory_site)
    assert report_text.flow_text(result) == spec_flows.NTP_PREPARE_FAILS
    assert result['result'] == 'failed: critical group ntp-node failed'


def test_spec_compute_2_deploy_fails(spec_strategy, memory_site):
    memory_site.by_name('cmp-r2-01').fail_deploy = True
    memory_site.by_name('cmp-r2-02').fail_deploy = True
    result = run_action(memory_site)
    assert report_text.flow_text(result) == spec_flows.COMPUTE_2_DEPLOY_FAILS
    assert result['result'] == 'success with some nodes or groups failed'
