"""The hash ring spreads nodes evenly and moves few when conductors change."""

from __future__ import annotations

import collections
import types
import uuid

import pytest

from ironside.common import exception
from ironside.common import hash_ring

NODES = [str(uuid.UUID(int=i * 7919 + 1)) for i in range(6000)]


def _conductor(name, group='', hardware_types=('fake-hardware',)):
    return types.SimpleNamespace(hostname=name, conductor_group=group,
                                 hardware_types=list(hardware_types))


def _owners(conductors):
    ring = hash_ring.HashRingManager(lambda: conductors)
    return {node: ring.owner(node, 'fake-hardware') for node in NODES}


def test_three_conductors_share_the_nodes_evenly_by_default():
    owners = _owners([_conductor('c%d' % i) for i in range(3)])
    shares = collections.Counter(owners.values())
    # With the old default (exponent 5) the busiest owned ~40 %: a phase
    # ends with the busiest conductor, so 3 conductors did ~2.3x one.
    assert max(shares.values()) / len(NODES) < 0.36


def test_a_small_exponent_spreads_worse(conf):
    conf.set('conductor', hash_partition_exponent=2)
    owners = _owners([_conductor('c%d' % i) for i in range(3)])
    assert max(collections.Counter(owners.values()).values()) / \
        len(NODES) > 0.36


def test_a_conductor_joining_takes_nodes_only_for_itself():
    before = _owners([_conductor('c%d' % i) for i in range(3)])
    after = _owners([_conductor('c%d' % i) for i in range(4)])
    moved = [node for node in NODES if before[node] != after[node]]
    assert {after[node] for node in moved} == {'c3'}
    assert 0.20 < len(moved) / len(NODES) < 0.30


def test_a_conductor_leaving_moves_only_its_own_nodes():
    before = _owners([_conductor('c%d' % i) for i in range(3)])
    after = _owners([_conductor('c%d' % i) for i in range(2)])
    moved = {node for node in NODES if before[node] != after[node]}
    assert moved == {node for node in NODES if before[node] == 'c2'}


def test_groups_and_hardware_types_have_rings_of_their_own():
    ring = hash_ring.HashRingManager(lambda: [
        _conductor('a', 'rack1'), _conductor('b', '', ['ipmi'])])
    assert ring.owner(NODES[0], 'fake-hardware', 'RACK1') == 'a'
    assert ring.owner(NODES[0], 'ipmi') == 'b'
    with pytest.raises(exception.NoValidHost, match='group "rack1"'):
        ring.owner(NODES[0], 'ipmi', 'rack1')


def test_the_exponent_is_bounded(conf):
    with pytest.raises(ValueError):
        conf.set('conductor', hash_partition_exponent=17)
