"""Virtual media (1.89), firmware components (1.86), boot settings (1.76)
and indicators (1.63) of a redfish node, through the real openstacksdk,
the ``openstack baremetal`` CLI and the API, read back from sushy-tools'
emulator."""

from __future__ import annotations

import pytest
import requests

from tests.functional.bmc import helpers
from tests.functional.bmc.test_redfish import iso_url  # noqa: F401
from tests.functional.fixtures import clients
from tests.functional.fixtures import redfish_emulator
from tests.utils import wait_for

pytestmark = pytest.mark.functional


@pytest.fixture
def endpoint(rpc):  # noqa: F811
    with clients.serve_api(rpc) as url:
        yield url


def test_firmware_components_come_from_the_bmc(rpc, context, redfish,
                                               make_bmc_node, endpoint):
    node = make_bmc_node('redfish', redfish.driver_info(3))
    assert node.firmware_interface == 'redfish'
    helpers.to_available(rpc, context, node.uuid)
    sdk = clients.sdk_connection(endpoint)
    components = {c['component']: c for c in
                  sdk.baremetal.list_node_firmware(node.uuid)['firmware']}
    # What the emulator's system (BiosVersion) and manager
    # (FirmwareVersion) report.
    assert components['bios']['current_version'] == '1.0.0'
    assert components['bmc']['current_version'] == '1.00'
    assert components['bios']['initial_version'] == '1.0.0'
    cli = clients.InProcessCli(endpoint, 'baremetal')
    listed = cli('node', 'firmware', 'list', node.uuid, '-f', 'json')
    assert {(c['component'], c['current_version']) for c in listed} == {
        ('bios', '1.0.0'), ('bmc', '1.00')}


def test_virtual_media_attach_and_detach(rpc, context, redfish,
                                         make_bmc_node, endpoint,
                                         iso_url):  # noqa: F811
    node = make_bmc_node('redfish', redfish.driver_info(3))
    helpers.manage(rpc, context, node.uuid)
    sdk = clients.sdk_connection(endpoint)
    sdk.baremetal.attach_vmedia_to_node(node.uuid, 'cdrom', iso_url,
                                        image_download_source='http')
    image, _, inserted = redfish.state(3)['boot_image']['Cd']
    assert inserted and image
    sdk.baremetal.detach_vmedia_from_node(node.uuid, ['cdrom'])
    assert not redfish.state(3)['boot_image'].get('Cd', [None, 0, False])[2]


def test_boot_mode_and_secure_boot_through_the_api(rpc, context, redfish,
                                                   make_bmc_node, endpoint):
    """1.76: ``PUT .../states/boot_mode`` and ``.../secure_boot`` change
    what the emulated BMC reports, and the node records it."""
    node = make_bmc_node('redfish', redfish.driver_info(3))
    helpers.manage(rpc, context, node.uuid)
    redfish.configure(3, boot_mode='UEFI', secure_boot=False)
    sdk = clients.sdk_connection(endpoint)
    sdk.baremetal.set_node_secure_boot(node.uuid, True)
    wait_for(lambda: sdk.baremetal.get_node(node.uuid).is_secure_boot)
    assert redfish.state(3)['secure_boot'] is True
    sdk.baremetal.set_node_secure_boot(node.uuid, False)
    wait_for(lambda: sdk.baremetal.get_node(node.uuid).is_secure_boot
             is False)
    assert redfish.state(3)['secure_boot'] is False
    sdk.baremetal.set_node_boot_mode(node.uuid, 'bios')
    wait_for(lambda: sdk.baremetal.get_node(node.uuid).boot_mode == 'bios')
    assert redfish.state(3)['boot_mode'] == 'Legacy'
    assert sdk.baremetal.get_node(node.uuid).last_error is None


def test_system_indicator_through_the_api(rpc, context, redfish,
                                          make_bmc_node, endpoint):
    """1.63: the system's LED, named by its UUID, set through the API and
    read back from the emulated BMC's own Redfish answer."""
    node = make_bmc_node('redfish', redfish.driver_info(3))
    helpers.manage(rpc, context, node.uuid)
    uuid = redfish.systems[3]['uuid']
    http = requests.Session()
    http.headers['X-OpenStack-Ironic-API-Version'] = 'latest'
    path = endpoint + '/v1/nodes/%s/management/indicators' % node.uuid
    listed = http.get(path).json()['indicators']
    assert [(i['name'], i['readonly']) for i in listed] == [
        ('%s@system' % uuid, False)]
    indicator = '%s/%s@system' % (path, uuid)
    assert http.put(indicator, json={'state': 'BLINKING'}).status_code == 204
    system = requests.get(
        redfish.url + redfish.driver_info(3)['redfish_system_id'],
        auth=(redfish_emulator.USERNAME, redfish_emulator.PASSWORD),
        timeout=30).json()
    assert system['IndicatorLED'] == 'Blinking'
    assert http.get(indicator).json() == {'state': 'BLINKING'}
