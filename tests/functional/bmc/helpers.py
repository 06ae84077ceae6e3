"""Waiting on nodes in BMC tests."""

from __future__ import annotations

from ironside.common import states
from ironside.db import nodes as nodes_db
from tests.utils import wait_for


def node(node_id):
    return nodes_db.get_node(node_id)


def _described(node_id, what: str) -> AssertionError:
    """The timeout, with the node as it is when the wait gave up."""
    now = node(node_id)
    return AssertionError(
        '%s; the node is now provision_state=%s power_state=%s '
        'target_power_state=%s reservation=%s last_error=%s'
        % (what, now.provision_state, now.power_state,
           now.target_power_state, now.reservation, now.last_error))


def wait_state(node_id, state, timeout=30):
    """Wait until the node is in ``state`` and no worker holds it."""
    try:
        return wait_for(lambda: node(node_id).provision_state == state and
                        node(node_id).reservation is None,
                        timeout, what='node to reach %s' % state)
    except AssertionError as exc:
        raise _described(node_id, str(exc)) from None


def wait_power(node_id, power_state, timeout=30):
    try:
        wait_for(lambda: (node(node_id).power_state,
                          node(node_id).target_power_state,
                          node(node_id).reservation) ==
                 (power_state, None, None), timeout,
                 what='node power %s' % power_state)
    except AssertionError as exc:
        raise _described(node_id, str(exc)) from None


def wait_power_settled(node_id, timeout=60):
    """Wait until the power action ended and its worker let go."""
    wait_for(lambda: node(node_id).target_power_state is None and
             node(node_id).reservation is None, timeout,
             what='power action to end')
    return node(node_id)


def manage(rpc, context, node_id):
    rpc.do_provisioning_action(context, node_id, 'manage')
    return wait_state(node_id, states.MANAGEABLE)


def to_available(rpc, context, node_id):
    manage(rpc, context, node_id)
    rpc.do_provisioning_action(context, node_id, 'provide')
    return wait_state(node_id, states.AVAILABLE)
