"""Retirement (API 1.61): Ironic's rules for a node on its way out.

A retired node keeps running its instance, but once torn down or
cleaned it goes to ``manageable``, never back to ``available``, and
``provide`` is refused. A node cannot be retired while ``available``
(it would be scheduled meanwhile: unretire or manage it first), and
``retired_reason`` only means something on a retired node.
"""

from __future__ import annotations

from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.db import models


def check_update(node: models.Node, values: dict[str, Any]) -> None:
    """Refuse or complete a change of ``retired``/``retired_reason``.

    Unretiring clears the reason (set in ``values``).
    """
    retired = values.get('retired', node.retired)
    if 'retired' in values and bool(values['retired']) != bool(node.retired):
        if not retired:
            values['retired_reason'] = None
        elif node.provision_state == states.AVAILABLE:
            raise exception.InvalidState(
                "Node %s can not have 'retired' set in provision state "
                "'available', the current state is '%s'"
                % (node.uuid, node.provision_state))
    if values.get('retired_reason') and \
            values['retired_reason'] != node.retired_reason and not retired:
        raise exception.InvalidParameterValue(
            err='The retired_reason field can only be set when retired is '
                'True')


def check_provide(node: models.Node) -> None:
    if node.retired:
        raise exception.NodeIsRetired(op='providing', node=node.uuid)


def cleaned_event(node: models.Node, manual: bool) -> str:
    """The event that ends cleaning: back to manageable when the cleaning
    was manual or the node is retired, else to available."""
    return 'manage' if manual or node.retired else 'done'
