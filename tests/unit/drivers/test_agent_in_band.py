"""How an in-band step is judged from what the agent reports (its command
list) and from the clock: the agent's API itself is exercised by the
functional tests, with the real agent."""

from __future__ import annotations

import datetime
import types

import pytest

from ironside.common import exception
from ironside.drivers.modules.agent import in_band

STEP = {'interface': 'deploy', 'step': 'write_image'}


def _ago(seconds: float) -> str:
    return (datetime.datetime.now(datetime.timezone.utc) -
            datetime.timedelta(seconds=seconds)).isoformat()


def _node(**info):
    return types.SimpleNamespace(uuid='n-1', driver_internal_info=info)


def test_a_step_running_past_its_timeout_fails(conf):
    conf.set('agent', step_timeout=60)
    in_band._check_timeout(_node(agent_step_started_at=_ago(30)), STEP)
    with pytest.raises(exception.AgentTimeout) as error:
        in_band._check_timeout(_node(agent_step_started_at=_ago(61)), STEP)
    assert 'deploy.write_image' in str(error.value)
    assert error.value.failure_reason == 'AgentTimeout'
    conf.set('agent', step_timeout=0)
    in_band._check_timeout(_node(agent_step_started_at=_ago(1e6)), STEP)


def test_heartbeats_stop_after_their_timeout(conf):
    conf.set('api', ramdisk_heartbeat_timeout=20)
    assert not in_band._heartbeats_stopped(
        _node(agent_last_heartbeat=_ago(5)))
    assert in_band._heartbeats_stopped(_node(agent_last_heartbeat=_ago(25)))
    assert in_band._heartbeats_stopped(_node())


def test_cached_steps_take_the_operators_priorities(conf):
    cached = {'agent_cached_clean_steps': {'deploy': [
        {'interface': 'deploy', 'step': 'erase_devices', 'priority': 10,
         'abortable': True},
        {'interface': 'deploy', 'step': 'erase_devices_metadata',
         'priority': 99, 'abortable': True}]}}
    steps = {s['step']: s for s in in_band.cached_steps(
        _node(**cached), 'clean', 'deploy')}
    # erase_devices (whole disks overwritten) only when asked for.
    assert steps['erase_devices']['priority'] == 0
    assert steps['erase_devices_metadata']['priority'] == 99
    assert steps['erase_devices']['abortable'] is True
    conf.set('deploy', erase_devices_priority=5,
             erase_devices_metadata_priority=0)
    steps = {s['step']: s for s in in_band.cached_steps(
        _node(**cached), 'clean', 'deploy')}
    assert steps['erase_devices']['priority'] == 5
    assert steps['erase_devices_metadata']['priority'] == 0
    # Deploy steps keep the agent's own.
    assert in_band.cached_steps(_node(**cached), 'deploy', 'deploy') == []


def test_what_the_agent_is_sent_masks_secrets():
    node = types.SimpleNamespace(
        uuid='n-1', name='n', driver='ipmi', properties={},
        instance_info={'image_source': 'http://i', 'configdrive': 'BIG',
                       'image_url_password': 'x'},
        driver_info={'ipmi_password': 'secret'},
        driver_internal_info={'agent_secret_token': 't'}, extra={},
        instance_uuid=None, resource_class=None, boot_mode=None,
        target_raid_config={}, raid_config={})
    record = in_band.node_record(node)
    assert record['driver_info']['ipmi_password'] == '******'
    assert record['driver_internal_info']['agent_secret_token'] == '******'
    assert 'configdrive' not in record['instance_info']
    assert record['instance_info']['image_url_password'] == '******'
