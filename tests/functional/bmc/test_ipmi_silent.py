"""One BMC that never answers only ever holds up its own node (issue 17,
finding 3). The silent peers are real: a UDP port nobody answers on, and
a pyghmi BMC asked for a user it does not have."""

from __future__ import annotations

import concurrent.futures
import socket
import time

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.drivers.modules.ipmi import sessions as ipmi_sessions
from tests.functional.bmc import helpers
from tests.functional.fixtures import ipmi_bmc
from tests.utils import wait_for


@pytest.fixture
def silent_port():
    """A UDP port on 127.0.0.1 that receives and never answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(('127.0.0.1', 0))
    yield sock.getsockname()[1]
    sock.close()


def _silent_info(port):
    return {'ipmi_address': '127.0.0.1', 'ipmi_port': port,
            'ipmi_username': 'admin', 'ipmi_password': 'password',
            'ipmi_retry_timeout': 3}


@pytest.fixture(params=['no-answer', 'unknown-user'])
def silent_info(request, silent_port):
    """A BMC that never answers: a silent port, or a pyghmi BMC of its
    own process that ignores logins of unknown users, asked for a user it
    does not have."""
    if request.param == 'no-answer':
        yield _silent_info(silent_port)
        return
    with ipmi_bmc.IPMIBMCs(1, prefix='lonely') as own:
        own.configure('lonely-0', ignore_unknown_users=True)
        yield own.bmcs[0].driver_info(ipmi_username='nobody',
                                      ipmi_retry_timeout=3)


def test_manage_of_a_silent_bmc_fails_in_bounded_time(
        rpc, context, ipmi, make_bmc_node, silent_info):
    silent = make_bmc_node('ipmi', silent_info)
    healthy = make_bmc_node('ipmi', ipmi.bmcs[0].driver_info())
    started = time.monotonic()
    try:
        rpc.do_provisioning_action(context, silent.uuid, 'manage')
    except exception.IronsideException:
        pass  # refused at once is bounded too
    helpers.manage(rpc, context, healthy.uuid)
    wait_for(lambda: helpers.node(silent.uuid).provision_state in
             (states.ENROLL, states.MANAGEABLE) and
             helpers.node(silent.uuid).reservation is None, timeout=45,
             what='the silent node to settle')
    assert time.monotonic() - started < 45
    node = helpers.node(silent.uuid)
    if node.provision_state == states.ENROLL:
        assert node.last_error


def test_calls_for_a_silent_bmc_do_not_hold_the_conductor(
        rpc, context, ipmi, make_bmc_node, silent_port):
    silent = make_bmc_node('ipmi', _silent_info(silent_port))
    healthy = make_bmc_node('ipmi', ipmi.bmcs[0].driver_info())

    def _boot_device(uuid):
        began = time.monotonic()
        try:
            rpc.get_boot_device(context, uuid)
            outcome = 'answered'
        except exception.IronsideException as exc:
            outcome = exc.message
        return time.monotonic() - began, outcome

    with concurrent.futures.ThreadPoolExecutor(40) as pool:
        stuck = [pool.submit(_boot_device, silent.uuid) for _ in range(40)]
        # Once the silent BMC is busy, the healthy one must still answer.
        wait_for(lambda: any(
            turns.lock.locked() for bmc, turns in
            ipmi_sessions.SESSIONS._turns.items() if bmc.port == silent_port),
            timeout=10, what='a call to be waiting on the silent BMC')
        took, outcome = _boot_device(healthy.uuid)
        assert outcome == 'answered'
        assert took < 5
        results = [f.result(timeout=60) for f in stuck]
    assert max(t for t, _ in results) < 20, results
    assert all(o != 'answered' for _, o in results)
