"""The KubernetesCluster design document: the site runs Kubernetes.

A site's design says that its nodes are Kubernetes nodes, so that a
``redeploy_server`` action drains the node, clears its labels, shuts its
kubelet down and deletes it from the cluster (the teardown spec's
Promenade steps), with this document::

    schema: ironside/KubernetesCluster/v1
    metadata:
      name: kubernetes
    data:
      description: the site's control plane   # optional

The document names no endpoint and no credentials: conductors reach the
cluster with ``[redeploy]kubeconfig``. An Airship design built by
Promenade declares Kubernetes with its own documents, without this one
(:data:`PROMENADE_SCHEMAS`, read where a decommission decides what
applies, :mod:`ironside.strategy.decommission.clusters`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ironside.strategy.core.paths import Path
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.registry import Kind
from ironside.strategy.reader.schema import DocumentSchema

SCHEMA = 'ironside/KubernetesCluster/v1'

# Promenade's documents of a Kubernetes cluster it builds: the genesis
# node, the cluster's network, a joining node. Ironside reads none of
# them (they are stored as they are); their presence declares Kubernetes.
PROMENADE_SCHEMAS = ('promenade/Genesis/v1', 'promenade/KubernetesNetwork/v1',
                     'promenade/KubernetesNode/v1')

_SCHEMA = DocumentSchema({
    'type': 'object',
    'required': ['schema', 'metadata', 'data'],
    'properties': {
        'schema': {'const': SCHEMA},
        'data': {
            'type': 'object',
            'properties': {'description': {'type': 'string'}},
            'additionalProperties': False,
        },
    },
})


@dataclasses.dataclass(frozen=True)
class KubernetesCluster:
    name: str
    description: str = ''


def check(document: Any, lines: Mapping[Path, int], name: str
          ) -> list[DocumentError]:
    errors = ErrorCollector(document_name(document, name), lines)
    _SCHEMA.errors(document, errors)
    return errors.sorted()


def build(document: Mapping[str, Any]) -> KubernetesCluster:
    return KubernetesCluster(
        name=document['metadata']['name'],
        description=(document['data'] or {}).get('description', ''))


KIND = Kind('KubernetesCluster', (SCHEMA,), check, build)
