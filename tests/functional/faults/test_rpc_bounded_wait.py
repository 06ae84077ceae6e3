"""A stopped broker: every request that needs a conductor answers 503
within [api]rpc_response_timeout (its default, 10 s), saying which
conductor cannot be reached and through which broker, and a call so
refused is not sent when the broker comes back.

Issue 26: during a 19 s RabbitMQ outage, requests hung 25-31 s (then
202: sent when the broker came back) or 81 s (then 503). An API process
that had made no call before the outage hung until the broker was back.

One ``ironside-conductor`` and two ``ironside-api`` processes over a
private RabbitMQ node (the machine's shared one stays up), sharing a
SQLite file.
"""

from __future__ import annotations

import concurrent.futures
import json
import pathlib
import re
import tempfile
import time

import pytest

from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import private_services
from tests.functional.fixtures import processes
from tests.functional.fixtures import services
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, pytest.mark.faults]

# The default of [api]rpc_response_timeout, which the processes keep.
RPC_RESPONSE_TIMEOUT = 10
# Seconds a request may take beyond it on a loaded CI machine.
SLACK = 3


@pytest.fixture
def split_over_private_broker(tmp_path):
    """(api, fresh_api, rabbit): ``api`` has called the conductor before
    the test begins, ``fresh_api`` never has."""
    ok, why = private_services.available()
    services.require(ok, why)
    rabbit = private_services.PrivateRabbitMQ(
        pathlib.Path(tempfile.mkdtemp(prefix='ironside-rmq-')))
    sections = ironside_process.split_sections(
        rabbit.url, services.unique_exchange(),
        'sqlite:///%s' % (tmp_path / 'ironside.sqlite'))
    # The conductor's reconnections, 1 s apart once the broker is back
    # rather than up to oslo.messaging's 30 s.
    sections['oslo_messaging_rabbit'] = {'rabbit_interval_max': 1}
    (tmp_path / 'fresh').mkdir()
    conductor = processes.IronsideProcess(
        'ironside-conductor',
        ironside_process.host_config(tmp_path, sections, 'conductor-a'),
        tmp_path, 'conductor-a')
    apis = [ironside_process.SplitApi(path, sections)
            for path in (tmp_path, tmp_path / 'fresh')]
    try:
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            for future in [pool.submit(rabbit.start), pool.submit(
                    ironside_process.upgrade_database, tmp_path, sections)]:
                future.result()
            conductor.start()
            for future in [pool.submit(api.start) for api in apis]:
                future.result()
        api, fresh = apis

        def _alive():
            assert conductor.running, conductor.log()
            return [c['hostname'] for c in api.api(
                'GET', '/v1/conductors')[1]['conductors'] if c['alive']] \
                == ['conductor-a']

        wait_for(_alive, timeout=60, interval=0.2,
                 what='conductor-a to register')
        yield api, fresh, rabbit
    finally:
        processes.stop_all([conductor] + [api.process for api in apis])
        rabbit.close()


def _timed(client, method, path, body=None):
    started = time.monotonic()
    status, answer = client.api(method, path, body)
    return status, answer, time.monotonic() - started


def _fault(answer) -> str:
    return json.loads(answer['error_message'])['faultstring']


def _until_answered(client, method, path, body=None, timeout=60):
    """Ask again while the answer is 503 (the conductor reconnecting)."""
    return wait_for(lambda: (lambda s, a: (s, a) if s != 503 else None)(
        *client.api(method, path, body)), timeout=timeout, interval=0.2,
        what='%s %s to be answered' % (method, path))


def test_a_stopped_broker_is_a_prompt_503_naming_the_conductor(
        split_over_private_broker):
    api, fresh, rabbit = split_over_private_broker
    status, node = api.api('POST', '/v1/nodes', {
        'driver': 'fake-hardware', 'name': 'over-private-broker'})
    assert status == 201, node
    path = '/v1/nodes/over-private-broker'

    rabbit.stop()
    asked = {
        'power on': (api, 'PUT', path + '/states/power',
                     {'target': 'power on'}),
        'boot device': (api, 'GET', path + '/management/boot_device'),
        'boot device, fresh API': (fresh, 'GET',
                                   path + '/management/boot_device'),
    }
    with concurrent.futures.ThreadPoolExecutor(len(asked)) as pool:
        answers = {name: pool.submit(_timed, *request)
                   for name, request in asked.items()}
        # What needs no conductor is answered meanwhile.
        status, shown, took = _timed(api, 'GET', path)
        assert (status, shown['name'], took < 2) == (
            200, 'over-private-broker', True)
        answers = {name: future.result() for name, future in answers.items()}

    expected = re.compile(
        r'Conductor conductor-a can not be reached at message broker '
        r'127\.0\.0\.1:%d \((.+)\); please retry\.' % rabbit.port)
    for name, (status, answer, took) in answers.items():
        assert status == 503, (name, answer)
        assert expected.fullmatch(_fault(answer)), (name, _fault(answer))
        assert took < RPC_RESPONSE_TIMEOUT + SLACK, (name, took)
    assert 'guest' not in json.dumps([a for _s, a, _t in answers.values()])

    rabbit.start()
    # Back: both API processes reach the conductor again, and the power
    # on refused during the outage was never sent.
    assert _until_answered(fresh, 'GET', path + '/management/boot_device'
                           )[0] == 200
    assert _until_answered(api, 'PUT', path + '/states/power',
                           {'target': 'power off'})[0] == 202
    wait_for(lambda: api.api('GET', path)[1]['target_power_state'] is None,
             what='the power action to end')
    history = api.api('GET', path + '/history')[1]['history']
    assert [h['event'] for h in history if 'Power state' in h['event']] \
        == ['Power state changed to power off']
