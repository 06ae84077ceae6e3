"""The simulated machines' boot loader: each boot's agent is forked from a
process that has the agent's libraries imported, but not the agent,
which reads its boot's kernel command line as it is imported."""

from __future__ import annotations

import json
import re
import signal

import pytest

from tests.functional.fixtures.sim_machine import bmc_client
from tests.functional.fixtures.sim_machine import file_server
from tests.functional.fixtures.sim_machine import host
from tests.functional.fixtures.sim_machine import ipa_venv
from tests.functional.fixtures.sim_machine import machines
from tests.functional.sim_machine import stand_ins
from tests.utils import wait_for

pytestmark = pytest.mark.functional


def test_the_loader_preloads_the_libraries_but_none_of_the_agent():
    venv = ipa_venv.ensure()
    names = json.loads(ipa_venv.preload_file(venv).read_text())
    assert {'oslo_config.cfg', 'oslo_concurrency.processutils',
            'requests', 'werkzeug'} <= set(names)
    assert not [name for name in names if name.split('.')[0] in (
        'ironic_python_agent', 'simulated_hardware')]


def _ignored_signals(pid: int) -> set[int]:
    with open('/proc/%d/status' % pid) as status:
        mask = int(next(line for line in status
                        if line.startswith('SigIgn:')).split()[1], 16)
    return {number for number in range(1, 65) if mask & 1 << (number - 1)}


def _agent_pid(machine: machines.Machine) -> int:
    """The namespace's first process: the child of the one the loader
    reported."""
    outside = machine.state()['agent']['pid']
    with open('/proc/%d/task/%d/children' % (outside, outside)) as children:
        return int(children.read().split()[0])


def test_each_boot_reads_its_own_kernel_line(tmp_path):
    before = host.host_snapshot()
    work_dir = tmp_path / 'machines'
    sims = machines.SimulatedMachines(work_dir, count=1, bmc='redfish')
    sims.start()
    try:
        machine = sims[0]
        with file_server.FileServer(tmp_path) as files:
            sims.set_boot_script_url(files.url + '/boot.ipxe')
            client = bmc_client.BmcClient(machine.driver_info())
            for boot, port in enumerate((9, 19), start=1):
                stand_ins.write_ipxe_boot(
                    tmp_path, files.url, 'node', machine.macs,
                    sims.deploy_kernel, sims.deploy_ramdisk,
                    'ipa-api-url=http://127.0.0.1:%d' % port)
                client.boot('network')
                pattern = re.compile(r'api_url\s+= http://127\.0\.0\.1:%d '
                                     % port)
                wait_for(lambda pattern=pattern: len(pattern.findall(
                    machine.agent_log())) == 1, timeout=30,
                    what='boot %d of the agent' % boot)
                # As in any Python program, a write to a closed socket is
                # an error, not a SIGPIPE that kills the agent.
                assert signal.SIGPIPE in _ignored_signals(_agent_pid(machine))
            client.close()
        log = machine.agent_log()
        assert log.count(' agent starts: ') == 2
    finally:
        sims.stop()
    host.assert_host_untouched(before, stopped_work_dir=work_dir)
