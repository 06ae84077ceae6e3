"""The example step plugin's redfish variant, on an emulated BMC."""

from __future__ import annotations

import requests

from ironside.common import states
from ironside.db import history as history_db
from ironside.drivers import factory
from tests.functional.bmc import helpers
from tests.functional.fixtures import redfish_emulator


def _indicator_led(redfish, index):
    response = requests.get(
        redfish.url + redfish.driver_info(index)['redfish_system_id'],
        auth=(redfish_emulator.USERNAME, redfish_emulator.PASSWORD),
        timeout=10)
    response.raise_for_status()
    return response.json()['IndicatorLED']


def test_plugin_step_sets_the_identify_led_last(rpc, context, redfish,
                                                make_bmc_node):
    drivers = factory.get_factory()
    assert 'example-redfish' in drivers.supported_interfaces('redfish',
                                                             'vendor')
    assert drivers.default_interface('redfish', 'vendor') == 'redfish'
    node = make_bmc_node('redfish', redfish.driver_info(0),
                         vendor_interface='example-redfish')
    helpers.to_available(rpc, context, node.uuid)
    assert _indicator_led(redfish, 0) != 'Blinking'

    rpc.do_node_deploy(context, node.uuid)
    helpers.wait_state(node.uuid, states.ACTIVE)

    assert _indicator_led(redfish, 0) == 'Blinking'
    node = helpers.node(node.uuid)
    assert node.extra['identify_led'] == 'blinking'
    started = [h.event for h in history_db.list_for_node(node.id)
               if h.event.endswith(' started')]
    assert started[-2:] == ['Deploy step deploy.boot_instance started',
                            'Deploy step vendor.identify_deployed started']
