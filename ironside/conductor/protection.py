"""Protected nodes (API 1.48): Ironic's rules for a node kept as it is.

Only a deployed node (``active`` or ``rescue``) can be protected, and
``protected_reason`` only means something on a protected node. A
protected node is never undeployed, rebuilt or deleted: its instance is
too precious to lose by mistake.
"""

from __future__ import annotations

from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.db import models

PROTECTABLE_STATES = (states.ACTIVE, states.RESCUE)


def check_update(node: models.Node, values: dict[str, Any]) -> None:
    """Refuse or complete a change of ``protected``/``protected_reason``.

    Unprotecting clears the reason (set in ``values``).
    """
    protected = values.get('protected', node.protected)
    if 'protected' in values and \
            bool(values['protected']) != bool(node.protected):
        if not protected:
            values['protected_reason'] = None
        elif node.provision_state not in PROTECTABLE_STATES:
            raise exception.InvalidState(
                "Node %s can only be made protected in provision states "
                "'active' or 'rescue', the current state is '%s'"
                % (node.uuid, node.provision_state))
    if values.get('protected_reason') and \
            values['protected_reason'] != node.protected_reason and \
            not protected:
        raise exception.InvalidParameterValue(
            err='The protected_reason field can only be set when protected '
                'is True')


def check_not_protected(node: models.Node) -> None:
    """403 for an undeploy, rebuild or deletion of a protected node."""
    if node.protected:
        raise exception.NodeProtected(node=node.uuid)
