"""Power state sync over emulated BMCs: one full pass, timed.

    python benchmarks/power_sync.py [--redfish 200] [--ipmi 50]
                                    [--emulators 4] [--no-health]

Starts the Redfish systems (spread over --emulators sushy-tools
processes, i.e. that many BMC endpoints) and the IPMI BMCs (one process,
one UDP port each), enrols one node per system in a temporary SQLite
database, and runs the conductor's power sync job once in this process
with the configured limits. Prints the wall time of the pass, how many
nodes it read, and the peak number of power reads in flight against the
BMCs (counted around each driver call, and for Redfish also by the
emulators). Each read also reads the hardware health unless
--no-health ([conductor]sync_hardware_health). A first pass opens the
sessions; the figures are for a second, warm pass, as every pass after
a conductor's first is.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from ironside.common import context as ironside_context  # noqa: E402
from ironside.common import states  # noqa: E402
from ironside.common.conf import CONF  # noqa: E402
from ironside.conductor import manager as conductor_manager  # noqa: E402
from ironside.conductor import periodics  # noqa: E402
from ironside.db import migration  # noqa: E402
from ironside.db import nodes as nodes_db  # noqa: E402
from ironside.db import session as db_session  # noqa: E402
from ironside.drivers.modules.ipmi import power as ipmi_power  # noqa: E402
from ironside.drivers.modules.redfish import power as rf_power  # noqa: E402
from tests.functional.fixtures import ipmi_bmc  # noqa: E402
from tests.functional.fixtures import redfish_emulator  # noqa: E402


class InFlight:
    """Counts power reads in flight, wrapping the interfaces' read."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0
        self.calls = 0

    def wrap(self, cls) -> None:
        read = cls.get_power_state

        def counted(iface, task):
            with self.lock:
                self.now += 1
                self.calls += 1
                self.peak = max(self.peak, self.now)
            try:
                return read(iface, task)
            finally:
                with self.lock:
                    self.now -= 1
        cls.get_power_state = counted

    def reset(self) -> None:
        with self.lock:
            self.peak = self.calls = 0


def _configure(db_path: str) -> None:
    CONF([], project='ironside', default_config_files=[])
    CONF.set_override('connection', 'sqlite:///%s' % db_path, 'database')
    CONF.set_override('rpc_transport', 'local')
    CONF.set_override('host', 'bench-conductor')
    for name in ('heartbeat_interval', 'takeover_interval',
                 'check_provision_state_interval'):
        CONF.set_override(name, 3600, 'conductor')
    CONF.set_override('sync_power_state_interval', 0, 'conductor')
    CONF.set_override('server_side_retries', 0, 'redfish')
    db_session.dispose()
    migration.upgrade()


def _enrol(manager, driver: str, driver_infos: list[dict]) -> None:
    context = ironside_context.get_admin_context()
    for info in driver_infos:
        uuid = manager.create_node(context, {
            'driver': driver, 'driver_info': info,
            'resource_class': 'baremetal'})
        node = nodes_db.get_node(uuid)
        node.provision_state = states.MANAGEABLE
        nodes_db.save_node(node)


def _timed_pass(manager) -> float:
    started = time.monotonic()
    periodics.sync_power_states(manager)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--redfish', type=int, default=200)
    parser.add_argument('--ipmi', type=int, default=50)
    parser.add_argument('--emulators', type=int, default=4)
    parser.add_argument('--no-health', action='store_true',
                        help='read the power state only')
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix='ironside-bench-')
    _configure(os.path.join(workdir, 'ironside.sqlite'))
    CONF.set_override('sync_hardware_health', not args.no_health,
                      'conductor')
    per_emulator = -(-args.redfish // args.emulators)
    emulators = []
    bmcs = ipmi_bmc.IPMIBMCs(args.ipmi, prefix='bench')
    manager = None
    try:
        remaining = args.redfish
        for index in range(args.emulators):
            count = min(per_emulator, remaining)
            remaining -= count
            if count:
                emulators.append(redfish_emulator.RedfishEmulator(
                    systems=count, prefix='bench%d' % index).start())
        bmcs.start()
        manager = conductor_manager.ConductorManager('bench-conductor')
        manager.init_host()
        for emulator in emulators:
            _enrol(manager, 'redfish', [emulator.driver_info(i) for i in
                                        range(len(emulator.systems))])
        _enrol(manager, 'ipmi', [bmc.driver_info() for bmc in bmcs.bmcs])

        counter = InFlight()
        counter.wrap(rf_power.RedfishPower)
        counter.wrap(ipmi_power.IPMIPower)
        cold = _timed_pass(manager)
        counter.reset()
        for emulator in emulators:
            emulator.reset_stats()
        warm = _timed_pass(manager)
        synced = sum(1 for n in nodes_db.select_node_columns(
                         ('power_state',))
                     if n.power_state == states.POWER_OFF)
        emulator_peak = max((e.stats()['peak_in_flight'] for e in emulators),
                            default=0)
        print('nodes: %d redfish (%d endpoints) + %d ipmi; power state '
              'recorded for %d' % (args.redfish, len(emulators), args.ipmi,
                                   synced))
        print('limits: sync_power_state_workers=%d, '
              'sync_power_state_per_bmc_workers=%d'
              % (CONF.conductor.sync_power_state_workers,
                 CONF.conductor.sync_power_state_per_bmc_workers))
        print('first pass (opens sessions): %.2f s' % cold)
        print('full sync pass: %.2f s wall, %d reads' % (warm,
                                                         counter.calls))
        print('peak concurrent power reads against BMCs: %d (largest on '
              'one Redfish endpoint, as its emulator counted: %d)'
              % (counter.peak, emulator_peak))
        return 0 if synced == args.redfish + args.ipmi else 1
    finally:
        if manager is not None:
            manager.del_host()
        for emulator in emulators:
            emulator.stop()
        bmcs.stop()


if __name__ == '__main__':
    sys.exit(main())
