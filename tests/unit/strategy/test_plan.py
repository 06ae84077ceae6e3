"""The plan's order of groups: which ready group runs next."""

from __future__ import annotations

from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.action_input import ActionInput
from tests.unit.strategy.conftest import SPEC_STRATEGY

# Group sizes of the example site (examples/site/inventory.yaml).
SPEC_SIZES = {'ntp-node': 1, 'control-nodes': 4, 'monitoring-nodes': 2,
              'compute-nodes-2': 3, 'compute-nodes-1': 4}


def spec_plan(sizes=SPEC_SIZES):
    strategy = shipyard.load(SPEC_STRATEGY)
    return ActionPlan(
        ActionInput(()), list(strategy.groups), [], {},
        {name: ['n%d' % i for i in range(size)]
         for name, size in sizes.items()}, {}, {})


def test_spec_order():
    assert spec_plan().remaining_order([]) == [
        'ntp-node', 'control-nodes', 'monitoring-nodes', 'compute-nodes-2',
        'compute-nodes-1']


def test_ready_groups_wait_for_their_dependencies():
    plan = spec_plan()
    assert [g.name for g in plan.ready([])] == ['ntp-node',
                                                'monitoring-nodes']
    assert [g.name for g in plan.ready(['monitoring-nodes'])] == \
        ['ntp-node']
    assert [g.name for g in plan.ready(['ntp-node'])] == [
        'control-nodes', 'monitoring-nodes']
    assert plan.ready(list(SPEC_SIZES)) == []


def test_critical_first_then_fewer_nodes_then_document_order():
    plan = spec_plan(dict(SPEC_SIZES, **{'monitoring-nodes': 0,
                                        'ntp-node': 9}))
    assert plan.ready([])[0].name == 'ntp-node'
    plan = spec_plan(dict(SPEC_SIZES, **{'compute-nodes-1': 3}))
    assert plan.remaining_order(['ntp-node', 'control-nodes']) == [
        'monitoring-nodes', 'compute-nodes-1', 'compute-nodes-2']
