"""Fleet caps on deploys and cleanings ([conductor]max_concurrent_deploy
and max_concurrent_clean), counted in the database: refused as Ironic
refuses them, nothing written, and never passed twice at once."""

from __future__ import annotations

import threading
import time

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.db import fleet as fleet_db
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from tests import utils
from tests.utils import wait_for


def _state(uuid):
    return nodes_db.get_node(uuid).provision_state


def _wait(uuid, state, timeout=10):
    wait_for(lambda: _state(uuid) == state, timeout,
             what='node %s to reach %s' % (uuid, state))


def _available(rpc, context, make_node, **values):
    node = make_node(**values)
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait(node.uuid, states.MANAGEABLE)
    rpc.do_provisioning_action(context, node.uuid, 'provide')
    _wait(node.uuid, states.AVAILABLE)
    return node.uuid


def _slow_deploy():
    # The write_image step polls until its delay is over: the node waits
    # in "wait call-back", counted by the deploy cap, meanwhile.
    return {'fake_step_delays': {'deploy.write_image': 30}}


def test_deploy_over_the_cap_is_refused_and_changes_nothing(
        conf, rpc, context, make_node):
    conf.set('conductor', max_concurrent_deploy=1)
    busy = _available(rpc, context, make_node, name='busy',
                      driver_info=_slow_deploy())
    other = _available(rpc, context, make_node, name='other')
    rpc.do_node_deploy(context, busy)
    _wait(busy, states.DEPLOYWAIT)
    before = len(history_db.list_for_node(nodes_db.get_node(other).id))

    with pytest.raises(exception.ConcurrentActionLimit) as err:
        rpc.do_node_deploy(context, other)
    assert err.value.code == 503
    assert 'concurrent action limit for provisioning' in str(err.value)
    assert '1' not in str(err.value)   # the limit itself is not told
    node = nodes_db.get_node(other)
    assert node.provision_state == states.AVAILABLE
    assert node.target_provision_state is None
    assert node.reservation is None
    assert len(history_db.list_for_node(node.id)) == before

    # Once the slot is free, the same request goes through.
    rpc.do_provisioning_action(context, busy, 'abort')
    wait_for(lambda: _state(busy) != states.DEPLOYWAIT, 10)
    rpc.do_node_deploy(context, other)
    _wait(other, states.ACTIVE)


def test_rebuild_counts_against_the_deploy_cap(conf, rpc, context,
                                               make_node):
    uuid = _available(rpc, context, make_node)
    rpc.do_node_deploy(context, uuid)
    _wait(uuid, states.ACTIVE)
    utils.update_node(_available(rpc, context, make_node, name='w'),
                         {'provision_state': states.DEPLOYWAIT})
    conf.set('conductor', max_concurrent_deploy=1)
    with pytest.raises(exception.ConcurrentActionLimit):
        rpc.do_node_deploy(context, uuid, rebuild=True)
    assert _state(uuid) == states.ACTIVE


def test_tear_down_and_manual_clean_obey_the_clean_cap(conf, rpc, context,
                                                       make_node):
    active = _available(rpc, context, make_node, name='active')
    rpc.do_node_deploy(context, active)
    _wait(active, states.ACTIVE)
    manageable = make_node(name='manageable').uuid
    rpc.do_provisioning_action(context, manageable, 'manage')
    _wait(manageable, states.MANAGEABLE)
    cleaning = _available(rpc, context, make_node, name='cleaning')
    utils.update_node(cleaning, {'provision_state': states.CLEANWAIT})
    conf.set('conductor', max_concurrent_clean=1)

    with pytest.raises(exception.ConcurrentActionLimit) as err:
        rpc.do_node_tear_down(context, active)
    assert 'unprovisioning' in str(err.value)
    assert _state(active) == states.ACTIVE
    with pytest.raises(exception.ConcurrentActionLimit) as err:
        rpc.do_node_clean(context, manageable,
                          [{'interface': 'deploy', 'step': 'erase_devices'}])
    assert 'for cleaning' in str(err.value)
    assert _state(manageable) == states.MANAGEABLE
    # As in Ironic, provide is not refused (its cleaning is counted).
    rpc.do_provisioning_action(context, manageable, 'provide')
    _wait(manageable, states.AVAILABLE)

    conf.set('conductor', max_concurrent_clean=2)
    rpc.do_node_tear_down(context, active)
    _wait(active, states.AVAILABLE)


def test_two_deciders_never_pass_the_last_slot(db, make_node):
    """Many threads (conductors, for the database) each move a node into
    "deploying" under a cap of 3, each pausing between its count and its
    write: exactly 3 get through. Run on PostgreSQL and MariaDB with
    IRONSIDE_TEST_DB."""
    uuids = [make_node(name='n%d' % i).uuid for i in range(12)]
    admitted, refused = [], []
    start = threading.Barrier(len(uuids))

    def _move(uuid):
        def _write():
            time.sleep(0.05)   # widen the window between count and write
            utils.update_node(uuid, {'provision_state':
                                        states.DEPLOYING})
            return uuid
        start.wait()
        try:
            admitted.append(fleet_db.admit(
                'deploy', (states.DEPLOYING, states.DEPLOYWAIT), 3,
                'provisioning', _write))
        except exception.ConcurrentActionLimit:
            refused.append(uuid)

    threads = [threading.Thread(target=_move, args=(u,)) for u in uuids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(admitted) == 3
    assert len(refused) == 9
    deploying = [u for u in uuids if _state(u) == states.DEPLOYING]
    assert sorted(deploying) == sorted(admitted)
