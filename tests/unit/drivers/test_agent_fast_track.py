"""When [deploy]fast_track uses an agent left running: the agent's record
and the clock decide, and the BMC's word that the machine is on. What the
agent then does is in the functional tests, with the real agent."""

from __future__ import annotations

import datetime
import types

from ironside.common import states
from ironside.drivers.modules.agent import ramdisk


def _ago(seconds: float) -> str:
    return (datetime.datetime.now(datetime.timezone.utc) -
            datetime.timedelta(seconds=seconds)).isoformat()


class _Power:
    def __init__(self, state: str) -> None:
        self.state = state
        self.reads = 0

    def get_power_state(self, task):
        self.reads += 1
        return self.state


def _task(power: str = states.POWER_ON, **info):
    node = types.SimpleNamespace(uuid='n-1', driver_internal_info=info)
    driver = types.SimpleNamespace(power=_Power(power))
    return types.SimpleNamespace(node=node, driver=driver)


def _running(**extra):
    return dict({'agent_url': 'https://127.0.0.1:9999',
                 'agent_secret_token': 't' * 43,
                 'agent_last_heartbeat': _ago(10)}, **extra)


def test_off_by_default(conf):
    task = _task(**_running())
    assert not ramdisk.fast_track_agent(task)
    assert task.driver.power.reads == 0
    assert task.node.driver_internal_info['agent_url']


def test_a_recent_agent_on_a_machine_that_is_on_is_used(conf):
    conf.set('deploy', fast_track=True)
    task = _task(**_running())
    assert ramdisk.fast_track_agent(task)
    assert task.node.driver_internal_info['agent_secret_token'] == 't' * 43


def test_an_agent_not_to_be_used_is_forgotten(conf):
    conf.set('deploy', fast_track=True, fast_track_timeout=60)
    for task in (_task(**_running(agent_last_heartbeat=_ago(61))),
                 _task(power=states.POWER_OFF, **_running()),
                 _task(**_running(agent_last_heartbeat='not a time'))):
        assert not ramdisk.fast_track_agent(task)
        assert 'agent_url' not in task.node.driver_internal_info
        assert 'agent_secret_token' not in task.node.driver_internal_info


def test_no_agent_or_no_token_boots_again(conf):
    conf.set('deploy', fast_track=True)
    assert not ramdisk.fast_track_agent(_task())
    info = _running()
    del info['agent_secret_token']
    task = _task(**info)
    assert not ramdisk.fast_track_agent(task)
    assert task.driver.power.reads == 0


def test_heartbeat_age():
    assert ramdisk.heartbeat_age(_task().node) is None
    age = ramdisk.heartbeat_age(_task(agent_last_heartbeat=_ago(30)).node)
    assert age is not None and 29 < age < 60
