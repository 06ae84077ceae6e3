"""A supervisor that dies without cleaning up leaves nothing behind: its
disks detach themselves (autoclear) and its agents die with it (their
namespace's first process gets SIGKILL when the supervisor's thread
goes). Apart from the module of the shared machines, so that it runs
beside them."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

from tests.functional.fixtures.sim_machine import bmc_client
from tests.functional.fixtures.sim_machine import file_server
from tests.functional.fixtures.sim_machine import host
from tests.functional.fixtures.sim_machine import machines
from tests.functional.sim_machine import stand_ins
from tests.utils import wait_for

pytestmark = pytest.mark.functional


def test_killing_the_supervisor_leaves_nothing(tmp_path):
    before = host.host_snapshot()
    work_dir = tmp_path / 'machines'
    sims = machines.SimulatedMachines(work_dir, count=1, bmc='ipmi')
    sims.start()
    machine = sims[0]
    with file_server.FileServer(tmp_path) as files:
        stand_ins.write_ipxe_boot(
            tmp_path, files.url, 'node', machine.macs, sims.deploy_kernel,
            sims.deploy_ramdisk, 'ipa-api-url=http://127.0.0.1:9')
        sims.set_boot_script_url(files.url + '/boot.ipxe')
        client = bmc_client.BmcClient(machine.driver_info())
        client.boot('network')
        client.close()
        wait_for(lambda: 'Starting ironic-python-agent' in
                 machine.agent_log(), timeout=30, what='the agent')
        # A crashed agent comes back, as its service restarts it.
        machine.kill_agent()
        wait_for(lambda: machine.agent_log().count(
            'Starting ironic-python-agent') == 2, timeout=30,
            what='the agent to restart')
        assert 'agent killed' in machine.console_log()
    assert host.our_processes(work_dir) and \
        pathlib.Path(machine.disk_path).exists()
    # Killed without a chance to clean up: the disks detach themselves
    # (autoclear) and the BMC process follows its parent.
    subprocess.run(['kill', '-9', str(sims.supervisor_pid)], check=True)
    wait_for(lambda: not host.our_processes(work_dir), timeout=30,
             interval=0.1, what='processes to end')
    sims.stop()
    host.assert_host_untouched(before, stopped_work_dir=work_dir)
