"""Volume connectors (1.32): how a node reaches its volumes.

A connector is one of the node's storage endpoints: an iSCSI initiator
name, an IP or MAC address, a Fibre Channel WWNN/WWPN, or one of its
ports or port groups. A (type, connector_id) pair is unique across the
deployment.
"""

from __future__ import annotations

from typing import Any

from ironside.api import views

# The types Ironic's API reference documents (its API itself takes any
# string; the storage interfaces later reject the others).
TYPES = ('iqn', 'ip', 'mac', 'wwnn', 'wwpn', 'port', 'portgroup')

SCHEMA = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'node_uuid': {'type': 'string'},
        'type': {'type': 'string', 'enum': list(TYPES)},
        'connector_id': {'type': 'string', 'minLength': 1,
                         'maxLength': 255},
        'extra': {'type': ['object', 'null']},
    },
    'required': ['connector_id', 'node_uuid', 'type'],
    'additionalProperties': False,
}
PATCH_ALLOWED = ('connector_id', 'extra', 'node_uuid', 'type')
DOCUMENT_FIELDS = ('uuid', 'node_uuid', 'type', 'connector_id', 'extra')
UNSORTABLE = ('extra',)

VIEW = views.ResourceView(
    resource='volume/connectors',
    fields=(('uuid', 1), ('node_uuid', 1), ('type', 1),
            ('connector_id', 1), ('extra', 1), ('created_at', 1),
            ('updated_at', 1)),
    default_list_fields=('uuid', 'node_uuid', 'type', 'connector_id'))


def normalise(values: dict[str, Any]) -> dict[str, Any]:
    """A valid connector as stored (MACs lower case, as Ironic's ports)."""
    values = dict(values)
    if values.get('type') == 'mac':
        values['connector_id'] = values['connector_id'].lower()
    return values
