"""The example site with conductors split from the API over RabbitMQ and
PostgreSQL, and a conductor killed in the middle of a site action.

Two ``ironside-conductor`` processes run the site action service; this
process plays the API: it serves the site API over HTTP and enrolls
nodes through conductor RPC, as ``ironside-api`` would.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import uuid

import pytest
import requests
from cheroot import wsgi

from ironside.api.site import standalone
from ironside.common import context as ironside_context
from ironside.common import rpc
from ironside.common import states
from ironside.common.conf import CONF
from ironside.conductor import rpcapi
from ironside.db import conductors as conductors_db
from ironside.db import history as history_db
from ironside.db import migration
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from ironside.db import site as site_db
from ironside.strategy import report
from tests import dbs
from tests import utils
from tests.unit.strategy import spec_flows
from tests.unit.strategy.conftest import INVENTORY
from tests.unit.strategy.conftest import SPEC_STRATEGY
from tests.unit.strategy.conftest import node_values

pytestmark = pytest.mark.functional

HOSTS = ('site-conductor-1', 'site-conductor-2')
HEARTBEAT_TIMEOUT = 4

CONFIG = """\
[DEFAULT]
transport_url = rabbit://guest:guest@127.0.0.1:5672/
control_exchange = {exchange}
rpc_response_timeout = 5
enabled_hardware_types = fake-hardware
debug = true
[database]
connection = {database}
[conductor]
heartbeat_interval = 1
heartbeat_timeout = {heartbeat_timeout}
takeover_interval = 1
hash_ring_reset_interval = 1
sync_power_state_interval = 0
check_provision_state_interval = 3600
async_step_poll_interval = 0.1
[site]
action_check_interval = 0.2
node_poll_interval = 0.2
"""


def _service_missing(what: str, error: Exception) -> None:
    if dbs.in_ci():
        pytest.fail('CI=true and %s is unavailable: %s' % (what, error))
    pytest.skip('%s is unavailable: %s' % (what, error))


def _rabbitmq_up() -> None:
    try:
        socket.create_connection(('127.0.0.1', 5672), timeout=2).close()
    except OSError as exc:
        _service_missing('RabbitMQ', exc)


class Site:
    """Conductor processes, the site API, and helpers to drive them."""

    def __init__(self, workdir) -> None:
        self.workdir = workdir
        self.config = workdir / 'ironside.conf'
        self.processes: dict[str, subprocess.Popen] = {}
        self.context = ironside_context.get_admin_context()
        self.base = None

    def start_conductor(self, host: str) -> None:
        own = self.workdir / ('%s.conf' % host)
        own.write_text('[DEFAULT]\nhost = %s\n' % host)
        with open(self.workdir / ('%s.log' % host), 'ab') as log:
            self.processes[host] = subprocess.Popen(
                [sys.executable, '-c',
                 'from ironside.cmd.conductor import main; main()',
                 '--config-file', str(self.config), '--config-file',
                 str(own)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self, host: str) -> None:
        process = self.processes.pop(host)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)

    def stop_all(self) -> None:
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes.clear()

    def log(self, host: str) -> str:
        return (self.workdir / ('%s.log' % host)).read_text()

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        return requests.request(method, self.base + path, timeout=30,
                                **kwargs)

    def enroll(self, driver_info: dict[str, dict] | None = None,
               every_node: dict | None = None) -> dict[str, str]:
        conductor = rpcapi.ConductorAPI()
        uuids = {}
        for entry in INVENTORY['nodes']:
            values = utils.fake_node_values(**node_values(entry))
            values['driver_info'] = dict(every_node or {},
                                         **(driver_info or {}).get(
                                             entry['name'], {}))
            uuids[entry['name']] = conductor.create_node(self.context,
                                                         values)
        return uuids

    def forget_nodes(self) -> None:
        """Remove the nodes (whatever their state) between runs."""
        for row in nodes_db.list_node_columns(('id',)):
            nodes_db.destroy_node(row.id)

    def deploy(self, action: str = 'deploy_site') -> str:
        response = self.api('POST', '/actions', json={
            'action': action, 'strategy': 'deployment-strategy'})
        assert response.status_code == 201, response.text
        return response.json()['uuid']

    def report(self, action: str) -> dict:
        return self.api('GET', '/actions/' + action).json()

    def wait_finished(self, action: str, timeout: float = 120) -> dict:
        return utils.wait_for(
            lambda: (lambda r: r if r['state'] == 'finished' else None)(
                self.report(action)),
            timeout, interval=0.2, what='site action %s to finish' % action)


@pytest.fixture(scope='module')
def site(tmp_path_factory, test_database):
    _rabbitmq_up()
    try:
        database = dbs.TestDatabase('postgresql')
    except dbs.ServiceUnavailable as exc:
        _service_missing('PostgreSQL', exc)
    env = Site(tmp_path_factory.mktemp('site-split'))
    env.config.write_text(CONFIG.format(
        exchange='ironside-site-test-%s' % uuid.uuid4().hex[:8],
        database=database.url, heartbeat_timeout=HEARTBEAT_TIMEOUT))
    # The session's database is an override, which a config file would
    # not win against.
    CONF.clear_override('connection', 'database')
    CONF(['--config-file', str(env.config)], project='ironside',
         default_config_files=[])
    db_session.dispose()
    migration.upgrade()
    server = wsgi.Server(('127.0.0.1', 0), standalone.make_app())
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    env.base = 'http://127.0.0.1:%d/site/v1' % server.bind_addr[1]
    try:
        for host in HOSTS:
            env.start_conductor(host)
        utils.wait_for(lambda: len(conductors_db.live_conductors(
            HEARTBEAT_TIMEOUT)) == len(HOSTS), 60, interval=0.2,
            what='both conductors to register')
        response = env.api('POST', '/strategies',
                           json={'document': SPEC_STRATEGY})
        assert response.status_code == 201, response.text
        yield env
    finally:
        env.stop_all()
        server.stop()
        rpc.cleanup()
        db_session.dispose()
        with contextlib.suppress(Exception):
            database.drop()
        # Back to the session's test database for whatever runs next.
        CONF([], project='ironside', default_config_files=[])
        CONF.set_override('connection', test_database.url, 'database')
        db_session.dispose()


FAIL_CLEANING = {'fake_fail_steps': ['deploy.erase_devices_metadata']}
FAIL_DEPLOY = {'fake_fail_steps': ['deploy.write_image']}


@pytest.mark.parametrize('failures, flow', [
    ({}, spec_flows.ALL_SUCCESS),
    ({'ntp01': FAIL_CLEANING}, spec_flows.NTP_PREPARE_FAILS),
    ({'cmp-r2-01': FAIL_DEPLOY, 'cmp-r2-02': FAIL_DEPLOY},
     spec_flows.COMPUTE_2_DEPLOY_FAILS),
], ids=['all-success', 'ntp-prepare-fails', 'compute-2-deploy-fails'])
def test_spec_runs_over_rabbitmq_and_postgresql(site, failures, flow):
    site.forget_nodes()
    site.enroll(failures)
    result = site.wait_finished(site.deploy())
    assert report.flow_text(result) == flow
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


def test_conductor_killed_mid_action(site):
    site.forget_nodes()
    uuids = site.enroll(every_node={
        'fake_step_delays': {'deploy.write_image': 3}})
    action = site.deploy()
    utils.wait_for(lambda: _in_flight_waiting(action, 'control-nodes'), 60,
                   interval=0.05, what='control-nodes to wait on their '
                                       'deploy')
    owner = site_db.get_action(action).owner
    site.kill(owner)
    survivor = next(h for h in HOSTS if h != owner)
    result = site.wait_finished(action, timeout=180)
    assert report.flow_text(result) == spec_flows.ALL_SUCCESS
    assert result['owner'] == survivor
    assert 'taken over from %s' % owner in site.log(survivor)
    for name, node_uuid in uuids.items():
        assert nodes_db.get_node(node_uuid).provision_state == states.ACTIVE
        # Polled, never asked again: one verify, one cleaning, one deploy.
        assert _count(node_uuid, 'Node verified') == 1, name
        assert _count(node_uuid,
                      'Clean step deploy.erase_devices_metadata started') \
            == 1, name
        assert _count(node_uuid, 'Deploy requested') == 1, name
