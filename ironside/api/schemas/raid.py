"""The target RAID configuration: Ironic's whole schema, JBOD included.

``target_raid_config`` is ``{"logical_disks": [...]}``; each logical
disk needs ``raid_level`` and ``size_gb`` (an integer or ``"MAX"``) and
may narrow what backs it. The descriptions are what
``GET /v1/drivers/{driver}/raid/logical_disk_properties`` answers.
Which levels a driver can actually build is its RAID interface's
business (the Redfish one checks when it validates).
"""

from __future__ import annotations

from typing import Any

from ironside.api import schemas
from ironside.common import exception

RAID_LEVELS = ('JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0')

LOGICAL_DISK_PROPERTIES: dict[str, dict[str, Any]] = {
    'raid_level': {
        'type': 'string', 'enum': list(RAID_LEVELS),
        'description': 'RAID level of the logical disk: one of %s. '
                       'Required.' % ', '.join(RAID_LEVELS)},
    'size_gb': {
        'anyOf': [{'type': 'integer', 'minimum': 0},
                  {'type': 'string', 'enum': ['MAX']}],
        'description': 'Size of the logical disk in GiB, or "MAX" for the '
                       'rest of the space. Required.'},
    'volume_name': {
        'type': 'string',
        'description': 'Name of the volume to create; generated if not '
                       'given. Optional.'},
    'is_root_volume': {
        'type': 'boolean',
        'description': 'Whether this logical disk is the root volume (at '
                       'most one is). False by default. Optional.'},
    'share_physical_disks': {
        'type': 'boolean',
        'description': 'Whether other logical disks may share physical '
                       'disks with this one. False by default. Optional.'},
    'disk_type': {
        'type': 'string', 'enum': ['hdd', 'ssd'],
        'description': 'The kind of physical disks to prefer: "hdd" or '
                       '"ssd"; any if not given. Optional.'},
    'interface_type': {
        'type': 'string', 'enum': ['sata', 'scsi', 'sas'],
        'description': 'The interface of the physical disks to prefer: '
                       '"sata", "scsi" or "sas"; any if not given. '
                       'Optional.'},
    'number_of_physical_disks': {
        'type': 'integer', 'minimum': 1,
        'description': 'How many physical disks back the logical disk; the '
                       'least its RAID level needs if not given. Optional.'},
    'controller': {
        'type': 'string',
        'description': 'The RAID controller to build the logical disk on; '
                       'the driver chooses if not given. Optional.'},
    'physical_disks': {
        'anyOf': [{'type': 'array', 'items': {'type': 'string'}},
                  {'type': 'array', 'items': {'type': 'object'},
                   'minItems': 2}],
        'description': 'The physical disks to use (needs "controller"); '
                       'the driver chooses if not given. Optional.'},
}

SCHEMA = {
    'type': 'object',
    'properties': {
        'logical_disks': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': LOGICAL_DISK_PROPERTIES,
                'required': ['raid_level', 'size_gb'],
                'additionalProperties': False,
                'dependencies': {'physical_disks': ['controller']},
            },
        },
    },
    'required': ['logical_disks'],
    'additionalProperties': False,
}


def logical_disk_properties() -> dict[str, str]:
    """Each property a logical disk may have, with its description."""
    return {name: spec['description']
            for name, spec in LOGICAL_DISK_PROPERTIES.items()}


def validate(config: Any) -> dict[str, Any]:
    """``config`` if it is a valid target RAID configuration; else 400.

    An empty document (``{}``) clears the target and is valid.
    """
    if config == {}:
        return config
    schemas.validate('target_raid_config', config, SCHEMA)
    roots = [disk for disk in config['logical_disks']
             if disk.get('is_root_volume')]
    if len(roots) > 1:
        raise exception.InvalidParameterValue(
            err='Raid config cannot have more than one root volume. '
                '%d root volumes were specified' % len(roots))
    return config
