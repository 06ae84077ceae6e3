"""Acceptance: real clients from PyPI against one real Ironside per module.

The server is a real ``ironside`` process on a free port; the clients are
the ones operators run. The ``openstack`` CLI runs in this process (its
``main``, with the environment and streams it would have as a command) so
that a hundred commands cost a hundred requests, not a hundred Python
start-ups.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import shlex
import uuid
from typing import Any

import openstack.config
import pytest
from openstack import connection
from openstackclient import shell

from tests.functional.fixtures import ironside_process
from tests.utils import wait_for


class CliFailed(Exception):
    def __init__(self, argv: list[str], code: int, stderr: str) -> None:
        super().__init__('openstack %s exited with %s: %s'
                         % (shlex.join(argv), code, stderr.strip()))
        self.code = code
        self.stderr = stderr


@contextlib.contextmanager
def command_context(endpoint: str):
    """What a command run from a shell has: OS_* for ``endpoint`` without
    auth, its own stdout and stderr (yielded as StringIOs), and a root
    logger it may configure (restored after: cliff and metalsmith add
    handlers on each run)."""
    out, err = io.StringIO(), io.StringIO()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    env = {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': endpoint}
    saved = {k: os.environ.pop(k) for k in list(os.environ)
             if k.startswith('OS_')}
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield out, err
    finally:
        for key in env:
            os.environ.pop(key, None)
        os.environ.update(saved)
        root.handlers[:] = handlers
        root.setLevel(level)


class InProcessCli:
    """``openstack baremetal ...`` run through openstackclient's ``main``."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    def __call__(self, *args: str, check: bool = True) -> Any:
        """Parsed JSON when ``-f json`` is given, else the stdout text.

        Raises CliFailed if the command fails and ``check``; without
        ``check`` a failure returns the CliFailed instead.
        """
        argv = ['baremetal', *args]
        with command_context(self.endpoint) as (out, err):
            try:
                code = shell.main(argv)
            except SystemExit as exc:   # argparse refusing the args
                code = exc.code
        if code:
            failure = CliFailed(argv, code, err.getvalue())
            if check:
                raise failure
            return failure
        text = out.getvalue()
        if '-f' in args and args[args.index('-f') + 1] == 'json':
            return json.loads(text) if text.strip() else None
        return text


def sdk_connection(endpoint: str) -> connection.Connection:
    """openstacksdk as a standalone Ironic user configures it."""
    region = openstack.config.get_cloud_region(
        load_yaml_config=False, load_envvars=False, auth_type='none',
        baremetal_endpoint_override=endpoint,
        baremetal_status_code_retries=5)
    return connection.Connection(config=region)


def unique(prefix: str) -> str:
    return '%s-%s' % (prefix, uuid.uuid4().hex[:8])


@pytest.fixture(scope='module')
def ironside(tmp_path_factory):
    """One all-in-one Ironside for the module, SQLite in a temp dir.

    Debug logging is on, so that tests that look for secrets in the log
    see everything a chatty deployment would write.
    """
    process = ironside_process.AllInOne(tmp_path_factory.mktemp('ironside'),
                                        options={'DEFAULT': {'debug': True}})
    process.start()
    yield process
    code = process.stop()
    assert code == 0, 'ironside did not stop cleanly:\n%s' % process.log()


@pytest.fixture(scope='module')
def cli(ironside) -> InProcessCli:
    return InProcessCli(ironside.endpoint)


@pytest.fixture(scope='module')
def sdk(ironside) -> connection.Connection:
    conn = sdk_connection(ironside.endpoint)
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


def sdk_wait_state(sdk, node_id: str, state: str, timeout: float = 60):
    """The node (SDK) once in ``state``, polled every 0.1 s."""
    def reached():
        node = sdk.baremetal.get_node(node_id)
        return node if node.provision_state == state else None
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
