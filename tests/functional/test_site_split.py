"""The example site with conductors split from the API over RabbitMQ (on
PostgreSQL and MariaDB), and a conductor killed in the middle of a site
action.

Two ``ironside-conductor`` processes run the site action service; this
process plays the API: it serves the site API over HTTP and enrolls
nodes through conductor RPC, as ``ironside-api`` would.
"""

from __future__ import annotations

import threading

import pytest
import requests
from cheroot import wsgi

from ironside.api import app as api_app
from ironside.api import site as site_api
from ironside.common import context as ironside_context
from ironside.common import states
from ironside.db import history as history_db
from ironside.db import nodes as nodes_db
from ironside.db import site as site_db
from ironside.osc import report_text
from tests import utils
from tests.functional.fixtures import services
from tests.unit.strategy import spec_flows
from tests.unit.strategy.conftest import INVENTORY
from tests.unit.strategy.conftest import SPEC_STRATEGY
from tests.unit.strategy.conftest import node_values

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

HOSTS = ('site-conductor-1', 'site-conductor-2')
CTX = ironside_context.get_admin_context()
FAIL_CLEANING = {'fake_fail_steps': ['deploy.erase_devices_metadata']}
FAIL_DEPLOY = {'fake_fail_steps': ['deploy.write_image']}


class SiteApi:
    """The site API served by this process, and the example site."""

    def __init__(self, split, base: str) -> None:
        self.split = split
        self.base = base

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        return requests.request(method, self.base + path, timeout=30,
                                **kwargs)

    def enroll(self, driver_info: dict[str, dict] | None = None,
               every_node: dict | None = None) -> dict[str, str]:
        uuids = {}
        for entry in INVENTORY['nodes']:
            values = utils.fake_node_values(**node_values(entry))
            values['driver_info'] = dict(
                every_node or {}, **(driver_info or {}).get(entry['name'],
                                                            {}))
            uuids[entry['name']] = self.split.rpc.create_node(CTX, values)
        return uuids

    def deploy(self) -> str:
        response = self.call('POST', '/strategies',
                             json={'document': SPEC_STRATEGY})
        assert response.status_code == 201, response.text
        response = self.call('POST', '/actions', json={
            'action': 'deploy_site', 'strategy': 'deployment-strategy'})
        assert response.status_code == 201, response.text
        return response.json()['uuid']

    def wait_finished(self, action: str, timeout: float = 120) -> dict:
        def _finished():
            response = self.call('GET', '/actions/' + action)
            if response.status_code == 503:
                # The database away, or just back (a pooled connection
                # used within the second before fails once): ask again,
                # as clients do.
                return None
            current = response.json()
            return current if current['state'] == 'finished' else None
        return utils.wait_for(_finished, timeout, interval=0.2,
                              what='site action %s to finish' % action)


@pytest.fixture
def site(split):
    split.sections['site'] = {'action_check_interval': 0.2,
                              'node_poll_interval': 0.2}
    for host in HOSTS:
        split.start_conductor(host)
    server = wsgi.Server(('127.0.0.1', 0), api_app.build_app(
        None, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield SiteApi(split, 'http://127.0.0.1:%d/site/v1'
                      % server.bind_addr[1])
    finally:
        server.stop()
        thread.join(10)


@pytest.mark.parametrize('failures, flow', [
    ({}, spec_flows.ALL_SUCCESS),
    ({'ntp01': FAIL_CLEANING}, spec_flows.NTP_PREPARE_FAILS),
    ({'cmp-r2-01': FAIL_DEPLOY, 'cmp-r2-02': FAIL_DEPLOY},
     spec_flows.COMPUTE_2_DEPLOY_FAILS),
], ids=['all-success', 'ntp-prepare-fails', 'compute-2-deploy-fails'])
def test_spec_runs_split_from_the_api(site, failures, flow):
    site.enroll(failures)
    result = site.wait_finished(site.deploy())
    assert report_text.flow_text(result) == flow
    assert result['owner'] in HOSTS


def _in_flight_waiting(action: str, group: str) -> bool:
    """The group is deploying and all its nodes in flight wait for their
    asynchronous step: no worker runs for them, so a dead conductor
    loses nothing but its poller."""
    row = site_db.get_action(action)
    if row.progress['groups'][group]['state'] != 'deploy':
        return False
    in_flight = [n.node_uuid for n in site_db.action_nodes(row.id)
                 if n.phase == 'deploy']
    return bool(in_flight) and all(
        nodes_db.get_node(u).provision_state == states.DEPLOYWAIT
        for u in in_flight)


def _count(node_uuid: str, event: str) -> int:
    node = nodes_db.get_node(node_uuid)
    return sum(1 for h in history_db.list_for_node(node.id)
               if h.event.startswith(event))


def test_conductor_killed_mid_action(site, split):
    uuids = site.enroll(every_node={
        'fake_step_delays': {'deploy.write_image': 3}})
    action = site.deploy()
    utils.wait_for(lambda: _in_flight_waiting(action, 'control-nodes'), 60,
                   interval=0.05,
                   what='control-nodes to wait on their deploy')
    owner = site_db.get_action(action).owner
    split.conductors[owner].kill()
    survivor = next(h for h in HOSTS if h != owner)
    result = site.wait_finished(action, timeout=180)
    assert report_text.flow_text(result) == spec_flows.ALL_SUCCESS
    assert result['owner'] == survivor
    assert 'taken over from %s' % owner in split.conductors[survivor].log()
    for name, node_uuid in uuids.items():
        assert nodes_db.get_node(node_uuid).provision_state == states.ACTIVE
        # Polled, never asked again: one verify, one cleaning, one deploy.
        assert _count(node_uuid, 'Node verified') == 1, name
        assert _count(node_uuid,
                      'Clean step deploy.erase_devices_metadata started') \
            == 1, name
        assert _count(node_uuid, 'Deploy requested') == 1, name


def test_abort_through_the_api_reaches_the_conductor_running_it(site):
    """The API process only writes the abort; the conductor process that
    runs the action reads it from the database."""
    uuids = site.enroll(every_node={
        'fake_step_delays': {'deploy.write_image': 3}})
    action = site.deploy()
    utils.wait_for(lambda: _in_flight_waiting(action, 'control-nodes'), 60,
                   interval=0.05,
                   what='control-nodes to wait on their deploy')
    response = site.call('POST', '/actions/%s/abort' % action)
    assert response.status_code == 202, response.text
    assert response.json()['state'] == 'aborting'

    def _aborted():
        current = site.call('GET', '/actions/' + action).json()
        return current if current['state'] == 'aborted' else None
    result = utils.wait_for(_aborted, 120, interval=0.2,
                            what='site action %s to be aborted' % action)
    assert result['owner'] in HOSTS
    assert result['result'] == 'aborted'
    flow = report_text.flow_text(result)
    assert '<ABORTED>' in flow and flow.endswith('Aborted')
    statuses = {n['name']: n['status'] for n in result['nodes']}
    for name in ('ctl01', 'ctl02', 'ctl03', 'ctl04', 'ntp01'):
        # In flight when the abort came: their deploy went on to the end.
        assert statuses[name] == 'success', name
        assert nodes_db.get_node(uuids[name]).provision_state == \
            states.ACTIVE
    for name in ('mon01', 'cmp-r1-01', 'cmp-r2-01'):
        assert statuses[name] == 'not started', name
        assert nodes_db.get_node(uuids[name]).provision_state == \
            states.ENROLL
    again = site.call('POST', '/actions/%s/abort' % action)
    assert again.status_code == 409
