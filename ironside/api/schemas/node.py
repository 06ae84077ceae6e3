"""Schemas of node bodies: creation and the result of a JSON patch."""

from __future__ import annotations

import copy
from typing import Any

from ironside.common.conf.default import INTERFACE_TYPES

DESCRIPTION_MAX_LENGTH = 4096

_STRING = {'type': ['string', 'null']}
_BOOLEAN = {'type': ['string', 'boolean', 'null']}
_OBJECT = {'type': ['object', 'null']}

# A JSON schema, as jsonschema takes it.
CREATE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'automated_clean': _BOOLEAN,
        'boot_mode': _STRING,
        'chassis_uuid': _STRING,
        'conductor_group': {'type': ['string', 'null'], 'maxLength': 255},
        'console_enabled': _BOOLEAN,
        'description': {'type': ['string', 'null'],
                        'maxLength': DESCRIPTION_MAX_LENGTH},
        'disable_power_off': _BOOLEAN,
        'driver': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'driver_info': _OBJECT,
        'extra': _OBJECT,
        'instance_info': _OBJECT,
        'instance_name': {'type': ['string', 'null'], 'minLength': 1,
                          'maxLength': 255},
        'instance_uuid': _STRING,
        'lessee': {'type': ['string', 'null'], 'maxLength': 255},
        'maintenance': _BOOLEAN,
        'name': {'type': ['string', 'null'], 'maxLength': 255},
        'network_data': _OBJECT,
        'owner': {'type': ['string', 'null'], 'maxLength': 255},
        'parent_node': {'type': ['string', 'null'], 'maxLength': 36},
        'properties': _OBJECT,
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'retired': _BOOLEAN,
        'retired_reason': _STRING,
        'secure_boot': _BOOLEAN,
        'shard': {'type': ['string', 'null'], 'maxLength': 255},
        'uuid': _STRING,
    },
    'required': ['driver'],
    'additionalProperties': False,
}
for _iface in INTERFACE_TYPES:
    CREATE['properties']['%s_interface' % _iface] = {
        'type': ['string', 'null'], 'maxLength': 255}

PATCH_RESULT = copy.deepcopy(CREATE)
PATCH_RESULT['properties']['protected'] = _BOOLEAN
PATCH_RESULT['properties']['protected_reason'] = _STRING

# Top-level fields a JSON patch may change (Ironic's list).
PATCH_ALLOWED_FIELDS = tuple(sorted(
    set(PATCH_RESULT['properties']) - {'uuid', 'console_enabled',
                                       'boot_mode', 'secure_boot'}))

# POST /v1/nodes/{node}/vifs: as Ironic's, an id (a UUID or name, which
# the API checks after) and whatever else the network interface reads
# (port_uuid, portgroup_uuid).
VIF = {
    'type': 'object',
    'properties': {'id': {'type': 'string'}},
    'required': ['id'],
    'additionalProperties': True,
}

BOOLEAN_FIELDS = ('automated_clean', 'console_enabled', 'disable_power_off',
                  'maintenance', 'protected', 'retired', 'secure_boot')
UUID_FIELDS = ('chassis_uuid', 'instance_uuid', 'uuid')
