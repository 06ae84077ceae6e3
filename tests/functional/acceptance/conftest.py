"""Acceptance: real clients from PyPI against one real Ironside per module.

The server is a real ``ironside`` process on a free port; the clients are
the ones operators run. The ``openstack`` CLI runs in this process (its
``main``, with the environment and streams it would have as a command) so
that a hundred commands cost a hundred requests, not a hundred Python
start-ups.

Everything goes through the real Keystone (``fixtures/keystone.py``), as
in a deployment: Ironside validates tokens with keystonemiddleware
(``[keystone_authtoken]``) under Ironic 39's policy defaults
(``[oslo_policy] enforce_scope`` and ``enforce_new_defaults``); the
clients authenticate with a password as the system-scoped admin (as
devstack configures Nova's and an operator's clients when Ironic enforces
scope) and find Ironside in Keystone's catalog.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from openstack import connection

from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import keystone as keystone_fixture
from tests.functional.fixtures import services
from tests.functional.fixtures.clients import InProcessCli
from tests.functional.fixtures.clients import sdk_connection
from tests.utils import wait_for


def unique(prefix: str) -> str:
    return '%s-%s' % (prefix, uuid.uuid4().hex[:8])


SQLITE = 'sqlite'
RABBITMQ_POSTGRESQL = 'rabbitmq-postgresql'

# For modules whose tests run against both deployments:
# ``pytestmark = [..., BOTH_DEPLOYMENTS]``.
BOTH_DEPLOYMENTS = pytest.mark.parametrize(
    'ironside', [SQLITE, pytest.param(RABBITMQ_POSTGRESQL,
                                      marks=services.OVER_RABBITMQ)],
    indirect=True, scope='module')


@pytest.fixture(scope='session')
def keystone(tmp_path_factory):
    """The real Keystone, started once per xdist worker (about 12 s) and
    shared by the modules that worker runs: each module's Ironside puts
    itself in the catalog when it starts, and a worker runs one module's
    at a time."""
    with keystone_fixture.Keystone(
            tmp_path_factory.mktemp('keystone')) as server:
        yield server


@pytest.fixture(scope='module')
def ironside(request, tmp_path_factory, keystone):
    """One Ironside for the module, under ``keystone``: the all-in-one
    on SQLite in a temp dir, or (parametrised ``rabbitmq-postgresql``)
    an ``ironside-api`` process and an ``ironside-conductor`` process
    over RabbitMQ and a fresh PostgreSQL database.

    Debug logging is on, so that tests that look for secrets in the log
    see everything a chatty deployment would write.
    """
    deployment = getattr(request, 'param', SQLITE)
    workdir = tmp_path_factory.mktemp('ironside')
    if deployment == RABBITMQ_POSTGRESQL:
        yield from ironside_process.serve_split(workdir, 'postgresql',
                                                keystone=keystone)
    else:
        yield from ironside_process.serve(
            workdir, keystone, options={'DEFAULT': {'debug': True}})


@pytest.fixture(scope='module')
def cli(ironside) -> InProcessCli:
    return InProcessCli(ironside.endpoint, auth=ironside.client_auth)


@pytest.fixture(scope='module')
def sdk(ironside) -> connection.Connection:
    conn = sdk_connection(ironside.endpoint, ironside.client_auth)
    yield conn
    conn.close()


def available_node(sdk, name: str | None = None, **values: Any):
    """A fake-hardware node taken to ``available`` through the SDK."""
    body = {'driver': 'fake-hardware', 'name': name or unique('node'),
            'resource_class': 'baremetal',
            'properties': {'cpus': 2, 'memory_mb': 4096, 'local_gb': 40,
                           'cpu_arch': 'x86_64'}}
    body.update(values)
    node = sdk.baremetal.create_node(**body)
    # The SDK's own wait polls every few seconds; tests that test it use
    # it, the rest poll faster.
    for verb, state in (('manage', 'manageable'), ('provide', 'available')):
        sdk.baremetal.set_node_provision_state(node, verb)
        node = sdk_wait_state(sdk, node.id, state)
    return node


def sdk_wait_state(sdk, node_id: str, state: str, timeout: float = 60,
                   until=lambda node: True):
    """The node (SDK) once in ``state`` and ``until(node)`` holds, polled
    every 0.1 s."""
    def reached():
        node = sdk.baremetal.get_node(node_id)
        return node if node.provision_state == state and until(node) \
            else None
    return wait_for(reached, timeout=timeout, interval=0.1,
                    what='node %s to reach %s' % (node_id, state))


def wait_state(ironside, node: str, state: str, timeout: float = 60
               ) -> dict:
    """The node (raw API, latest version) once in ``state``."""
    def reached():
        status, body = ironside.api('GET', '/v1/nodes/%s' % node)
        assert status == 200, body
        return body if body['provision_state'] == state else None
    return wait_for(reached, timeout=timeout, interval=0.1,
                    what='node %s to reach %s' % (node, state))
