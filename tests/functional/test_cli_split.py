"""The operator's flow through the real CLI with the API and two
conductors in separate processes, over RabbitMQ, on PostgreSQL and on
MariaDB."""

from __future__ import annotations

import concurrent.futures
import json
import time

import pytest

from tests.functional.fixtures import services

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

ORDER = [('deploy', 'deploy'), ('bios', 'apply_configuration'),
         ('deploy', 'write_image'), ('deploy', 'prepare_instance_boot'),
         ('deploy', 'boot_instance')]
STEPS = [{'interface': 'bios', 'step': 'apply_configuration',
          'priority': 90,
          'args': {'settings': [{'name': 'HT', 'value': 'off'}]}}]
DELAYS = {'deploy.deploy': 1, 'bios.apply_configuration': 2,
          'deploy.write_image': 2, 'deploy.prepare_instance_boot': 1}


def _watch_steps(api, name, timeout=90):
    """(index, interface, step) seen through the API while deploying.

    Watching starts before the deploy is asked for (the CLI may take
    seconds to start on a loaded machine, and the steps last 6 s in all),
    so ``available`` means "not started yet".
    """
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, node = api.api('GET', '/v1/nodes/%s' % name)
        assert status == 200, node
        if node['provision_state'] == 'available':
            time.sleep(0.05)
            continue
        if node['provision_state'] not in ('deploying', 'wait call-back'):
            return seen, node
        index = node['driver_internal_info'].get('deploy_step_index')
        step = node['deploy_step']
        entry = (index, step.get('interface'), step.get('step'))
        if step and entry not in seen:
            seen.append(entry)
        time.sleep(0.05)
    raise AssertionError('still deploying after %ss: %s' % (timeout, seen))


def _enroll(api, name, driver_info):
    api.cli('node', 'create', '--driver', 'fake-hardware', '--name', name,
            '--driver-info', 'fake_step_delays=%s' % json.dumps(
                driver_info.get('fake_step_delays', {})),
            '--driver-info', 'fake_fail_steps=%s' % json.dumps(
                driver_info.get('fake_fail_steps', [])))
    api.cli('node', 'manage', name, '--wait', '60')
    api.cli('node', 'provide', name, '--wait', '60')


def test_deploy_watch_fail_and_undeploy_over_rabbitmq(split):
    split.start_conductor('conductor-a')
    split.start_conductor('conductor-b')
    api = split.start_api()
    _enroll(api, 'good', {'fake_step_delays': DELAYS})
    _enroll(api, 'bad', {'fake_fail_steps': ['deploy.write_image']})

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        asked = pool.submit(api.cli, 'node', 'deploy', 'good',
                            '--deploy-steps', json.dumps(STEPS))
        seen, node = _watch_steps(api, 'good')
        asked.result()
    assert node['provision_state'] == 'active', node['last_error']
    assert [(i, s) for _, i, s in seen] == [ORDER[n] for n, _, _ in seen]
    indexes = [n for n, _, _ in seen]
    assert indexes == sorted(indexes) and len(set(indexes)) >= 3
    shown = api.cli('node', 'show', 'good', '-f', 'json')
    assert shown['provision_state'] == 'active'
    assert shown['deploy_step'] == {}
    assert shown['conductor'] in ('conductor-a', 'conductor-b')

    api.cli('node', 'deploy', 'bad', '--wait', '60', check=False)
    failed = api.cli('node', 'show', 'bad', '-f', 'json')
    assert failed['provision_state'] == 'deploy failed'
    assert failed['deploy_step']['step'] == 'write_image'
    assert 'deploy.write_image' in failed['last_error']
    assert failed['failure_reason'] == 'StepFailed'

    api.cli('node', 'undeploy', 'good', '--wait', '60')
    api.cli('node', 'undeploy', 'bad', '--wait', '60')
    for name in ('good', 'bad'):
        node = api.cli('node', 'show', name, '-f', 'json')
        assert node['provision_state'] == 'available'
        assert node['reservation'] is None
