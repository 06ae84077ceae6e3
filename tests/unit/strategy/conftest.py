"""Fixtures for the site layer: the example site and a way to run actions."""

from __future__ import annotations

import json
import pathlib
import threading

import pytest
import yaml
from falcon import testing

from ironside.api import app as api_app
from ironside.api import site as site_api
from ironside.db import site as site_db
from ironside.strategy import actions
from ironside.strategy.run import runner
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.memory_limit import InFlightLimit

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / 'examples' / 'site'
SPEC_STRATEGY = (EXAMPLES / 'deployment-strategy.yaml').read_text()
INVENTORY = yaml.safe_load((EXAMPLES / 'inventory.yaml').read_text())


def node_values(entry: dict) -> dict:
    """Node fields for an inventory entry: the selectors' data in extra."""
    extra = {'rack': entry['rack'], 'tags': entry.get('tags', [])}
    if entry.get('labels'):
        extra['labels'] = entry['labels']
    return {'name': entry['name'], 'driver': INVENTORY['driver'],
            'extra': extra}


@pytest.fixture(autouse=True)
def fast_site_options(conf):
    conf.set('site', node_poll_interval=0.002, action_check_interval=0.05)


@pytest.fixture
def memory_site():
    """The example site's 14 nodes, enrolled, in memory."""
    site = memory_nodes.MemoryNodes()
    for entry in INVENTORY['nodes']:
        site.add(entry['name'], rack=entry['rack'], tags=entry['tags'],
                 labels=entry.get('labels'))
    return site


@pytest.fixture
def client(db):
    """The API with the site API, in this process."""
    return testing.TestClient(api_app.build_app(
        None, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]))


@pytest.fixture
def enrolled(make_node):
    """The example site's nodes, enrolled; their UUIDs by name."""
    return {entry['name']: make_node(**node_values(entry)).uuid
            for entry in INVENTORY['nodes']}


def fault(response) -> str:
    """The faultstring of an error in Ironic's format."""
    return json.loads(response.json['error_message'])['faultstring']


@pytest.fixture
def spec_strategy(db):
    return actions.create_strategy(SPEC_STRATEGY)


def start_action(nodes, strategy='deployment-strategy',
                 action='deploy_site', host='test-host'):
    """Queue an action and claim it for ``host``, as a service would."""
    row = actions.create_action(nodes, action, strategy)
    assert site_db.claim_action(row.id, host, None, None)
    return row


def run_partly(nodes, reads: int, host: str = 'test-host'):
    """Start the spec's action and run it until its runner has read node
    states ``reads`` times; returns the action's row."""
    from tests.unit.strategy.test_runner_rules import StopAfter
    row = start_action(nodes, host=host)
    stop = threading.Event()
    runner.ActionRunner(row.uuid, host, StopAfter(nodes, reads, stop),
                        InFlightLimit(100), stop).run()
    return row


def run_action(nodes, strategy='deployment-strategy', action='deploy_site',
               host='test-host', limit=None, **kwargs):
    """Run an action to its end in this thread; returns its report."""
    row = start_action(nodes, strategy, action, host)
    limit = limit or InFlightLimit(1000)
    assert runner.ActionRunner(row.uuid, host, nodes, limit, **kwargs).run()
    return actions.action_report(row.uuid)


@pytest.fixture
def graph_site(db, tmp_path):
    """An in-memory site whose tasks run through the local runner."""
    from tests.unit.strategy.graph_site import GraphSite
    site = GraphSite(tmp_path / 'site')
    yield site
    site.close()
