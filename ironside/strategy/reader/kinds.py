"""Every kind of design document Ironside reads: the one registry.

A new kind is a module beside this one that defines ``KIND =
registry.Kind(name, schemas, check, build)`` (see
:mod:`ironside.strategy.reader.registry`), and one line below. The
design then holds its models as ``design.models[name]`` (by document
name) and checks them at every commit; documents an action is given
directly are told apart here too (:mod:`.action_input`). Checks across
the documents of a design are the design's
(:mod:`ironside.strategy.designs.checks`).
"""

from __future__ import annotations

from ironside.strategy.reader import configuration
from ironside.strategy.reader import etcd_clusters
from ironside.strategy.reader import freeform
from ironside.strategy.reader import fuel
from ironside.strategy.reader import inventory
from ironside.strategy.reader import kubernetes_cluster
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.registry import Registry

REGISTRY = Registry()

REGISTRY.add(shipyard.KIND)
REGISTRY.add(configuration.KIND)
REGISTRY.add(inventory.KIND)
REGISTRY.add(fuel.KIND)
REGISTRY.add(etcd_clusters.KIND)
REGISTRY.add(kubernetes_cluster.KIND)
for _kind in freeform.KINDS:
    REGISTRY.add(_kind)
