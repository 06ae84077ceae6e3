"""Conductor groups over RabbitMQ (on PostgreSQL and MariaDB): the nodes
of a group are only ever handled by the conductors of that group, also
when one of them dies, and wait when none is left rather than go to a
conductor of another group."""

from __future__ import annotations

import pytest

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import states
from ironside.db import conductors as conductors_db
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from tests import utils
from tests.functional.fixtures import services
from tests.functional.fixtures.ironside_process import FAST_CONDUCTOR
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

CTX = ironside_context.get_admin_context()
GROUPS = {'rack-a': ('conductor-a1', 'conductor-a2'),
          'rack-b': ('conductor-b1',)}


def _state(uuid):
    return nodes_db.get_node(uuid).provision_state


def _wait(uuid, state, timeout=40):
    wait_for(lambda: _state(uuid) == state, timeout=timeout, interval=0.1,
             what='node %s to reach %s' % (uuid, state))


def _handlers(uuid) -> set[str]:
    """Every conductor that wrote the node's history."""
    node = nodes_db.get_node(uuid)
    return {h.conductor for h in history_db.list_for_node(node.id)
            if h.conductor}


def _start_groups(split):
    for group, hosts in GROUPS.items():
        split.sections['conductor']['conductor_group'] = group
        for host in hosts:
            split.start_conductor(host)


def _to_active(split, uuids):
    for verb, state in (('manage', states.MANAGEABLE),
                        ('provide', states.AVAILABLE)):
        for uuid in uuids:
            split.rpc.do_provisioning_action(CTX, uuid, verb)
        for uuid in uuids:
            _wait(uuid, state)
    for uuid in uuids:
        split.rpc.do_node_deploy(CTX, uuid)
    for uuid in uuids:
        _wait(uuid, states.ACTIVE)


def test_nodes_stay_within_their_conductor_group(split):
    _start_groups(split)
    nodes = {group: [split.rpc.create_node(CTX, utils.fake_node_values(
        name='%s-%d' % (group, i), conductor_group=group))
        for i in range(12 if group == 'rack-a' else 3)]
        for group in GROUPS}
    _to_active(split, nodes['rack-a'] + nodes['rack-b'])
    for uuid in nodes['rack-a'] + nodes['rack-b']:
        split.rpc.do_node_tear_down(CTX, uuid)
    for uuid in nodes['rack-a'] + nodes['rack-b']:
        _wait(uuid, states.AVAILABLE)

    for group, uuids in nodes.items():
        for uuid in uuids:
            assert nodes_db.get_node(uuid).conductor_group == group
            assert _handlers(uuid) <= set(GROUPS[group]), uuid
    # Both conductors of rack-a had a share of its nodes (12 random UUIDs
    # all on one of two conductors: about one chance in a thousand).
    owners = {split.owner_of(nodes_db.get_node(u)) for u in nodes['rack-a']}
    assert owners == set(GROUPS['rack-a'])


def test_a_dead_conductors_nodes_go_to_its_group_only(split):
    _start_groups(split)
    slow = {'fake_step_delays': {'deploy.write_image': 5}}
    a_nodes = [split.rpc.create_node(CTX, utils.fake_node_values(
        name='a-%d' % i, conductor_group='rack-a', driver_info=slow))
        for i in range(4)]
    b_node = split.rpc.create_node(CTX, utils.fake_node_values(
        name='b-0', conductor_group='rack-b'))
    for uuid in a_nodes:
        for verb, state in (('manage', states.MANAGEABLE),
                            ('provide', states.AVAILABLE)):
            split.rpc.do_provisioning_action(CTX, uuid, verb)
            _wait(uuid, state)
        split.rpc.do_node_deploy(CTX, uuid)
    for uuid in a_nodes:
        _wait(uuid, states.DEPLOYWAIT)

    # The first conductor of rack-a dies with its nodes waiting: the
    # other conductor of rack-a finishes them.
    split.conductors['conductor-a1'].kill()
    for uuid in a_nodes:
        _wait(uuid, states.ACTIVE, timeout=60)
        assert _handlers(uuid) <= set(GROUPS['rack-a'])

    # With no conductor of rack-a left, its nodes wait: requests for them
    # are refused, and rack-b's conductor never takes them.
    split.conductors['conductor-a2'].kill()
    wait_for(lambda: 'conductor-a2' not in {
        c.hostname for c in conductors_db.live_conductors(
            FAST_CONDUCTOR['heartbeat_timeout'])},
        timeout=30, interval=0.2, what='conductor-a2 to be found dead')
    split.rpc.ring.reset()
    with pytest.raises(exception.NoValidHost):
        split.rpc.do_node_tear_down(CTX, a_nodes[0])
    assert _state(a_nodes[0]) == states.ACTIVE
    _to_active(split, [b_node])
    for uuid in a_nodes:
        assert 'conductor-b1' not in _handlers(uuid)

    # A conductor of rack-a comes back: it takes its group's nodes.
    split.sections['conductor']['conductor_group'] = 'rack-a'
    split.start_conductor('conductor-a3')
    split.rpc.ring.reset()
    split.rpc.do_node_tear_down(CTX, a_nodes[0])
    _wait(a_nodes[0], states.AVAILABLE)
    assert 'conductor-a3' in _handlers(a_nodes[0])
