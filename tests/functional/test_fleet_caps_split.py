"""Fleet caps held across two conductor processes over RabbitMQ (on
PostgreSQL and MariaDB): [conductor]max_concurrent_deploy refuses the
fleet's deploys beyond it whichever conductor owns the node, and
[site]max_nodes_in_flight holds for the site actions of both conductors
together, not per conductor."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import states
from ironside.db import fleet as fleet_db
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import actions
from ironside.strategy.nodes import conductor as conductor_nodes
from ironside.strategy.run.in_flight import SITE_IN_FLIGHT
from tests import utils
from tests.functional.fixtures import services
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

CTX = ironside_context.get_admin_context()
HOSTS = ('conductor-a', 'conductor-b')
IN_FLIGHT = (states.VERIFYING, states.CLEANING, states.CLEANWAIT,
             states.DEPLOYING, states.DEPLOYWAIT)


def _state(uuid):
    return nodes_db.get_node(uuid).provision_state


def _wait(uuid, state, timeout=30):
    wait_for(lambda: _state(uuid) == state, timeout=timeout, interval=0.1,
             what='node %s to reach %s' % (uuid, state))


def _start(split, **conductor_options):
    split.sections['conductor'].update(conductor_options)
    for host in HOSTS:
        split.start_conductor(host)


def _nodes_owned_by_each(split, count, **values):
    """``count`` nodes owned by each conductor (by the hash ring)."""
    owned = {host: [] for host in HOSTS}
    index = 0
    while min(len(v) for v in owned.values()) < count:
        uuid = split.rpc.create_node(CTX, utils.fake_node_values(
            name='node-%d' % index, **values))
        index += 1
        owner = split.owner_of(nodes_db.get_node(uuid))
        if len(owned[owner]) < count:
            owned[owner].append(uuid)
        else:
            split.rpc.destroy_node(CTX, uuid)
    return owned


def test_deploy_cap_holds_across_conductors(split):
    _start(split, max_concurrent_deploy=3)
    owned = _nodes_owned_by_each(split, 3, driver_info={
        'fake_step_delays': {'deploy.write_image': 60}})
    uuids = owned[HOSTS[0]] + owned[HOSTS[1]]
    for uuid in uuids:
        split.rpc.do_provisioning_action(CTX, uuid, 'manage')
    for uuid in uuids:
        _wait(uuid, states.MANAGEABLE)
        split.rpc.do_provisioning_action(CTX, uuid, 'provide')
    for uuid in uuids:
        _wait(uuid, states.AVAILABLE)

    admitted, refused = [], []
    start = threading.Barrier(len(uuids))

    def _deploy(uuid):
        start.wait()
        try:
            split.rpc.do_node_deploy(CTX, uuid)
            admitted.append(uuid)
        except exception.ConcurrentActionLimit:
            refused.append(uuid)

    threads = [threading.Thread(target=_deploy, args=(u,)) for u in uuids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each conductor owns 3 nodes: per-conductor caps would admit all 6.
    assert len(admitted) == 3, (admitted, refused)
    assert len(refused) == 3
    for uuid in refused:
        node = nodes_db.get_node(uuid)
        assert node.provision_state == states.AVAILABLE
        assert node.reservation is None
    deploying = [u for u in uuids
                 if _state(u) in (states.DEPLOYING, states.DEPLOYWAIT)]
    assert sorted(deploying) == sorted(admitted)


def _strategy(name, tag):
    return {'schema': 'shipyard/DeploymentStrategy/v1',
            'metadata': {'schema': 'metadata/Document/v1', 'name': name,
                         'layeringDefinition': {'abstract': False,
                                                'layer': 'global'},
                         'storagePolicy': 'cleartext'},
            'data': {'groups': [{
                'name': name, 'critical': True, 'depends_on': [],
                'selectors': [{'node_names': [], 'node_labels': [],
                               'node_tags': [tag], 'rack_names': []}],
                'success_criteria': {'percent_successful_nodes': 100}}]}}


def _slots_held():
    with db_session.reader() as session:
        return dict(session.execute(
            sa.select(models.FleetSlot.host, models.FleetSlot.used)
            .where(models.FleetSlot.name == SITE_IN_FLIGHT)).all())


def _placed(uuid: str, host: str) -> bool:
    """Whether ``host`` owns the action, claiming it if not: a conductor
    may claim a new action before the test does (it is anyone's until
    then); it is then taken over as a conductor takes one over, and the
    other conductor stops its runner when its heartbeat finds the action
    no longer its own."""
    row = site_db.get_action(uuid)
    if row.owner == host:
        return True
    site_db.claim_action(row.id, host, row.owner, row.heartbeat_at)
    return False


def _where_it_stands(split, uuids: list[str]) -> str:
    """What a stalled run leaves to read (CI once saw one, on MariaDB
    under load, and kept nothing else): the nodes, the slots, the
    actions, and each conductor's warnings and last lines."""
    lines = ['nodes: %s' % {u: _state(u) for u in uuids},
             'slots held: %s' % _slots_held()]
    with db_session.reader() as session:
        for action in session.scalars(sa.select(site_models.SiteAction)):
            lines.append('action %s: %s owner %s' % (
                action.uuid, action.state, action.owner))
    for host, proc in split.conductors.items():
        log = proc.log().splitlines()
        lines.append('--- %s: warnings and errors ---' % host)
        lines.extend([line for line in log if ' WARNING ' in line or
                      ' ERROR ' in line][-40:])
        lines.append('--- %s: last 40 lines ---' % host)
        lines.extend(log[-40:])
    return '\n'.join(lines)


def test_site_in_flight_cap_holds_across_conductors(split):
    split.sections['site'] = {'max_nodes_in_flight': 2,
                              'node_poll_interval': 0.05,
                              'action_check_interval': 0.2}
    _start(split)
    backend = conductor_nodes.ConductorNodes(split.rpc)
    uuids = []
    for tag in ('rack-a', 'rack-b'):
        for i in range(3):
            uuids.append(split.rpc.create_node(CTX, utils.fake_node_values(
                name='%s-%d' % (tag, i), extra={'rack': tag, 'tags': [tag]},
                driver_info={'fake_step_delay': 0.5})))
    # One action for each conductor (a conductor resumes the actions it
    # owns).
    for host, tag in zip(HOSTS, ('rack-a', 'rack-b'), strict=True):
        row = actions.create_action(backend, 'deploy_site', documents=[
            _strategy('deploy-' + tag, tag)])
        wait_for(lambda u=row.uuid, h=host: _placed(u, h),
                 what='the action placed')

    most_in_flight, hosts_seen, over = 0, set(), []
    stop = threading.Event()

    def _watch():
        nonlocal most_in_flight
        while not stop.is_set():
            flying = [u for u in uuids if _state(u) in IN_FLIGHT]
            most_in_flight = max(most_in_flight, len(flying))
            held = _slots_held()
            if sum(held.values()) > 2:
                over.append(held)
            hosts_seen.update(h for h, used in held.items() if used)
            stop.wait(0.05)

    watcher = threading.Thread(target=_watch)
    watcher.start()
    try:
        wait_for(lambda: all(_state(u) == states.ACTIVE for u in uuids),
                 timeout=180, interval=0.5, what='every node to be active')
    except AssertionError as exc:
        raise AssertionError('%s\n%s' % (exc, _where_it_stands(
            split, uuids))) from None
    finally:
        stop.set()
        watcher.join()
    assert over == []
    assert most_in_flight == 2
    assert hosts_seen == set(HOSTS)
    wait_for(lambda: fleet_db.slots_used(SITE_IN_FLIGHT, 60) == 0,
             timeout=20, what='the slots to be given back')
