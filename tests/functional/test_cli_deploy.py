"""The real ``openstack baremetal`` CLI against a real Ironside process."""

from __future__ import annotations

import json
import time

import pytest

from tests.functional.fixtures.clients import CliFailed
from tests.utils import wait_for

pytestmark = pytest.mark.functional

STEPS = [
    {'interface': 'bios', 'step': 'apply_configuration',
     'args': {'settings': [{'name': 'HyperThreading', 'value': 'off'}]},
     'priority': 150},
]
# The deploy's steps by index: the requested one first (priority 150).
ORDER = [('bios', 'apply_configuration'), ('deploy', 'deploy'),
         ('deploy', 'write_image'), ('deploy', 'prepare_instance_boot'),
         ('deploy', 'boot_instance')]


def _show(ironside, name: str) -> dict:
    return ironside.cli('node', 'show', name, '-f', 'json')


def _watch_deploy_with_cli(ironside, name: str, timeout: float = 120
                           ) -> list:
    """(interface, step, index) that ``node show`` shows while deploying.

    Stops once it has seen two steps: each step lasts seconds, longer than
    one CLI call even on a busy machine.
    """
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        node = _show(ironside, name)
        if node['provision_state'] not in ('deploying', 'wait call-back'):
            return seen
        step = node['deploy_step']
        index = node['driver_internal_info'].get('deploy_step_index')
        entry = (step.get('interface'), step.get('step'), index)
        if step and entry not in seen:
            seen.append(entry)
        if len(seen) >= 2:
            return seen
    raise AssertionError('still deploying after %ss; saw %s' % (timeout,
                                                                seen))


def test_deploy_with_steps_and_undeploy(ironside):
    node = ironside.cli('node', 'create', '--driver', 'fake-hardware',
                        '--name', 'cli-1', '--resource-class', 'baremetal',
                        '--property', 'memory_mb=4096', '-f', 'json')
    assert node['provision_state'] == 'enroll'
    ironside.cli('node', 'manage', 'cli-1', '--wait', '60')
    ironside.cli('node', 'provide', 'cli-1', '--wait', '60')
    assert _show(ironside, 'cli-1')['provision_state'] == 'available'
    ironside.cli('node', 'set', 'cli-1', '--driver-info',
                 'fake_step_delays={"bios.apply_configuration": 8, '
                 '"deploy.deploy": 8}')
    ironside.cli('node', 'deploy', 'cli-1', '--deploy-steps',
                 json.dumps(STEPS))
    seen = _watch_deploy_with_cli(ironside, 'cli-1')
    # Two different steps, each at its index, in the deploy's order.
    assert len(seen) == 2, seen
    assert [(i, s) for i, s, _ in seen] == \
        [ORDER[index] for _, _, index in seen]
    assert seen[0][2] < seen[1][2]
    wait_for(lambda: ironside.api('GET', '/v1/nodes/cli-1')[1][
        'provision_state'] == 'active', timeout=120, interval=0.2)
    node = _show(ironside, 'cli-1')
    assert node['provision_state'] == 'active'
    assert node['deploy_step'] == {}
    assert node['power_state'] == 'power on'
    settings = ironside.cli('node', 'bios', 'setting', 'list', 'cli-1',
                            '-f', 'json')
    assert settings == [{'name': 'HyperThreading', 'value': 'off'}]
    ironside.cli('node', 'undeploy', 'cli-1', '--wait', '60')
    node = _show(ironside, 'cli-1')
    assert node['provision_state'] == 'available'
    assert node['instance_info'] == {}


def test_a_failing_step_fails_the_deploy_naming_it(ironside):
    ironside.cli('node', 'create', '--driver', 'fake-hardware',
                 '--name', 'cli-2')
    ironside.cli('node', 'manage', 'cli-2', '--wait', '60')
    ironside.cli('node', 'provide', 'cli-2', '--wait', '60')
    ironside.cli('node', 'set', 'cli-2', '--driver-info',
                 'fake_fail_steps=deploy.boot_instance')
    with pytest.raises(CliFailed) as failure:
        ironside.cli('node', 'deploy', 'cli-2', '--wait', '60')
    assert 'deploy failed' in failure.value.stderr
    node = _show(ironside, 'cli-2')
    assert node['provision_state'] == 'deploy failed'
    assert node['deploy_step']['step'] == 'boot_instance'
    assert node['deploy_step']['interface'] == 'deploy'
    assert 'deploy.boot_instance' in node['last_error']
    assert node['failure_reason'] == 'StepFailed'
