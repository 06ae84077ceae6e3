"""Every kind of design document Ironside reads, and the checks across
documents: the one place they are registered.

A new kind is a module beside this one that defines ``KIND =
registry.Kind(name, schemas, check, build)`` (see
:mod:`ironside.strategy.reader.registry`), and one line below. The
design then holds its models as ``design.models[name]`` (by document
name), checks them at every commit, and a cross-document check of its
own is one more ``REGISTRY.add_cross_check(...)``.
"""

from __future__ import annotations

from ironside.strategy.reader import configuration
from ironside.strategy.reader import freeform
from ironside.strategy.reader import inventory
from ironside.strategy.reader import references
from ironside.strategy.reader import shipyard
from ironside.strategy.reader import task_graphs
from ironside.strategy.reader.registry import Registry

REGISTRY = Registry()

REGISTRY.add(shipyard.KIND)
REGISTRY.add(configuration.KIND)
REGISTRY.add(inventory.KIND)
REGISTRY.add(task_graphs.KIND)
for _kind in freeform.KINDS:
    REGISTRY.add(_kind)

for _check in references.CHECKS:
    REGISTRY.add_cross_check(_check)
REGISTRY.add_cross_check(task_graphs.settled)
