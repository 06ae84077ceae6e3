"""The all-in-one's fake-hardware nodes, for trying things.

``--enroll-fake-nodes N`` enrolls fake-0 ... fake-<N-1> (those missing);
``--fake-nodes-available`` then walks each one still in ``enroll`` or
``manageable`` to ``available`` as an operator would (manage, then
provide: the power and management checks and automated cleaning run),
so Nova or metalsmith can use them at once.
"""

from __future__ import annotations

import logging
import threading
import time

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import states
from ironside.conductor import rpcapi as conductor_rpcapi
from ironside.db import nodes as nodes_db

LOG = logging.getLogger(__name__)

# How long one node may take to reach each state (fake-hardware takes
# well under a second unless told to be slow).
STATE_TIMEOUT = 60.0
POLL_INTERVAL = 0.1


def names(count: int) -> list[str]:
    return ['fake-%d' % index for index in range(count)]


def enroll(rpcapi: conductor_rpcapi.ConductorAPI, count: int) -> None:
    context = ironside_context.get_admin_context()
    for name in names(count):
        try:
            nodes_db.get_node(name)
            continue
        except exception.NodeNotFound:
            pass
        rpcapi.create_node(context, {
            'name': name, 'driver': 'fake-hardware',
            'resource_class': 'baremetal',
            'properties': {'cpus': 2, 'memory_mb': 4096, 'local_gb': 40,
                           'cpu_arch': 'x86_64'}})
        LOG.info('Enrolled fake node %s', name)


def make_available(rpcapi: conductor_rpcapi.ConductorAPI, count: int,
                   timeout: float = STATE_TIMEOUT) -> None:
    """Manage and provide the fake nodes that are not available yet, all
    at once; a node that does not get there stays where it stopped (a
    warning says so) and the others go on."""
    context = ironside_context.get_admin_context()
    steps = ((states.ENROLL, 'manage', states.MANAGEABLE),
             (states.MANAGEABLE, 'provide', states.AVAILABLE))
    for source, verb, target in steps:
        started = []
        for name in names(count):
            if _state(name) != source:
                continue
            try:
                rpcapi.do_provisioning_action(context, name, verb)
                started.append(name)
            except exception.IronsideException as exc:
                LOG.warning('Fake node %s is left in %s: %s', name,
                            source, exc)
        for name in started:
            try:
                _wait(name, target, timeout)
            except exception.IronsideException as exc:
                LOG.warning('Fake node %s is left in %s: %s', name,
                            _state(name), exc)
    LOG.info('Fake nodes: %s', ', '.join(
        '%s %s' % (name, _state(name)) for name in names(count)))


def _state(name: str) -> str | None:
    return nodes_db.get_node(name).provision_state


def _wait(name: str, wanted: str, timeout: float) -> None:
    """Until the node is in ``wanted``; an error if it stops elsewhere."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        state = _state(name)
        if state == wanted:
            return
        if state in states.STABLE_STATES or \
                state in states.FAILURE_STATES:
            raise exception.InvalidState(
                'stopped in %s instead of %s' % (state, wanted))
        if time.monotonic() > deadline:
            raise exception.InvalidState(
                'still in %s after %d seconds' % (state, timeout))
        pause.wait(POLL_INTERVAL)
