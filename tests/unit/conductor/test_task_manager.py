"""Node locks: atomic, released on every path, refused when taken."""

from __future__ import annotations

import threading

import pytest

from ironside.common import exception
from ironside.common import states
from ironside.db import nodes as nodes_db
from tests import utils
from tests.utils import wait_for


def test_only_one_of_many_racing_conductors_gets_the_lock(make_node):
    node = make_node()
    winners, losers = [], []
    barrier = threading.Barrier(8)

    def _race(host):
        barrier.wait()
        try:
            nodes_db.reserve_node(host, node.id)
            winners.append(host)
        except exception.NodeLocked:
            losers.append(host)

    threads = [threading.Thread(target=_race, args=('host-%d' % i,))
               for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(winners) == 1 and len(losers) == 7
    assert nodes_db.get_node(node.id).reservation == winners[0]


def test_lock_released_when_the_block_raises(conductor, context, make_node):
    node = make_node()
    with pytest.raises(RuntimeError):
        with conductor.acquire(context, node.uuid):
            assert nodes_db.get_node(node.id).reservation == 'test-conductor'
            raise RuntimeError('boom')
    assert nodes_db.get_node(node.id).reservation is None


def test_locked_node_is_refused_with_the_holder_named(conductor, context,
                                                      make_node):
    node = make_node()
    nodes_db.reserve_node('other-host', node.id)
    with pytest.raises(exception.NodeLocked, match='locked by host '
                                                   'other-host'):
        conductor.acquire(context, node.uuid)
    assert nodes_db.get_node(node.id).reservation == 'other-host'


def test_shared_task_takes_no_lock(conductor, context, make_node):
    node = make_node()
    nodes_db.reserve_node('other-host', node.id)
    with conductor.acquire(context, node.uuid, shared=True) as task:
        assert task.node.uuid == node.uuid
    assert nodes_db.get_node(node.id).reservation == 'other-host'


def test_worker_crash_fails_the_node_and_releases_the_lock(
        conductor, context, make_node):
    node = make_node()

    def _explode(task):
        raise KeyError('a bug')

    with conductor.acquire(context, node.uuid, purpose='verifying') as task:
        task.process_event('manage', callback=_explode)
    wait_for(lambda: nodes_db.get_node(node.id).reservation is None)
    node = nodes_db.get_node(node.id)
    assert node.provision_state == states.ENROLL
    assert "Unexpected error while verifying: 'a bug'" == node.last_error
    assert node.failure_reason == 'InternalError'


def test_full_worker_pool_refuses_and_changes_nothing(
        db, fast_conductor_options, conf, context):
    from ironside.conductor import manager as conductor_manager
    from ironside.conductor import rpcapi

    conf.set('conductor', workers_pool_size=2)
    manager = conductor_manager.ConductorManager('test-conductor')
    manager.init_host()
    try:
        rpc = rpcapi.ConductorAPI(local_manager=manager)
        busy = []
        for _ in range(3):
            uuid = rpc.create_node(context, utils.fake_node_values(
                driver_info={'fake_step_delays': {'deploy.deploy': 2}}))
            utils.update_node(uuid, {'provision_state': states.AVAILABLE})
            busy.append(uuid)
        rpc.do_node_deploy(context, busy[0])
        rpc.do_node_deploy(context, busy[1])
        with pytest.raises(exception.NoFreeConductorWorker):
            rpc.do_node_deploy(context, busy[2])
        refused = nodes_db.get_node(busy[2])
        assert refused.provision_state == states.AVAILABLE
        assert refused.target_provision_state is None
        assert refused.reservation is None
    finally:
        manager.del_host()


def test_a_waiting_steps_poll_is_scheduled_once_the_node_is_free(
        rpc, conductor, context, make_node, monkeypatch):
    # The fake write_image step waits 0 s and asks to be polled after
    # 0.01 s: a poll scheduled while the lock was still held would come
    # before the release under load, find the node locked, and wait 0.1 s
    # more for its retry.
    node = make_node()
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    wait_for(lambda: nodes_db.get_node(node.id).provision_state ==
             states.MANAGEABLE)
    rpc.do_provisioning_action(context, node.uuid, 'provide')
    wait_for(lambda: nodes_db.get_node(node.id).provision_state ==
             states.AVAILABLE)
    holders = []
    schedule = conductor.schedule_poll

    def _schedule(node_uuid, delay):
        holders.append(nodes_db.get_node(node_uuid).reservation)
        schedule(node_uuid, delay)

    monkeypatch.setattr(conductor, 'schedule_poll', _schedule)
    rpc.do_node_deploy(context, node.uuid)
    wait_for(lambda: nodes_db.get_node(node.id).provision_state ==
             states.ACTIVE)
    assert holders and holders == [None] * len(holders)


def test_what_waits_for_the_release_runs_even_if_the_release_fails(
        conductor, context, make_node, monkeypatch):
    node = make_node()
    ran = []

    def _release_fails(*args, **kwargs):
        raise RuntimeError('release failed')

    with pytest.raises(RuntimeError, match='release failed'):
        with conductor.acquire(context, node.uuid) as task:
            task.when_released(lambda: ran.append('after'))
            monkeypatch.setattr(nodes_db, 'release_node', _release_fails)
    assert ran == ['after']
