"""Schema of a chassis body: its creation and the result of a patch."""

from __future__ import annotations

DESCRIPTION_MAX_LENGTH = 255

# As Ironic's: every field may be null (a null description or extra is
# the same as none given).
CHASSIS = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null'], 'format': 'uuid'},
        'description': {'type': ['string', 'null'],
                        'maxLength': DESCRIPTION_MAX_LENGTH},
        'extra': {'type': ['object', 'null']},
    },
    'additionalProperties': False,
}
