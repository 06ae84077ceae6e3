"""The conductor's log for operators: a line per provision state change
and per step start and end, each naming the node, and no secret."""

from __future__ import annotations

import logging

from ironside.common import states
from ironside.db import nodes as nodes_db
from tests.utils import wait_for


def _wait_state(uuid, state):
    wait_for(lambda: nodes_db.get_node(uuid).provision_state == state, 10,
             what='node %s to reach %s' % (uuid, state))


def test_state_changes_and_steps_are_logged(rpc, context, make_node,
                                            caplog):
    caplog.set_level(logging.INFO, logger='ironside.conductor')
    node = make_node(name='logged', driver_info={
        'fake_password': 'hunter2',
        'fake_fail_steps': ['deploy.prepare_instance_boot']})
    rpc.do_provisioning_action(context, node.uuid, 'manage')
    _wait_state(node.uuid, states.MANAGEABLE)
    rpc.do_provisioning_action(context, node.uuid, 'provide')
    _wait_state(node.uuid, states.AVAILABLE)
    rpc.do_node_deploy(context, node.uuid)
    _wait_state(node.uuid, states.DEPLOYFAIL)
    prefix = 'Node %s (logged) ' % node.uuid
    lines = [r.getMessage()[len(prefix):] for r in caplog.records
             if r.getMessage().startswith(prefix)]
    for expected in (
            'provision state enroll -> verifying (target manageable, '
            'event manage)',
            'provision state verifying -> manageable (target None, '
            'event done)',
            'provision state available -> deploying (target active, '
            'event deploy)',
            'deploy step deploy.deploy started',
            'deploy step deploy.prepare_instance_boot started',
            'provision state deploying -> deploy failed (target active, '
            'event fail)'):
        assert expected in lines, lines
    assert any(line.startswith('deploy step deploy.deploy finished in ')
               for line in lines), lines
    assert any(line.startswith(
        'deploy step deploy.prepare_instance_boot failed: ')
        for line in lines), lines
    assert 'hunter2' not in caplog.text
