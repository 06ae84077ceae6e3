"""wipe_local_storage on redfish nodes: ``openstack baremetal node clean
--clean-steps`` over HTTP, an in-process conductor, and sushy-tools'
emulator, whose drives (extended by the fixture) offer SecureErase; what
was erased is read back from the emulator."""

from __future__ import annotations

import json

import pytest

from tests.functional.bmc import helpers
from tests.functional.fixtures import clients
from tests.functional.fixtures import redfish_emulator

WIPE = {'interface': 'management', 'step': 'wipe_local_storage'}
STORAGE = redfish_emulator.STORAGE_ID


@pytest.fixture(scope='module')
def bmc():
    with redfish_emulator.RedfishEmulator(systems=3,
                                          prefix='wipe') as emulator:
        yield emulator


@pytest.fixture
def cli(rpc):
    with clients.serve_api(rpc) as endpoint:
        yield clients.InProcessCli(endpoint)


def _node(cli, bmc, index, *extra):
    name = 'wipe-%d' % index
    args = []
    for key, value in bmc.driver_info(index).items():
        args += ['--driver-info', '%s=%s' % (key, value)]
    cli('node', 'create', '--driver', 'redfish', '--name', name, *args,
        *extra)
    cli('node', 'manage', name, '--wait', '30')
    return name


def _clean(cli, name, **args):
    step = dict(WIPE, args=args) if args else WIPE
    return cli('node', 'clean', name, '--clean-steps', json.dumps([step]),
               '--wait', '60', check=False)


def test_every_drive_is_erased(cli, bmc):
    bmc.configure(0, task_delay=0.3)
    name = _node(cli, bmc, 0)
    assert not isinstance(_clean(cli, name), clients.CliFailed)
    node = cli('node', 'show', name, '-f', 'json')
    assert node['provision_state'] == 'manageable'
    assert sorted(bmc.state(0)['erased'][STORAGE]) == [
        'drive-0', 'drive-1', 'drive-2', 'drive-3']
    wiped = node['driver_internal_info']['wiped_disks']
    assert wiped['os_disk_only'] is False
    assert [d['name'] for d in wiped['disks']] == [
        'Drive 0', 'Drive 1', 'Drive 2', 'Drive 3']
    assert 'redfish_erase_tasks' not in node['driver_internal_info']


def test_preserve_local_storage_erases_the_os_disk_only(cli, bmc):
    name = _node(cli, bmc, 1, '--property',
                 'root_device={"name": "Drive 2"}')
    assert not isinstance(_clean(cli, name, preserve_local_storage=True),
                          clients.CliFailed)
    assert bmc.state(1)['erased'] == {STORAGE: ['drive-2']}
    node = cli('node', 'show', name, '-f', 'json')
    assert node['driver_internal_info']['wiped_disks'] == {
        'disks': [{'name': 'Drive 2', 'serial': '1234570', 'model': 'C123',
                   'vendor': 'Contoso', 'size': 900}],
        'os_disk_only': True}


def test_a_bmc_without_secure_erase_fails_clearly_and_erases_nothing(
        cli, bmc):
    bmc.configure(2, secure_erase=False)
    name = _node(cli, bmc, 2)
    failed = _clean(cli, name)
    assert isinstance(failed, clients.CliFailed)
    uuid = cli('node', 'show', name, '-f', 'json')['uuid']
    helpers.wait_state(uuid, 'clean failed')
    node = helpers.node(uuid)
    assert 'the BMC offers no Drive.SecureErase action for them' in \
        node.last_error
    assert 'Drive 0, Drive 1, Drive 2, Drive 3' in node.last_error
    assert not bmc.state(2).get('erased')
    assert 'wiped_disks' not in node.driver_internal_info
