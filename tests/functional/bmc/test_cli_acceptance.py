"""Acceptance: ``openstack baremetal`` drives an emulated Redfish system
and an emulated IPMI BMC through a real Ironside HTTP server, and what it
did is read back from the BMCs themselves, not from Ironside's database.

The CLI runs in this process (``openstackclient.shell.main``) to save a
Python start per command; Ironside runs as its own all-in-one process.
"""

from __future__ import annotations

import json

import pytest
import requests
from pyghmi.ipmi import command as ipmi_command

from tests.functional.fixtures import clients
from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import redfish_emulator
from tests.utils import wait_for

pytestmark = pytest.mark.functional

TEMPLATE_STEPS = [{'interface': 'bios', 'step': 'apply_configuration',
                   'args': {'settings': [{'name': 'ProcTurboMode',
                                          'value': 'Disabled'}]},
                   'priority': 90}]


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    """All-in-one Ironside with short BMC timings, shared by the module."""
    yield from ironside_process.serve(
        tmp_path_factory.mktemp('cli-acceptance'),
        options={'DEFAULT': {'enabled_hardware_types':
                             'fake-hardware,ipmi,redfish'},
                 'conductor': {'automated_clean': False},
                 'ipmi': {'power_poll_interval': 0.05,
                          'retry_interval': 0.1, 'validate_timeout': 2},
                 'redfish': {'power_poll_interval': 0.05,
                             'task_poll_interval': 0.1,
                             'server_side_retries': 0,
                             'connection_attempts': 2,
                             'connection_retry_interval': 0.1}})


def openstack(server, *args: str, fails: bool = False):
    """``openstack baremetal <args>``: parsed JSON with -f json, else the
    output; with ``fails``, the error output of a command that failed."""
    result = clients.InProcessCli(server.endpoint)(*args, check=not fails)
    if fails:
        assert isinstance(result, clients.CliFailed), result
        return result.stderr
    return result


def _driver_info_args(info: dict) -> list[str]:
    args = []
    for key, value in info.items():
        args += ['--driver-info', '%s=%s' % (key, value)]
    return args


def _create(server, name, driver, info, *extra):
    return openstack(server, 'node', 'create', '--driver', driver, '--name',
                     name, *_driver_info_args(info), *extra, '-f', 'json')


def _redfish_system(redfish, index, path=''):
    response = requests.get(
        redfish.url + redfish.driver_info(index)['redfish_system_id'] + path,
        auth=(redfish_emulator.USERNAME, redfish.password), timeout=10)
    response.raise_for_status()
    return response.json()


@pytest.fixture
def ipmi_client(ipmi):
    """pyghmi's client on the first BMC, as an operator's tool connects
    (one session for the test: pyghmi reuses a logged-out one)."""
    bmc = ipmi.bmcs[0]
    client = ipmi_command.Command(bmc=bmc.address, userid=bmc.username,
                                  password=bmc.password, port=bmc.port)
    yield client
    client.ipmi_session.logout()


def _wait_field(server, name, field, value, timeout=60):
    def _node():
        node = openstack(server, 'node', 'show', name, '-f', 'json')
        return node if node[field] == value else None

    return wait_for(_node, timeout=timeout, interval=0.2,
                    what='node %s %s to be %s' % (name, field, value))


def test_wrong_password_is_named_and_leaves_the_node_in_enroll(
        server, redfish, ipmi):
    # IPMI checks the credentials before the node moves: a 400.
    _create(server, 'ipmi-bad', 'ipmi',
            ipmi.bmcs[1].driver_info(ipmi_password='wrong!'))
    error = openstack(server, 'node', 'manage', 'ipmi-bad', fails=True)
    assert 'rejected the credentials of user "admin"' in error
    assert 'HTTP 400' in error
    assert 'wrong!' not in error
    node = openstack(server, 'node', 'show', 'ipmi-bad', '-f', 'json')
    assert (node['provision_state'], node['target_provision_state'],
            node['last_error'], node['reservation']) == \
        ('enroll', None, None, None)
    # Redfish asks no BMC before the 202: verification fails, back to
    # enroll, naming the BMC and the user.
    _create(server, 'rf-bad', 'redfish',
            redfish.driver_info(1, redfish_password='wrong!'))
    openstack(server, 'node', 'manage', 'rf-bad')

    def _failed():
        node = openstack(server, 'node', 'show', 'rf-bad', '-f', 'json')
        return node if node['failure_reason'] and \
            node['reservation'] is None else None

    node = wait_for(_failed, timeout=30, interval=0.2,
                    what='verification of rf-bad to fail')
    assert (node['provision_state'], node['target_provision_state'],
            node['failure_reason']) == ('enroll', None, 'InvalidInput')
    assert node['last_error'] == (
        'Failed to verify node: Redfish BMC %s rejected the credentials '
        'of user "admin"' % redfish.url)


def _power(server, names, state: str) -> None:
    """``node power <state>`` on each node, then wait for all to show it."""
    for name in names:
        openstack(server, 'node', 'power', state, name)
    for name in names:
        _wait_field(server, name, 'power_state', 'power %s' % state)


def test_enroll_manage_power_boot_device_and_deploy(server, redfish, ipmi,
                                                    ipmi_client):
    bmc = ipmi.bmcs[0]
    _create(server, 'rf-1', 'redfish', redfish.driver_info(0))
    _create(server, 'ipmi-1', 'ipmi', bmc.driver_info())
    for name in ('rf-1', 'ipmi-1'):
        openstack(server, 'node', 'manage', name, '--wait', '60')

    _power(server, ('rf-1', 'ipmi-1'), 'on')
    assert _redfish_system(redfish, 0)['PowerState'] == 'On'
    assert ipmi_client.get_power()['powerstate'] == 'on'

    for name in ('rf-1', 'ipmi-1'):
        openstack(server, 'node', 'boot', 'device', 'set', name, 'pxe',
                  '--persistent')
    boot = _redfish_system(redfish, 0)['Boot']
    assert (boot['BootSourceOverrideTarget'],
            boot['BootSourceOverrideEnabled']) == ('Pxe', 'Continuous')
    bootdev = ipmi_client.get_bootdev()
    assert (bootdev['bootdev'], bootdev['persistent']) == ('network', True)

    _power(server, ('rf-1', 'ipmi-1'), 'off')
    assert _redfish_system(redfish, 0)['PowerState'] == 'Off'
    assert ipmi_client.get_power()['powerstate'] == 'off'

    openstack(server, 'deploy', 'template', 'create', 'CUSTOM_TURBO_OFF',
              '--steps', json.dumps(TEMPLATE_STEPS))
    openstack(server, 'node', 'add', 'trait', 'rf-1', 'CUSTOM_TURBO_OFF')
    assert _redfish_system(redfish, 0, '/BIOS')['Attributes'][
        'ProcTurboMode'] == 'Enabled'
    for name in ('rf-1', 'ipmi-1'):
        openstack(server, 'node', 'provide', name, '--wait', '60')
    for name in ('rf-1', 'ipmi-1'):
        openstack(server, 'node', 'deploy', name)
    for name in ('rf-1', 'ipmi-1'):
        node = _wait_field(server, name, 'provision_state', 'active',
                           timeout=120)
        assert node['last_error'] is None

    system = _redfish_system(redfish, 0)
    assert system['PowerState'] == 'On'
    assert _redfish_system(redfish, 0, '/BIOS')['Attributes'][
        'ProcTurboMode'] == 'Disabled'
    assert ipmi_client.get_power()['powerstate'] == 'on'
    assert ipmi_client.get_bootdev()['bootdev'] == 'hd'
