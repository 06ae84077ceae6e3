"""Schemas of port and port group bodies."""

from __future__ import annotations

_LOCAL_LINK_PROPERTIES = {
    'port_id': {'type': 'string'},
    'switch_id': {'type': 'string'},
    'hostname': {'type': 'string'},
    'switch_info': {'type': 'string'},
    'network_type': {'type': 'string', 'enum': ['managed', 'unmanaged']},
}


def _local_link(required: list[str], **overrides) -> dict:
    properties = dict(_LOCAL_LINK_PROPERTIES)
    properties.update(overrides)
    return {'type': 'object', 'properties': properties,
            'additionalProperties': False, 'required': required}


LOCAL_LINK_CONNECTION = {'anyOf': [
    _local_link(['port_id', 'switch_id']),
    _local_link(['port_id', 'hostname']),
    _local_link(['network_type'], network_type={
        'type': 'string', 'enum': ['unmanaged']}),
    {'type': 'object', 'additionalProperties': False},
]}
LOCAL_LINK_SMART_NIC = _local_link(['port_id', 'hostname'])

_STRING = {'type': ['string', 'null']}
_BOOLEAN = {'type': ['string', 'boolean', 'null']}

PORT = {
    'type': 'object',
    'properties': {
        'address': {'type': 'string'},
        'extra': {'type': ['object', 'null']},
        'is_smartnic': _BOOLEAN,
        'local_link_connection': {'type': ['null', 'object']},
        'node_ident': {'type': 'string'},
        'node_uuid': {'type': 'string'},
        'physical_network': {'type': ['string', 'null'], 'maxLength': 64},
        'portgroup_uuid': _STRING,
        'pxe_enabled': _BOOLEAN,
        'uuid': _STRING,
        'name': _STRING,
        'description': {'type': ['string', 'null'], 'maxLength': 255},
        'vendor': {'type': ['string', 'null'], 'maxLength': 32},
        'category': {'type': ['string', 'null'], 'maxLength': 80},
    },
    'required': ['address'],
    'oneOf': [{'required': ['node_ident']}, {'required': ['node_uuid']}],
    'additionalProperties': False,
}

PORT_PATCH_ALLOWED = ('address', 'extra', 'is_smartnic',
                      'local_link_connection', 'node_uuid',
                      'physical_network', 'portgroup_uuid', 'pxe_enabled',
                      'name', 'description', 'vendor', 'category')

PORTGROUP = {
    'type': 'object',
    'properties': {
        'address': _STRING,
        'extra': {'type': ['object', 'null']},
        'mode': _STRING,
        'name': _STRING,
        'node_uuid': {'type': 'string'},
        'properties': {'type': ['object', 'null']},
        'standalone_ports_supported': _BOOLEAN,
        'physical_network': {'type': ['string', 'null'], 'maxLength': 64},
        'category': {'type': ['string', 'null'], 'maxLength': 80},
        'uuid': _STRING,
    },
    'required': ['node_uuid'],
    'additionalProperties': False,
}

PORTGROUP_PATCH_ALLOWED = ('address', 'extra', 'mode', 'name', 'node_uuid',
                           'properties', 'standalone_ports_supported',
                           'physical_network', 'category')
