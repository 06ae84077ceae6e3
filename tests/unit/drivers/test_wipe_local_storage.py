"""The wipe_local_storage clean step of fake hardware, run the way an
operator runs it: ``openstack baremetal node clean --clean-steps`` over
HTTP against the API and an in-process conductor."""

from __future__ import annotations

import json

import pytest

from tests.functional.fixtures import clients

WIPE = [{'interface': 'management', 'step': 'wipe_local_storage'}]
DISKS = [{'name': '/dev/sda', 'serial': 'S-A', 'size': 100},
         {'name': '/dev/sdb', 'serial': 'S-B', 'size': 900},
         {'name': '/dev/sdc', 'serial': 'S-C', 'size': 900}]


@pytest.fixture
def cli(rpc):
    with clients.serve_api(rpc) as endpoint:
        yield clients.InProcessCli(endpoint)


def _manageable(cli, name, *extra):
    cli('node', 'create', '--driver', 'fake-hardware', '--name', name,
        '--driver-info', 'fake_disks=%s' % json.dumps(DISKS), *extra)
    cli('node', 'manage', name, '--wait', '30')


def _wiped(cli, name):
    node = cli('node', 'show', name, '-f', 'json')
    return node['provision_state'], \
        node['driver_internal_info'].get('wiped_disks')


def test_wipes_every_disk_by_default(cli):
    _manageable(cli, 'wipe-all')
    cli('node', 'clean', 'wipe-all', '--clean-steps', json.dumps(WIPE),
        '--wait', '30')
    state, wiped = _wiped(cli, 'wipe-all')
    assert state == 'manageable'
    assert wiped == {'disks': DISKS, 'os_disk_only': False}


def test_preserve_local_storage_wipes_the_os_disk_only(cli):
    _manageable(cli, 'wipe-os', '--property',
                'root_device={"serial": "S-B"}')
    steps = [dict(WIPE[0], args={'preserve_local_storage': True})]
    cli('node', 'clean', 'wipe-os', '--clean-steps', json.dumps(steps),
        '--wait', '30')
    assert _wiped(cli, 'wipe-os') == ('manageable', {
        'disks': [DISKS[1]], 'os_disk_only': True})


def test_without_hints_the_first_disk_is_the_os_disk(cli):
    _manageable(cli, 'wipe-first')
    steps = [dict(WIPE[0], args={'preserve_local_storage': 'true'})]
    cli('node', 'clean', 'wipe-first', '--clean-steps', json.dumps(steps),
        '--wait', '30')
    assert _wiped(cli, 'wipe-first')[1] == {'disks': [DISKS[0]],
                                            'os_disk_only': True}


def test_hints_that_match_no_disk_wipe_nothing(cli):
    _manageable(cli, 'wipe-bad', '--property',
                'root_device={"serial": "NOPE"}')
    steps = [dict(WIPE[0], args={'preserve_local_storage': True})]
    failed = cli('node', 'clean', 'wipe-bad', '--clean-steps',
                 json.dumps(steps), '--wait', '30', check=False)
    assert isinstance(failed, clients.CliFailed)
    node = cli('node', 'show', 'wipe-bad', '-f', 'json')
    assert node['provision_state'] == 'clean failed'
    assert "no disk matches the root device hints {'serial': 'NOPE'}" in \
        node['last_error']
    assert 'wiped_disks' not in node['driver_internal_info']


def test_not_run_by_automated_cleaning(cli):
    _manageable(cli, 'wipe-auto')
    cli('node', 'provide', 'wipe-auto', '--wait', '30')
    assert _wiped(cli, 'wipe-auto') == ('available', None)
