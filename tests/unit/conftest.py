"""Fixtures for unit tests: a conductor running in this process."""

from __future__ import annotations

import pytest

from ironside.api import policy
from ironside.common import context as ironside_context
from ironside.conductor import manager as conductor_manager
from ironside.conductor import rpcapi
from ironside.db import nodes as nodes_db
from tests import dbs
from tests import utils

# The site layer's modules whose subject is what it stores and queries
# (designs and their tags, actions claimed, listed, capped and aborted):
# run on every backend. The rest of the site layer's tests drive plans,
# expressions, reports and the site API's views over those same queries;
# they run on SQLite here and against PostgreSQL and MariaDB in the
# functional suite's split deployments (test_site_split,
# test_redeploy_server, ...).
SITE_STORAGE_MODULES = frozenset({
    'test_site_db', 'test_design_store', 'test_site_action_list',
    'test_service', 'test_fleet_in_flight', 'test_abort'})


def runs_on_server_databases(item: pytest.Item) -> bool:
    """Whether a test runs again on PostgreSQL and MariaDB: it uses a
    database and, in the site layer, tests its storage."""
    if 'test_database' not in getattr(item, 'fixturenames', ()):
        return False
    path = item.path
    if 'strategy' in path.parts[path.parts.index('unit'):]:
        return path.stem in SITE_STORAGE_MODULES
    return True


def pytest_collection_modifyitems(config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """On PostgreSQL and MariaDB, run only ``runs_on_server_databases``.

    The others never reach the backend, or reach it through queries
    other tests there cover: run again, they would repeat the SQLite run
    and cost the CI most of its unit time (three runs side by side on
    two cores).
    """
    if dbs.backend() == 'sqlite':
        return
    kept: list[pytest.Item] = []
    repeated: list[pytest.Item] = []
    for item in items:
        (kept if runs_on_server_databases(item) else repeated).append(item)
    if repeated:
        config.hook.pytest_deselected(items=repeated)
        items[:] = kept


@pytest.fixture
def fast_conductor_options(conf):
    conf.set('conductor', node_locked_retry_attempts=2,
             node_locked_retry_interval=0.01, async_step_poll_interval=0.05,
             heartbeat_interval=3600, takeover_interval=3600,
             check_provision_state_interval=3600,
             sync_power_state_interval=0)
    conf.set(rpc_transport='local', host='test-conductor')


@pytest.fixture
def conductor(db, fast_conductor_options):
    """A started conductor (no RPC server; tests call it directly)."""
    manager = conductor_manager.ConductorManager('test-conductor')
    manager.init_host()
    yield manager
    manager.del_host()


@pytest.fixture
def rpc(conductor):
    """The conductor RPC API the API layer uses, in-process."""
    return rpcapi.ConductorAPI(local_manager=conductor)


@pytest.fixture
def context():
    return ironside_context.RequestContext(user_id='tester',
                                           project_id='test-project',
                                           roles=['admin'])


@pytest.fixture
def make_node(rpc, context):
    """Create a fake-hardware node through the conductor; returns it."""
    def _make(**overrides):
        uuid = rpc.create_node(context, utils.fake_node_values(**overrides))
        return nodes_db.get_node(uuid)
    return _make


@pytest.fixture
def keystone(conf):
    """``auth_strategy = keystone``: the policy is enforced (requests
    carry the identity headers keystonemiddleware would set)."""
    conf.set(auth_strategy='keystone')
    policy.reset()
    yield
    policy.reset()
