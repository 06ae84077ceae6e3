"""What Ironic allows when boot mode or secure boot is changed (1.76).

Shared by the API (which answers at once) and the conductor (which checks
again under the node's lock).
"""

from __future__ import annotations

from ironside.common import exception
from ironside.common import states

BOOT_MODES = ('uefi', 'bios')

# Provision states in which Ironic refuses to change boot settings: the
# node is moving and a change could interfere with what is under way.
REFUSED_STATES = states.WORKING_STATES | states.WAIT_STATES


def check_state(uuid: str, provision_state: str, action: str) -> None:
    """409 when the node is in a transitional state."""
    if provision_state in REFUSED_STATES:
        raise exception.InvalidState(
            'Node %s is in state %s. Since the node is transitioning, '
            '%s will not be set as this may interfere with ongoing '
            'changes. Try again later.' % (uuid, provision_state, action))
