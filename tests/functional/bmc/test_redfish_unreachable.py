"""A Redfish BMC that cannot be reached or does not answer (issue 26).

Before: a synchronous read of a BMC that refuses connections took 68 s
(sushy retried each request itself, inside each of our five attempts),
so the API answered 503 "No conductor answered in time", and manage and
power waited for a BMC probe before their 202. Now the read answers
within the documented budget with the BMC named, and the actions are
accepted before any BMC is asked.
"""

from __future__ import annotations

import re
import time

import pytest

from ironside.api import app as api_app
from ironside.common import states
from tests.functional.bmc import helpers
from tests.functional.fixtures import services
from tests.unit.api.conftest import ApiClient
from tests.unit.api.conftest import error_of
from tests.utils import wait_for

pytestmark = pytest.mark.functional

# Seconds an action may take to be accepted: it asks no BMC.
ACCEPTED_WITHIN = 1.5


@pytest.fixture
def api(rpc):
    return ApiClient(api_app.build_app(rpc))


@pytest.fixture
def refusing_node(make_bmc_node):
    """A redfish node whose BMC address refuses connections."""
    address = 'http://127.0.0.1:%d' % services.free_port()
    node = make_bmc_node('redfish', {
        'redfish_address': address, 'redfish_username': 'admin',
        'redfish_password': 'secret-pw'})
    return node, address


def _timed(request):
    started = time.monotonic()
    response = request()
    return response, time.monotonic() - started


def test_a_read_names_the_refusing_bmc_within_the_budget(conf, api,
                                                         refusing_node):
    # The defaults: 3 attempts, 1 s apart.
    conf.set('redfish', connection_attempts=3, connection_retry_interval=1.0,
             connect_timeout=5.0)
    node, address = refusing_node
    response, took = _timed(lambda: api.get(
        '/v1/nodes/%s/management/boot_device' % node.uuid))
    assert response.status_code == 503
    assert re.fullmatch(
        r'BMC %s cannot be reached: get boot device: Connection refused '
        r'\(3 attempt\(s\) in 2\.\ds\)' % re.escape(address),
        error_of(response)), error_of(response)
    assert response.headers['Retry-After']
    assert 'secret-pw' not in response.text
    assert 2.0 <= took < 4.0
    assert helpers.node(node.uuid).reservation is None


def test_power_and_manage_are_accepted_before_the_bmc_is_asked(
        api, refusing_node):
    node, address = refusing_node
    refused = 'Connection refused (2 attempt(s) in '
    unreachable = 'BMC %s cannot be reached: ' % address

    response, took = _timed(lambda: api.put(
        '/v1/nodes/%s/states/power' % node.uuid, {'target': 'power on'}))
    assert response.status_code == 202, response.text
    assert took < ACCEPTED_WITHIN
    after = helpers.wait_power_settled(node.uuid)
    assert after.last_error.startswith(
        'Failed to change power state to "power on": ' + unreachable +
        'set power state to power on: ' + refused)
    assert after.failure_reason == 'BMCUnreachable'

    response, took = _timed(lambda: api.put(
        '/v1/nodes/%s/states/provision' % node.uuid, {'target': 'manage'}))
    assert response.status_code == 202, response.text
    assert took < ACCEPTED_WITHIN
    wait_for(lambda: helpers.node(node.uuid).last_error.startswith(
        'Failed to verify node: BMC %s cannot be reached' % address),
        what='verification to fail')
    helpers.wait_state(node.uuid, states.ENROLL)
    after = helpers.node(node.uuid)
    assert after.failure_reason == 'BMCUnreachable'
    assert unreachable + 'read power state: ' + refused in after.last_error


def test_a_hung_bmc_is_read_once(conf, api, redfish, make_bmc_node):
    """A BMC that takes the connection and answers nothing may have
    acted on the request: it is not asked again; the read fails after
    one read_timeout, naming the BMC. Once it answers again, so do
    reads."""
    conf.set('redfish', read_timeout=1.0)
    node = make_bmc_node('redfish', redfish.driver_info(0))
    assert api.get('/v1/nodes/%s/management/boot_device'
                   % node.uuid).status_code == 200
    redfish.pause()
    try:
        response, took = _timed(lambda: api.get(
            '/v1/nodes/%s/management/boot_device' % node.uuid))
    finally:
        redfish.resume()
    assert response.status_code == 503
    assert error_of(response) == (
        'BMC %s did not answer: get boot device: no answer within 1.0s'
        % redfish.url)
    assert 1.0 <= took < 2.5
    assert api.get('/v1/nodes/%s/management/boot_device'
                   % node.uuid).status_code == 200
