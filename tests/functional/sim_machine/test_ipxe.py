"""The simulated firmware's iPXE on the boot scripts of Ironic's layout
(``stand_ins``), with files served from a dictionary: fast, no
machines."""

from __future__ import annotations

import pytest

from tests.functional.fixtures.sim_machine import ipxe
from tests.functional.sim_machine import stand_ins

URL = 'http://boot.example'
MACS = ['52:54:00:00:00:01', '52:54:00:00:00:02']
KERNEL = b'{"simulated": "ironic-python-agent", "part": "kernel"}'

pytestmark = pytest.mark.functional


def _run(files: dict[str, bytes], waits: list | None = None
         ) -> tuple[ipxe.Outcome, list[str], list[str]]:
    """Run boot.ipxe: the outcome, the console, the URLs fetched."""
    console: list[str] = []
    fetched: list[str] = []

    def fetch(url: str, timeout: float) -> ipxe.Fetched:
        fetched.append(url)
        if url in files:
            return ipxe.Fetched(url, content=files[url])
        return ipxe.Fetched(url, error='404')

    def wait(seconds: float) -> bool:
        (waits if waits is not None else []).append(seconds)
        return True

    outcome = ipxe.IPXE({'platform': 'efi'}, MACS, 0, fetch,
                        console.append, wait).run(URL + '/boot.ipxe')
    return outcome, console, fetched


def _node_files(label: str = 'deploy', mac: str = MACS[1]) -> dict:
    script = stand_ins.NODE_SCRIPT.format(http_url=URL, node='node',
                                          append='ipa-api-url=http://api')
    script = script.replace('goto deploy\n', 'goto %s\n' % label, 1)
    return {URL + '/boot.ipxe': stand_ins.BOOT_SCRIPT.encode(),
            URL + '/pxelinux.cfg/' + mac.replace(':', '-'): script.encode(),
            URL + '/node/deploy_kernel': KERNEL,
            URL + '/node/deploy_ramdisk': b'ramdisk'}


def test_a_404_falls_through_to_the_next_nic_and_boots_its_kernel_line():
    outcome, console, fetched = _run(_node_files())
    assert outcome.kind == 'boot'
    assert outcome.kernel.content == KERNEL
    # ${mac} expanded with the NIC the machine booted from.
    assert outcome.cmdline == ('selinux=0 text ipa-api-url=http://api '
                               'BOOTIF=%s initrd=deploy_ramdisk' % MACS[0])
    assert [image.content for image in outcome.initrds] == [b'ramdisk']
    # net0's configuration answered 404, net1's was found.
    assert fetched[1:3] == [URL + '/pxelinux.cfg/52-54-00-00-00-01',
                            URL + '/pxelinux.cfg/52-54-00-00-00-02']
    assert 'PXE: chain %s/pxelinux.cfg/52-54-00-00-00-01 ... 404' % URL \
        in console


def test_a_missing_kernel_retries_then_powers_off():
    files = _node_files()
    del files[URL + '/node/deploy_kernel']
    waits: list = []
    outcome, console, _ = _run(files, waits)
    # "iseq ${try} ${tries} && goto give_up ||", "inc try", "sleep 1".
    assert outcome.kind == 'poweroff'
    assert waits == [1.0, 1.0, 1.0]


def test_the_whole_disk_label_sanboots_the_local_disk():
    outcome, _, _ = _run(_node_files(label='boot_whole_disk'))
    assert (outcome.kind, outcome.url) == ('sanboot', None)


def test_no_configuration_for_any_nic_fails_the_script():
    outcome, console, _ = _run({URL + '/boot.ipxe':
                                stand_ins.BOOT_SCRIPT.encode()})
    # "prompt --timeout" fails when nobody presses a key, which ends the
    # script before its "reboot", as in iPXE.
    assert outcome.kind == 'failed'
    assert 'iPXE: No boot configuration for this machine.' in console


def test_settings_expand_innermost_first():
    machine = ipxe.IPXE({'netid': '1'}, MACS, 0, None, None, None)
    assert machine.expand('${net${netid}/mac:hexhyp}') == \
        '52-54-00-00-00-02'
    assert machine.expand('${mac} ${unset}x') == MACS[0] + ' x'
