"""Volume targets (1.32): the volumes a node boots from or attaches.

A target names a volume of the block storage service (``volume_id``),
its type (iscsi, fibre_channel...) and connection ``properties``, and
its place in the boot order: ``boot_index`` is unique per node (0 is the
boot volume). Properties may hold credentials, so only callers allowed
``baremetal:volume:view_target_properties`` see them.
"""

from __future__ import annotations

from typing import Any

from ironside.api import policy
from ironside.api import schemas
from ironside.api import views
from ironside.common import secrets
from ironside.db import models

SCHEMA = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'node_uuid': {'type': 'string'},
        'volume_type': {'type': 'string', 'minLength': 1, 'maxLength': 64},
        'properties': {'type': ['object', 'null']},
        'boot_index': schemas.stored_integer(models.VolumeTarget.boot_index,
                                             minimum=0),
        'volume_id': {'type': 'string', 'minLength': 1, 'maxLength': 36},
        'extra': {'type': ['object', 'null']},
    },
    'required': ['boot_index', 'node_uuid', 'volume_id', 'volume_type'],
    'additionalProperties': False,
}
PATCH_ALLOWED = ('boot_index', 'extra', 'node_uuid', 'properties',
                 'volume_id', 'volume_type')
DOCUMENT_FIELDS = ('uuid', 'node_uuid', 'volume_type', 'properties',
                   'boot_index', 'volume_id', 'extra')
UNSORTABLE = ('extra', 'properties')

REDACTED = {'redacted_contents': '** Value redacted: Requires permission '
                                 'baremetal:volume:view_target_properties '
                                 'access. Permission denied. **'}

VIEW = views.ResourceView(
    resource='volume/targets',
    fields=(('uuid', 1), ('node_uuid', 1), ('volume_type', 1),
            ('properties', 1), ('boot_index', 1), ('volume_id', 1),
            ('extra', 1), ('created_at', 1), ('updated_at', 1)),
    default_list_fields=('uuid', 'node_uuid', 'volume_type', 'boot_index',
                         'volume_id'))


def normalise(values: dict[str, Any]) -> dict[str, Any]:
    return dict(values)


def redact(req, items: list[dict[str, Any]]) -> None:
    """Hide the properties from callers who may not see them; mask the
    secrets in them (CHAP passwords...) for everyone, as every secret."""
    allowed = policy.check('baremetal:volume:view_target_properties',
                           req.context.ctx)
    for item in items:
        if item.get('properties') is None:
            continue
        item['properties'] = secrets.mask_secrets(item['properties']) \
            if allowed else dict(REDACTED)
