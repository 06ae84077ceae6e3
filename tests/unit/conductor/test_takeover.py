"""Recovering nodes whose conductor died or restarted."""

from __future__ import annotations

import datetime

from ironside.common import states
from ironside.conductor import periodics
from ironside.db import conductors as conductors_db
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from tests import utils
from tests.utils import wait_for


def _register_dead_conductor(host='dead-conductor'):
    conductors_db.register_conductor(host, '', ['fake-hardware'], [], 60)
    with db_session.writer() as session:
        session.query(models.Conductor).filter_by(hostname=host).update(
            {'heartbeat_at': models.utcnow() - datetime.timedelta(hours=1)})


def _deploying_node(make_node, host, step='write_image', index=1):
    node = make_node()
    utils.update_node(node.id, {
        'provision_state': states.DEPLOYING,
        'target_provision_state': states.ACTIVE,
        'reservation': host,
        'deploy_step': {'interface': 'deploy', 'step': step,
                        'priority': 80, 'args': {}},
        'driver_internal_info': {'deploy_step_index': index}})
    return node


def test_dead_conductors_working_node_fails_clearly(conductor, make_node):
    _register_dead_conductor()
    node = _deploying_node(make_node, 'dead-conductor')
    periodics.take_over(conductor)
    node = nodes_db.get_node(node.id)
    assert node.reservation is None
    assert node.provision_state == states.DEPLOYFAIL
    assert node.failure_reason == 'ConductorDied'
    assert 'conductor dead-conductor stopped' in node.last_error
    assert 'deploy.write_image' in node.last_error
    assert node.deploy_step['step'] == 'write_image'
    assert conductors_db.get_conductor('dead-conductor').online is False


def test_waiting_node_of_a_dead_conductor_is_resumed(conductor, rpc,
                                                     context, make_node):
    _register_dead_conductor()
    node = make_node()
    steps = [{'interface': 'deploy', 'step': s, 'priority': p, 'args': {}}
             for s, p in (('deploy', 100), ('write_image', 80),
                          ('prepare_instance_boot', 60),
                          ('boot_instance', 20))]
    utils.update_node(node.id, {
        'provision_state': states.DEPLOYWAIT,
        'target_provision_state': states.ACTIVE,
        'deploy_step': steps[1],
        'driver_internal_info': {'deploy_steps': steps,
                                 'deploy_step_index': 1,
                                 'deploy_polling': True}})
    periodics.take_over(conductor)
    wait_for(lambda: nodes_db.get_node(node.id).provision_state ==
             states.ACTIVE, what='the waiting deploy to finish')


def test_own_stale_locks_are_recovered_at_start(db, fast_conductor_options):
    from ironside.conductor import manager as conductor_manager
    from tests import utils

    node = nodes_db.create_node(utils.fake_node_values(
        provision_state=states.CLEANING, reservation='test-conductor',
        clean_step={'interface': 'deploy', 'step': 'erase_devices_metadata'},
        power_interface='fake', management_interface='fake',
        deploy_interface='fake', boot_interface='fake'))
    manager = conductor_manager.ConductorManager('test-conductor')
    manager.init_host()
    try:
        node = nodes_db.get_node(node.id)
        assert node.reservation is None
        assert node.provision_state == states.CLEANFAIL
        assert 'conductor test-conductor stopped' in node.last_error
    finally:
        manager.del_host()


def test_live_conductors_nodes_are_left_alone(conductor, make_node):
    conductors_db.register_conductor('busy-conductor', '',
                                     ['fake-hardware'], [], 60)
    node = _deploying_node(make_node, 'busy-conductor')
    periodics.take_over(conductor)
    node = nodes_db.get_node(node.id)
    assert node.reservation == 'busy-conductor'
    assert node.provision_state == states.DEPLOYING
