"""The node inventory: one ``ironside/BaremetalNode/v1`` document per node.

In the spirit of Drydock's ``drydock/BaremetalNode/v1``: the document's
name is the node's name, and its data says where the node is, how it is
grouped, what hardware it is, how its BMC is reached, and how its
operating system is reached once deployed::

    schema: ironside/BaremetalNode/v1
    metadata: {schema: metadata/Document/v1, name: ctl01}
    data:
      rack: rack03
      tags: [control]
      labels: {ucp_control_plane: enabled}
      roles: [controller]               # Fuel's groups of tasks
      driver: ipmi                      # the hardware type
      driver_info:                      # the BMC: address, credentials
        ipmi_address: 10.0.3.11
        ipmi_username: admin
        ipmi_password: ...              # masked wherever it is shown
      properties: {cpus: 32, memory_mb: 262144, cpu_arch: x86_64}
      resource_class: baremetal
      os_access:                        # the deployed OS, over SSH
        address: 192.168.3.11
        port: 22
        user: root
        known_host: ssh-ed25519 AAAA...  # the node's SSH host key
        identity: site-ssh              # a deckhand/PrivateKey/v1 document
      network_scheme:                   # Fuel's, read by expressions
        endpoints:
          br-mgmt:
            IP: [10.0.3.11/24]
            routes: [{net: 10.1.0.0/16, via: 10.0.3.1}]

A site action enrolls the nodes that do not exist yet (name, driver,
driver_info, properties, resource class) and sets ``extra.rack``,
``extra.tags``, ``extra.labels`` and ``extra.roles`` of every node of the
inventory, where selectors read them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from oslo_utils import uuidutils

from ironside.strategy.core.paths import Path
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.registry import Kind
from ironside.strategy.reader.schema import DocumentSchema

SCHEMA = 'ironside/BaremetalNode/v1'

# Ironic's logical names: RFC 3986 unreserved characters.
NAME_PATTERN = r'^[A-Za-z0-9._~-]+$'

_WORD = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_WORDS = {'type': 'array', 'items': _WORD, 'uniqueItems': True}
_SCALAR = {'type': ['string', 'integer', 'number', 'boolean']}

_SCHEMA = DocumentSchema({
    'type': 'object',
    'required': ['schema', 'metadata', 'data'],
    'properties': {
        'metadata': {
            'type': 'object',
            'properties': {'name': {'type': 'string',
                                    'pattern': NAME_PATTERN}},
        },
        'data': {
            'type': 'object',
            'required': ['driver'],
            'properties': {
                'rack': _WORD,
                'tags': _WORDS,
                'labels': {'type': 'object',
                           'additionalProperties': _SCALAR},
                'roles': _WORDS,
                'driver': _WORD,
                'driver_info': {'type': 'object'},
                'properties': {'type': 'object'},
                'resource_class': {'type': 'string', 'maxLength': 80},
                'os_access': {
                    'type': 'object',
                    'required': ['address'],
                    'properties': {
                        'address': _WORD,
                        'port': {'type': 'integer', 'minimum': 1,
                                 'maximum': 65535},
                        'user': _WORD,
                        'known_host': _WORD,
                        'identity': _WORD,
                    },
                    'additionalProperties': False,
                },
                'network_scheme': {
                    'type': 'object',
                    'properties': {'endpoints': {
                        'type': 'object',
                        'additionalProperties': {'type': 'object'}}},
                },
            },
            'additionalProperties': False,
        },
    },
})


@dataclasses.dataclass(frozen=True)
class OsAccess:
    """How the deployed OS is reached (a task runner's target)."""

    address: str
    port: int = 22
    user: str = 'root'
    # The node's SSH host key ("ssh-ed25519 AAAA..."), if known.
    known_host: str | None = None
    # The name of the deckhand/PrivateKey/v1 document holding the SSH
    # private key to log in with.
    identity: str | None = None


@dataclasses.dataclass(frozen=True)
class InventoryNode:
    name: str
    driver: str
    driver_info: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    properties: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    resource_class: str | None = None
    rack: str | None = None
    tags: tuple[str, ...] = ()
    labels: Mapping[str, str] = dataclasses.field(default_factory=dict)
    roles: tuple[str, ...] = ()
    os_access: OsAccess | None = None
    # Fuel's network scheme of the node (interfaces, endpoints, routes),
    # which expressions read; Ironside configures no network from it.
    network_scheme: Mapping[str, Any] = dataclasses.field(
        default_factory=dict)

    def extra_fields(self) -> dict[str, Any]:
        """The ``extra`` fields a site action keeps in step with the
        design (what selectors and task graphs read)."""
        return {'rack': self.rack, 'tags': list(self.tags),
                'labels': dict(self.labels), 'roles': list(self.roles)}

    def site_node(self, uuid: str) -> SiteNode:
        """The node as selectors see it: what :func:`site_node` reads from
        the ``extra`` a site action writes (built directly: inventories
        have thousands of nodes)."""
        return SiteNode(uuid=uuid, name=self.name, rack=self.rack,
                        tags=frozenset(self.tags),
                        labels=frozenset(self.labels.items()),
                        roles=frozenset(self.roles))


EXTRA_FIELDS = ('rack', 'tags', 'labels', 'roles')


def check(document: Any, lines: Mapping[Path, int], name: str
          ) -> list[DocumentError]:
    errors = ErrorCollector(document_name(document, name), lines)
    if not _SCHEMA.errors(document, errors):
        return errors.sorted()
    if uuidutils.is_uuid_like(document['metadata']['name']):
        errors.add(('metadata', 'name'), 'a node name must not look like '
                   'a UUID')
    data = document['data']
    for key, value in (data.get('labels') or {}).items():
        if not str(key).strip() or not str(value).strip() or \
                ':' in str(key):
            errors.add(('data', 'labels', key), 'label "%s: %s" is not of '
                       'the form key: value' % (key, value))
    return errors.sorted()


def build(document: Mapping[str, Any]) -> InventoryNode:
    data = document['data']
    access = data.get('os_access')
    return InventoryNode(
        name=document['metadata']['name'], driver=data['driver'],
        driver_info=data.get('driver_info') or {},
        properties=data.get('properties') or {},
        resource_class=data.get('resource_class'),
        rack=data.get('rack'), tags=tuple(data.get('tags') or ()),
        labels={str(k).strip(): str(v).strip() for k, v in
                (data.get('labels') or {}).items()},
        roles=tuple(data.get('roles') or ()),
        os_access=OsAccess(**access) if access else None,
        network_scheme=data.get('network_scheme') or {})


KIND = Kind('BaremetalNode', (SCHEMA,), check, build)
