"""Helpers for tests: waiting on conditions and making nodes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from typing import TypeVar

from ironside.db import models
from ironside.db import nodes as nodes_db

T = TypeVar('T')


def wait_for(condition: Callable[[], T], timeout: float = 10.0,
             interval: float = 0.01, what: str | None = None) -> T:
    """Poll ``condition`` until it returns something truthy; return it."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError('Timed out after %ss waiting for %s'
                                 % (timeout, what or condition))
        time.sleep(interval)


def fake_node_values(**overrides: Any) -> dict[str, Any]:
    values = {'driver': 'fake-hardware', 'driver_info': {},
              'properties': {'cpus': 2, 'memory_mb': 4096, 'local_gb': 40,
                             'cpu_arch': 'x86_64'},
              'resource_class': 'baremetal'}
    values.update(overrides)
    return values


def update_node(ident: str | int, values: dict[str, Any]) -> models.Node:
    """Set a node's columns (and ``traits``) as a test needs them, through
    the product's one write path; a new provision state is fresh."""
    values = dict(values)
    traits = values.pop('traits', None)
    node = nodes_db.get_node(ident)
    if 'provision_state' in values:
        values.setdefault('provision_updated_at', models.utcnow())
    for key, value in values.items():
        setattr(node, key, value)
    nodes_db.save_node(node)
    if traits is not None:
        nodes_db.set_node_traits(node.id, traits)
    return node
