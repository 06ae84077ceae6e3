"""Conductors in their own processes over RabbitMQ, on PostgreSQL and
MariaDB: the flow works, and a killed conductor's nodes are taken over."""

from __future__ import annotations

import pytest

from ironside.common import context as ironside_context
from ironside.common import states
from ironside.db import conductors as conductors_db
from ironside.db import nodes as nodes_db
from tests import utils
from tests.functional.fixtures import processes
from tests.functional.fixtures import services
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

CTX = ironside_context.get_admin_context()


def _state(uuid):
    return nodes_db.get_node(uuid).provision_state


def _wait(uuid, state, timeout=30):
    wait_for(lambda: _state(uuid) == state, timeout=timeout, interval=0.1,
             what='node %s to reach %s' % (uuid, state))


def _settled(uuid, state, timeout=30):
    """Wait until the node reached ``state`` and its lock is given back
    (a conductor saves the state, then may clean up before it releases
    the node: a read in between finds the state and the lock)."""
    def _done():
        node = nodes_db.get_node(uuid)
        return node.provision_state == state and node.reservation is None
    wait_for(_done, timeout=timeout, interval=0.1,
             what='node %s to reach %s, unlocked' % (uuid, state))


def _available_node(split, **values):
    uuid = split.rpc.create_node(CTX, utils.fake_node_values(**values))
    split.rpc.do_provisioning_action(CTX, uuid, 'manage')
    _wait(uuid, states.MANAGEABLE)
    split.rpc.do_provisioning_action(CTX, uuid, 'provide')
    _wait(uuid, states.AVAILABLE)
    return uuid


def test_deploy_and_undeploy_across_processes(split):
    for host in ('conductor-a', 'conductor-b'):
        split.start_conductor(host)
    uuids = [_available_node(split, name='node-%d' % i) for i in range(4)]
    for uuid in uuids:
        split.rpc.do_node_deploy(CTX, uuid)
    for uuid in uuids:
        _wait(uuid, states.ACTIVE)
    owners = {split.owner_of(nodes_db.get_node(u)) for u in uuids}
    assert owners <= {'conductor-a', 'conductor-b'}
    for uuid in uuids:
        split.rpc.do_node_tear_down(CTX, uuid)
    for uuid in uuids:
        _wait(uuid, states.AVAILABLE)
    # The operator's log: each conductor honours debug = True, and
    # says when its nodes change state and run their steps.
    logs = ''.join(split.conductors[h].log()
                   for h in ('conductor-a', 'conductor-b'))
    assert ' DEBUG ironside.conductor.task_manager ' in logs
    for uuid in uuids:
        assert 'Node %s (node-' % uuid in logs
    assert 'provision state available -> deploying (target active, ' \
        'event deploy)' in logs
    assert 'deploy step deploy.write_image started' in logs


def _kill_owner(split, uuid):
    owner = split.owner_of(nodes_db.get_node(uuid))
    split.conductors[owner].kill()
    return owner


def test_node_waiting_on_a_killed_conductor_ends_active(split):
    for host in ('conductor-a', 'conductor-b'):
        split.start_conductor(host)
    uuid = _available_node(split, driver_info={
        'fake_step_delays': {'deploy.write_image': 6}})
    split.rpc.do_node_deploy(CTX, uuid)
    _wait(uuid, states.DEPLOYWAIT)
    _kill_owner(split, uuid)
    _settled(uuid, states.ACTIVE, timeout=40)
    node = nodes_db.get_node(uuid)
    assert node.last_error is None


def test_step_interrupted_by_a_kill_fails_clearly(split):
    for host in ('conductor-a', 'conductor-b'):
        split.start_conductor(host)
    uuid = _available_node(split, driver_info={
        'fake_step_delays': {'deploy.deploy': 30}})
    split.rpc.do_node_deploy(CTX, uuid)
    wait_for(lambda: nodes_db.get_node(uuid).deploy_step.get('step') ==
             'deploy', timeout=20)
    owner = _kill_owner(split, uuid)
    _settled(uuid, states.DEPLOYFAIL, timeout=40)
    node = nodes_db.get_node(uuid)
    assert node.failure_reason == 'ConductorDied'
    assert 'conductor %s stopped' % owner in node.last_error
    assert 'deploy.deploy' in node.last_error
    assert node.deploy_step['step'] == 'deploy'


def _instance_of(host):
    return next((c.instance for c in conductors_db.live_conductors(60)
                 if c.hostname == host), None)


def test_conductor_restarted_at_once_after_a_kill_serves_again(split):
    """Issue 17, finding 4: the restart used to be refused for a minute
    (ConductorAlreadyRegistered, a crash loop under a supervisor)."""
    first = split.start_conductor('conductor-a')
    crashed = _instance_of('conductor-a')
    first.kill()
    again = processes.IronsideProcess(
        'ironside-conductor', split.config_for('conductor-a'),
        split.workdir, 'conductor-a-again').start()
    split.conductors['conductor-a-again'] = again

    def _registered():
        assert again.running, again.log()
        return _instance_of('conductor-a') not in (None, crashed)

    wait_for(_registered, timeout=30, interval=0.2,
             what='the restarted conductor to register')
    _available_node(split)  # it serves: manage and provide over RPC

    twin = processes.IronsideProcess(
        'ironside-conductor', split.config_for('conductor-a'),
        split.workdir, 'conductor-a-twin').start()
    assert twin.process.wait(timeout=60) == 1
    lines = [line for line in twin.log().splitlines()
             if line.startswith('ironside:')]
    assert lines == ['ironside: Conductor conductor-a already registered: '
                     'another running process uses this host name. Not '
                     'starting.'], twin.log()
    assert 'Traceback' not in twin.log()
    assert again.running
