"""How many requests the redfish driver sends the BMC (sushy-tools'
emulator, in its own process, counts them): within one task the System
read for one call is reused by the next, unless something changed it;
power is always confirmed by a fresh read."""

from __future__ import annotations

import pytest

from ironside.common import states
from ironside.drivers.modules.redfish import common as redfish_common
from tests.functional.fixtures import redfish_emulator
from tests.utils import fake_node_values

MAC = '52:54:00:ab:cd:10'


@pytest.fixture(scope='module')
def redfish():
    with redfish_emulator.RedfishEmulator(systems=1) as emulator:
        yield emulator


@pytest.fixture(autouse=True)
def fast_redfish(conf):
    conf.set('redfish', power_poll_interval=0.05, server_side_retries=0,
             connection_attempts=2, connection_retry_interval=0.1,
             connect_timeout=2, read_timeout=10)


@pytest.fixture
def node(rpc, context, conductor, redfish, tmp_path, conf):
    """A redfish node, off, booted by iPXE into the agent."""
    conf.set('deploy', http_root=str(tmp_path / 'httpboot'),
             http_url='http://192.0.2.1/b',
             image_cache=str(tmp_path / 'cache'))
    conf.set('agent', api_url='http://192.0.2.1:6385')
    kernel = tmp_path / 'ipa.kernel'
    ramdisk = tmp_path / 'ipa.initramfs'
    kernel.write_text('kernel')
    ramdisk.write_text('ramdisk')
    info = redfish.driver_info(0, deploy_kernel=str(kernel),
                               deploy_ramdisk=str(ramdisk))
    uuid = rpc.create_node(context, fake_node_values(
        driver='redfish', driver_info=info, deploy_interface='direct',
        boot_interface='ipxe'))
    rpc.create_port(context, uuid, {'address': MAC})
    redfish.configure(0, power_state='Off', boot_device='Hdd')
    redfish_common.CONNECTIONS.clear()
    with conductor.acquire(context, uuid, purpose='connect') as task:
        task.driver.power.get_power_state(task)  # the connection is made
    yield uuid
    redfish_common.CONNECTIONS.clear()


def _requests(redfish, conductor, context, uuid, work):
    """The Redfish requests ``work(task)`` sends, in one task."""
    with conductor.acquire(context, uuid, purpose='count') as task:
        task.driver.power.get_power_state(task)  # read once
        redfish.reset_stats()
        work(task)
    return redfish.stats()['requests']


def test_power_on_after_a_read_reuses_it(redfish, conductor, context, node):
    """Read (off) → reset → confirm: no second read before the reset."""
    def work(task):
        assert task.driver.power.get_power_state(task) == states.POWER_OFF
        task.driver.power.set_power_state(task, states.POWER_ON)

    # GET (off?), POST reset, GET (on?): was GET, GET + POST, GET.
    assert _requests(redfish, conductor, context, node, work) == 3
    assert redfish.state(0)['power_state'] == 'On'


def test_power_is_confirmed_by_the_bmc(redfish, conductor, context, node):
    """A read after a reset goes to the BMC, whatever was read before."""
    def work(task):
        power = task.driver.power
        power.set_power_state(task, states.POWER_ON)
        redfish.configure(0, power_state='Off')  # behind the task's back
        assert power.get_power_state(task) == states.POWER_OFF

    # reuse, POST, GET (on), GET (off)
    assert _requests(redfish, conductor, context, node, work) == 3


def test_boot_device_after_a_read_reuses_it(redfish, conductor, context,
                                            node):
    def work(task):
        task.driver.power.get_power_state(task)
        task.driver.management.set_boot_device(task, 'pxe')

    # GET, GET of the boot settings, PATCH: was GET, GET, GET, PATCH.
    assert _requests(redfish, conductor, context, node, work) == 3
    assert redfish.state(0)['boot_device'] == 'Pxe'


def test_reset_after_a_boot_device_change_uses_the_power_read(
        redfish, conductor, context, node):
    """Setting the boot device does not change the power state: the
    power-on that follows acts on the power read before it."""
    def work(task):
        task.driver.management.set_boot_device(task, 'pxe')
        task.driver.power.set_power_state(task, states.POWER_ON)

    # settings GET + PATCH; POST; GET (on?): was 3 + GET, POST, GET.
    assert _requests(redfish, conductor, context, node, work) == 4
    assert redfish.state(0)['power_state'] == 'On'
    assert redfish.state(0)['boot_device'] == 'Pxe'


def test_deploy_step_boots_the_agent_in_five_requests(
        redfish, conductor, context, node):
    """deploy.deploy from off: power off (already), iPXE boot device,
    power on, confirm."""
    # The task's first read is done by _requests; from a new task it is
    # one more GET. Was 7 (GET; GET, GET, PATCH; GET, POST; GET).
    with conductor.acquire(context, node, purpose='deploy') as task:
        redfish.reset_stats()
        task.driver.deploy.deploy(task)
    assert redfish.stats()['requests'] == 5
    assert redfish.state(0)['power_state'] == 'On'
    assert redfish.state(0)['boot_device'] == 'Pxe'


@pytest.mark.parametrize('target,start,expected', [
    (states.POWER_ON, 'Off', 3),
    (states.POWER_OFF, 'On', 3),
    (states.REBOOT, 'On', 3),
])
def test_power_action_in_its_own_task(redfish, conductor, context, node,
                                      target, start, expected):
    """A power action as the API asks for it: read (and reset), then
    confirm — nothing to reuse in a new task."""
    redfish.configure(0, power_state=start)
    with conductor.acquire(context, node, purpose='power') as task:
        redfish.reset_stats()
        if target == states.REBOOT:
            task.driver.power.reboot(task)
        else:
            task.driver.power.set_power_state(task, target)
    assert redfish.stats()['requests'] == expected


def test_boot_device_in_its_own_task(redfish, conductor, context, node):
    with conductor.acquire(context, node, purpose='boot') as task:
        redfish.reset_stats()
        task.driver.management.set_boot_device(task, 'pxe', persistent=True)
    assert redfish.stats()['requests'] == 3
    assert redfish.state(0)['boot_device'] == 'Pxe'


def test_a_write_makes_the_next_call_read_again(redfish, conductor, context,
                                                node):
    """After setting the boot mode (a PATCH) the boot device is set on a
    System read again; the power-on after both still acts on the power
    read first, as neither changes the power."""
    def work(task):
        management = task.driver.management
        management.set_boot_mode(task, 'uefi')
        management.set_boot_device(task, 'pxe')
        task.driver.power.set_power_state(task, states.POWER_ON)

    # settings GET + PATCH; GET, settings GET, PATCH; POST; GET (on?)
    assert _requests(redfish, conductor, context, node, work) == 7
    assert redfish.state(0)['boot_device'] == 'Pxe'
    assert redfish.state(0)['power_state'] == 'On'


def test_a_read_older_than_the_reuse_window_is_read_again(
        redfish, conductor, context, node, monkeypatch):
    monkeypatch.setattr(redfish_common, 'REUSE_WITHIN', 0.0)

    def work(task):
        task.driver.power.set_power_state(task, states.POWER_ON)

    # GET (off?), POST, GET (on?)
    assert _requests(redfish, conductor, context, node, work) == 3
