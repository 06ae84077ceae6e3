"""Each process imports what it uses: the API no BMC or cluster client,
the conductor no web framework nor API module.

Every module a process imports stays resident in it (and, in the
all-in-one, in both of its processes when the conductor process holds
it before forking the API process). Checked in a fresh interpreter,
from ``sys.modules`` after importing the module a process starts from.
"""

from __future__ import annotations

import functools
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The drivers' libraries (IPMI, Redfish, SSH, the agent's HTTP client is
# ironside's own) and the Kubernetes client a decommission uses.
CONDUCTOR_ONLY = ('pyghmi', 'sushy', 'paramiko', 'asyncssh', 'kubernetes',
                  'ironside.drivers.modules', 'ironside.conductor.manager')
API_ONLY = ('falcon', 'webob', 'oslo_middleware', 'ironside.api')


def _loaded_after(*lines: str) -> list[str]:
    """The modules a fresh interpreter holds after running ``lines``
    (which may assert what they find)."""
    code = '\n'.join(
        ['import sys', *lines, 'print("\\n".join(sorted(sys.modules)))'])
    return subprocess.run([sys.executable, '-c', code], check=True,
                          capture_output=True, text=True,
                          cwd=ROOT).stdout.split()


@functools.cache
def _loaded(module: str) -> list[str]:
    """The modules a fresh interpreter holds after importing ``module``
    (one interpreter per module, whichever tests ask)."""
    return _loaded_after('import %s' % module)


def _among(loaded: list[str], packages: tuple[str, ...]) -> list[str]:
    return sorted({name.split('.')[0] if not name.startswith('ironside')
                   else package
                   for name in loaded for package in packages
                   if name == package or name.startswith(package + '.')})


@pytest.mark.parametrize('module', ['ironside.api.app', 'ironside.cmd.api'])
def test_the_api_loads_no_driver_library(module):
    assert _among(_loaded(module), CONDUCTOR_ONLY) == []


@pytest.mark.parametrize('module', ['ironside.cmd.conductor',
                                    'ironside.cmd.all_in_one'])
def test_a_conductor_loads_no_api_module(module):
    """The all-in-one's module is its conductor process's: the API
    process loads the API's modules after the fork."""
    assert _among(_loaded(module), API_ONLY + ('kubernetes',)) == []


# oslo.messaging (~0.9 s of CPU at start) is loaded only by the processes
# whose [DEFAULT]rpc_transport is oslo, when they make their client or
# server; etcd3gw (which loads eventlet) by the first decommission of a
# site with etcd clusters; eventlet by nothing else (futurist and
# oslo.messaging would load it: ironside.common.eventlet_free).
OSLO_ONLY = ('oslo_messaging', 'ironside.common.rpc', 'eventlet', 'etcd3gw',
             'ironside.strategy.decommission.etcd_gateway')
# alembic is loaded when a migration runs (ironside.db.migration);
# networkx when the site layer builds a graph (reads documents, plans an
# action), never at start; oslo.middleware (with Jinja2) by the API only
# with auth_strategy = http_basic.
WHEN_USED = ('alembic', 'mako', 'networkx', 'oslo_middleware', 'jinja2',
             'ironside.api.http_basic')


@pytest.mark.parametrize('module', ['ironside.cmd.all_in_one',
                                    'ironside.cmd.api',
                                    'ironside.cmd.conductor',
                                    'ironside.cmd.dbsync'])
def test_no_process_loads_what_it_may_never_use_at_start(module):
    assert _among(_loaded(module), OSLO_ONLY + WHEN_USED) == []


def test_the_all_in_one_api_process_loads_no_oslo_messaging():
    """The all-in-one's API process (rpc_transport = json-rpc): its
    conductor API and its application."""
    loaded = _loaded_after(
        'from ironside.cmd import all_in_one, api',
        'from ironside.common.conf import CONF',
        'from ironside.conductor import rpcapi',
        "CONF([], project='ironside')",
        "CONF.set_override('rpc_transport', 'json-rpc')",
        "api.application(rpcapi.ConductorAPI(",
        "    json_rpc_address=lambda host: ('127.0.0.1', 1)))")
    assert 'ironside.api.app' in loaded
    assert _among(loaded, OSLO_ONLY + WHEN_USED) == []


def test_oslo_messaging_comes_without_eventlet():
    """The processes over RabbitMQ load oslo.messaging, its RabbitMQ
    driver and its server on oslo.service's threading backend, and not
    eventlet (about 19 MiB each)."""
    loaded = _loaded_after(
        'from ironside.common import rpc',
        'import oslo_messaging._drivers.impl_rabbit',
        'from oslo_service import backend',
        "assert backend.get_backend_type().value == 'threading'")
    assert 'oslo_messaging.server' in loaded
    assert _among(loaded, ('eventlet',)) == []


def test_a_conductor_with_its_drivers_loaded_runs_no_ipmi_library():
    """IPMI calls run in session processes, forked by a process of their
    own that loads pyghmi's IPMI modules (about 11 MiB); the conductor
    reads their answers without them."""
    loaded = _loaded_after(
        'from ironside.cmd import conductor',
        'from ironside.common.conf import CONF',
        'from ironside.drivers import factory',
        "CONF([], project='ironside')",
        "assert 'ipmi' in factory.get_factory().hardware_types")
    assert 'ironside.drivers.modules.ipmi.sessions' in loaded
    assert [name for name in loaded if name.startswith('pyghmi.ipmi')] == []


def test_the_ipmi_forker_process_is_the_one_that_loads_pyghmi():
    """The conductor starts the forker by its module's name (importing it
    would load pyghmi); that name must stay the module that runs it."""
    from ironside.drivers.modules.ipmi import session_forker
    assert 'pyghmi.ipmi.command' in _loaded(session_forker.FORKER_MODULE)
