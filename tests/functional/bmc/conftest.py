"""Fixtures for the BMC tests: a conductor in this process driving
emulated BMCs in other processes, with timings shortened."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests.functional.fixtures import ipmi_bmc
from tests.functional.fixtures import redfish_emulator
from tests.unit.conftest import conductor  # noqa: F401
from tests.unit.conftest import context  # noqa: F401
from tests.unit.conftest import fast_conductor_options  # noqa: F401
from tests.unit.conftest import rpc  # noqa: F401
from tests.utils import fake_node_values


@pytest.fixture(autouse=True)
def fast_bmc_options(conf):
    conf.set('ipmi', power_poll_interval=0.05, retry_interval=0.1,
             command_retry_timeout=10, validate_timeout=2)
    conf.set('redfish', power_poll_interval=0.05, task_poll_interval=0.1,
             server_side_retries=0, connection_attempts=2,
             connection_retry_interval=0.1, connect_timeout=2,
             read_timeout=10)
    conf.set('conductor', power_state_change_timeout=10)


@pytest.fixture(scope='module')
def redfish():
    """Four emulated Redfish systems behind one emulator."""
    with redfish_emulator.RedfishEmulator(systems=4) as emulator:
        yield emulator


@pytest.fixture(scope='module')
def ipmi():
    """Five emulated IPMI BMCs in one process."""
    with ipmi_bmc.IPMIBMCs(5) as bmcs:
        yield bmcs


@pytest.fixture
def make_bmc_node(rpc, context):  # noqa: F811
    """Create a node of a hardware type through the conductor."""
    def _make(driver, driver_info, **overrides):
        values = fake_node_values(driver=driver, driver_info=driver_info)
        values.update(overrides)
        return nodes_db.get_node(rpc.create_node(context, values))
    return _make
