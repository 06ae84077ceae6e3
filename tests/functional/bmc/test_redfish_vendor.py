"""The redfish vendor interface's methods (Ironic's): ejecting virtual
media and managing event subscriptions, through openstacksdk's vendor
passthru, against sushy-tools' emulator (with the fixture's
EventService)."""

from __future__ import annotations

import pytest

from tests.functional.bmc import helpers
from tests.functional.bmc.test_redfish import iso_url  # noqa: F401
from tests.functional.fixtures import clients
from tests.utils import wait_for

pytestmark = pytest.mark.functional


@pytest.fixture
def endpoint(rpc):  # noqa: F811
    with clients.serve_api(rpc) as url:
        yield url


def test_eject_vmedia(rpc, context, redfish, make_bmc_node, endpoint,
                      iso_url):  # noqa: F811
    node = make_bmc_node('redfish', redfish.driver_info(2))
    helpers.manage(rpc, context, node.uuid)
    sdk = clients.sdk_connection(endpoint)
    methods = sdk.baremetal.list_node_vendor_passthru(node.uuid)
    assert set(methods) == {'eject_vmedia', 'create_subscription',
                            'delete_subscription', 'get_subscription',
                            'get_all_subscriptions'}
    sdk.baremetal.attach_vmedia_to_node(node.uuid, 'cdrom', iso_url,
                                        image_download_source='http')
    assert redfish.state(2)['boot_image']['Cd'][2]
    response = sdk.baremetal.call_node_vendor_passthru(
        node.uuid, 'POST', 'eject_vmedia', {'boot_device': 'floppy'})
    assert response.status_code == 202
    response = sdk.baremetal.call_node_vendor_passthru(
        node.uuid, 'POST', 'eject_vmedia', {'boot_device': 'cd'})
    assert response.status_code == 202
    wait_for(lambda: not redfish.state(2)['boot_image'].get(
        'Cd', [None, 0, False])[2], what='the CD to be ejected')
    with pytest.raises(Exception) as err:
        sdk.baremetal.call_node_vendor_passthru(
            node.uuid, 'POST', 'eject_vmedia', {'boot_device': 'tape'})
    assert 'Boot device tape is not a valid value' in str(err.value)


def test_event_subscriptions(rpc, context, redfish, make_bmc_node,
                             endpoint):
    node = make_bmc_node('redfish', redfish.driver_info(1))
    sdk = clients.sdk_connection(endpoint)

    def call(verb, method, body=None):
        return sdk.baremetal.call_node_vendor_passthru(node.uuid, verb,
                                                       method, body)
    created = call('POST', 'create_subscription', {
        'Destination': 'https://events.example.com:8443/redfish',
        'EventTypes': ['Alert', 'StatusChange'], 'Context': 'rack 4'})
    assert created.status_code == 200
    subscription = created.json()
    assert subscription == {
        'Id': subscription['Id'], 'Context': 'rack 4', 'Protocol': 'Redfish',
        'Destination': 'https://events.example.com:8443/redfish',
        'EventTypes': ['Alert', 'StatusChange']}
    assert call('GET', 'get_subscription',
                {'id': subscription['Id']}).json() == subscription
    listed = call('GET', 'get_all_subscriptions').json()
    assert listed['Members@odata.count'] == 1
    assert listed['Members'][0]['@odata.id'].endswith(
        '/Subscriptions/%s' % subscription['Id'])
    for body, message in (
            ({'Destination': 'not a uri'},
             'Destination not a uri is not a valid URI'),
            ({'Destination': 'https://e.example.com', 'EventTypes': ['Boo']},
             "EventTypes ['Boo'] is not a valid value")):
        with pytest.raises(Exception) as err:
            call('POST', 'create_subscription', body)
        assert message in str(err.value)
    assert call('DELETE', 'delete_subscription',
                {'id': subscription['Id']}).status_code == 200
    assert call('GET', 'get_all_subscriptions').json()[
        'Members@odata.count'] == 0
    with pytest.raises(Exception) as err:
        call('DELETE', 'delete_subscription', {'id': subscription['Id']})
    assert 'Event subscription %s could not be found' % subscription['Id'] \
        in str(err.value)
