"""The DeploymentConfiguration kind: which strategy a site action runs,
and the timeouts of its workflows.

Shipyard's ``shipyard/DeploymentConfiguration/v1`` is read as Shipyard
defines it (sections ``physical_provisioner``, ``kubernetes``,
``kubernetes_provisioner``, ``armada``, whose ``manifest`` it requires);
``ironside/DeploymentConfiguration/v1`` is the same without Armada.
As in Shipyard, the document that counts is the one named
``deployment-configuration``; its ``physical_provisioner.deployment_strategy``
names the DeploymentStrategy document, by default ``deployment-strategy``.
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

SHIPYARD_SCHEMA = 'shipyard/DeploymentConfiguration/v1'
IRONSIDE_SCHEMA = 'ironside/DeploymentConfiguration/v1'
SCHEMAS = (SHIPYARD_SCHEMA, IRONSIDE_SCHEMA)

DOCUMENT_NAME = 'deployment-configuration'
DEFAULT_STRATEGY = 'deployment-strategy'

STRATEGY_PATH = ('data', 'physical_provisioner', 'deployment_strategy')

# Each section's integer settings and their defaults (Shipyard's).
DEFAULTS: dict[str, dict[str, int]] = {
    'physical_provisioner': {
        'deploy_interval': 30, 'deploy_timeout': 3600,
        'destroy_interval': 30, 'destroy_timeout': 900, 'join_wait': 120,
        'prepare_node_interval': 30, 'prepare_node_timeout': 1800,
        'prepare_site_interval': 10, 'prepare_site_timeout': 300,
        'verify_interval': 10, 'verify_timeout': 60,
    },
    'kubernetes': {'node_status_interval': 30, 'node_status_timeout': 1800},
    'kubernetes_provisioner': {
        'drain_timeout': 3600, 'drain_grace_period': 1800,
        'clear_labels_timeout': 1800, 'remove_etcd_timeout': 1800,
        'etcd_ready_timeout': 600,
    },
}

_ARMADA = {
    'type': 'object',
    'properties': {
        'get_releases_timeout': {'type': 'integer'},
        'get_status_timeout': {'type': 'integer'},
        'manifest': {'type': 'string'},
        'update_manifest': {'type': 'string'},
        'post_apply_timeout': {'type': 'integer'},
        'validate_design_timeout': {'type': 'integer'},
    },
    'additionalProperties': False,
}


def _section(name: str, extra: Mapping[str, Any] | None = None
             ) -> dict[str, Any]:
    properties = {key: {'type': 'integer', 'minimum': 0}
                  for key in DEFAULTS[name]}
    properties.update(extra or {})
    return {'type': 'object', 'properties': properties,
            'additionalProperties': False}


def _document_schema(schema: str, armada_required: bool) -> DocumentSchema:
    data = {
        'type': 'object',
        'properties': {
            'physical_provisioner': _section('physical_provisioner', {
                'deployment_strategy': {'type': 'string', 'minLength': 1},
                # In Shipyard's schema, without a default.
                'relabel_nodes_interval': {'type': 'integer', 'minimum': 0},
                'relabel_nodes_timeout': {'type': 'integer', 'minimum': 0}}),
            'kubernetes': _section('kubernetes'),
            'kubernetes_provisioner': _section('kubernetes_provisioner'),
            'armada': dict(_ARMADA, required=['manifest'])
            if armada_required else _ARMADA,
        },
        'additionalProperties': False,
    }
    if armada_required:
        data['required'] = ['armada']
    return DocumentSchema({
        'type': 'object',
        'required': ['schema', 'metadata', 'data'],
        'properties': {'schema': {'const': schema}, 'data': data},
    })


_SCHEMAS = {SHIPYARD_SCHEMA: _document_schema(SHIPYARD_SCHEMA, True),
            IRONSIDE_SCHEMA: _document_schema(IRONSIDE_SCHEMA, False)}


@dataclasses.dataclass(frozen=True)
class DeploymentConfiguration:
    name: str
    schema: str | None
    deployment_strategy: str = DEFAULT_STRATEGY
    # The document's data as given (Armada's section included).
    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def strategy_is_default(self) -> bool:
        section = self.data.get('physical_provisioner') or {}
        return 'deployment_strategy' not in section

    def value(self, section: str, key: str) -> int | None:
        """A setting, or Shipyard's default for it (None if it has none)."""
        given = (self.data.get(section) or {}).get(key)
        return given if given is not None else \
            DEFAULTS.get(section, {}).get(key)


# A design without a configuration document runs the default strategy.
DEFAULT = DeploymentConfiguration(name=DOCUMENT_NAME, schema=None)


def check(document: Any, lines: Mapping[Path, int], name: str
          ) -> list[DocumentError]:
    errors = ErrorCollector(document_name(document, name), lines)
    _SCHEMAS[document['schema']].errors(document, errors)
    return errors.sorted()


def build(document: Mapping[str, Any]) -> DeploymentConfiguration:
    data = document['data']
    section = data.get('physical_provisioner') or {}
    return DeploymentConfiguration(
        name=document['metadata']['name'], schema=document['schema'],
        deployment_strategy=section.get('deployment_strategy',
                                        DEFAULT_STRATEGY),
        data=data)


KIND = Kind('DeploymentConfiguration', SCHEMAS, check, build)
