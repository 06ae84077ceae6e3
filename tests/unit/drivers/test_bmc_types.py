"""The ipmi and redfish types: driver_info parsing and interfaces.

Nothing here talks to a BMC; tests/functional/bmc does.
"""

from __future__ import annotations

import types

import pytest

from ironside.common import exception
from ironside.drivers import factory
from ironside.drivers.modules.ipmi import common as ipmi_common
from ironside.drivers.modules.ramdisk import RamdiskDeploy
from ironside.drivers.modules.redfish import common as redfish_common


def _node(**driver_info):
    return types.SimpleNamespace(uuid='n-1', driver_info=driver_info)


def test_ipmi_driver_info_defaults(conf):
    conf.set('ipmi', command_retry_timeout=42)
    info = ipmi_common.parse_driver_info(_node(ipmi_address='10.0.0.9'))
    bmc = info.bmc
    assert (bmc.address, bmc.port, bmc.username, bmc.password,
            info.retry_timeout) == ('10.0.0.9', 623, '', '', 42)
    assert info.name == '10.0.0.9:623'
    assert 'password' not in repr(info)


@pytest.mark.parametrize('driver_info,message', [
    ({}, 'driver_info is missing ipmi_address'),
    ({'ipmi_address': 'h', 'ipmi_port': 0}, 'between 1 and 65535'),
    ({'ipmi_address': 'h', 'ipmi_port': '62x'}, 'must be a port number'),
    ({'ipmi_address': 'h', 'ipmi_retry_timeout': -1},
     'ipmi_retry_timeout must be more than 0'),
    ({'ipmi_address': 'h', 'ipmi_password': 5},
     'ipmi_password must be a string'),
])
def test_ipmi_driver_info_errors_name_the_key(driver_info, message):
    with pytest.raises(exception.InvalidParameterValue, match=message):
        ipmi_common.parse_driver_info(_node(**driver_info))


def test_redfish_driver_info_normalises_address_and_system():
    info = redfish_common.parse_driver_info(_node(
        redfish_address='bmc.example:8443/', redfish_system_id='abc',
        redfish_username='u', redfish_password='sekrit',
        redfish_verify_ca='False'))
    assert info.address == 'https://bmc.example:8443'
    assert info.system_id == '/redfish/v1/Systems/abc'
    assert info.verify_ca is False
    assert info.auth_type == 'auto'
    assert 'sekrit' not in repr(info)


@pytest.mark.parametrize('driver_info,message', [
    ({'redfish_username': 'u', 'redfish_password': 'p'},
     'missing redfish_address'),
    ({'redfish_address': 'ftp://x', 'redfish_username': 'u',
      'redfish_password': 'p'}, 'must be an http'),
    ({'redfish_address': 'x', 'redfish_password': 'p'},
     'missing redfish_username'),
    ({'redfish_address': 'x', 'redfish_username': 'u',
      'redfish_password': 'p', 'redfish_auth_type': 'kerberos'},
     'redfish_auth_type must be one of basic, session, auto'),
])
def test_redfish_driver_info_errors_name_the_key(driver_info, message):
    with pytest.raises(exception.InvalidParameterValue, match=message):
        redfish_common.parse_driver_info(_node(**driver_info))


def test_types_default_to_bmc_interfaces_and_accept_noop_ones(conductor):
    drivers = factory.get_factory()
    expected = {
        'ipmi': {'power': 'ipmitool', 'management': 'ipmitool',
                 'boot': 'pxe', 'deploy': 'ramdisk', 'bios': 'no-bios',
                 'raid': 'no-raid', 'console': 'no-console'},
        'redfish': {'power': 'redfish', 'management': 'redfish',
                    'boot': 'pxe', 'deploy': 'ramdisk', 'bios': 'redfish',
                    'raid': 'redfish', 'vendor': 'redfish',
                    'console': 'no-console'},
    }
    for hw_type, defaults in expected.items():
        for iface, name in defaults.items():
            assert drivers.default_interface(hw_type, iface) == name
    assert 'no-bios' in drivers.supported_interfaces('redfish', 'bios')
    assert 'fake' in drivers.supported_interfaces('ipmi', 'console')
    assert 'redfish-virtual-media' in drivers.supported_interfaces(
        'redfish', 'boot')
    assert 'redfish' not in drivers.supported_interfaces('ipmi', 'power')


def test_ramdisk_deploy_steps_are_the_documented_ones():
    steps = RamdiskDeploy().get_deploy_steps(None)
    assert [(s['step'], s['priority']) for s in steps] == [
        ('boot_instance', 20), ('deploy', 100),
        ('prepare_instance_boot', 60)]
    assert RamdiskDeploy().get_clean_steps(None) == []
