"""Metrics of split processes: each ironside-conductor serves its own on
a port of its own, and ironside-api serves the API's and the database's
on /metrics (PostgreSQL and MariaDB, over RabbitMQ)."""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ironside.common import context as ironside_context
from ironside.common import states
from ironside.db import nodes as nodes_db
from tests import utils
from tests.functional.fixtures import services

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

CTX = ironside_context.get_admin_context()
HOSTS = ('metrics-conductor-1', 'metrics-conductor-2')


def scrape(url: str) -> dict[str, dict[tuple, float]]:
    with urllib.request.urlopen(url, timeout=30) as response:
        text = response.read().decode()
    return {family.name: {(s.name, tuple(sorted(s.labels.items()))): s.value
                          for s in family.samples}
            for family in text_string_to_metric_families(text)}


def _transitions(samples: dict, from_state: str, to_state: str) -> float:
    return samples['ironside_provision_state_transitions'].get(
        ('ironside_provision_state_transitions_total',
         (('from_state', from_state), ('to_state', to_state))), 0)


def test_each_conductor_serves_its_own_metrics(split):
    urls = {}
    for host in HOSTS:
        port = services.free_port()
        split.sections['metrics'] = {'enabled': True,
                                     'conductor_port': port}
        split.start_conductor(host)
        urls[host] = 'http://127.0.0.1:%d/metrics' % port
    api = split.start_api()
    uuid = split.rpc.create_node(CTX, utils.fake_node_values(name='m-1'))
    owner = split.owner_of(nodes_db.get_node(uuid))
    split.rpc.do_provisioning_action(CTX, uuid, 'manage')
    utils.wait_for(lambda: nodes_db.get_node(uuid).provision_state ==
                   states.MANAGEABLE, timeout=30, what='m-1 manageable')

    for host, url in urls.items():
        scraped = scrape(url)
        expected = 1 if host == owner else 0
        assert _transitions(scraped, 'enroll', 'verifying') == expected, host
        assert _transitions(scraped, 'verifying', 'manageable') == \
            expected, host
        # The database's families come from the API alone.
        assert 'ironside_nodes' not in scraped
        assert 'ironside_site_actions' not in scraped

    status, _body = api.api('GET', '/v1/nodes')
    assert status == 200
    scraped = scrape(api.endpoint + '/metrics')
    assert scraped['ironside_nodes'][
        ('ironside_nodes', (('provision_state', 'manageable'),))] == 1
    assert scraped['ironside_api_requests'][
        ('ironside_api_requests_total', (('method', 'GET'),
                                         ('route', '/v1/nodes'),
                                         ('status', '200')))] == 1
    assert _transitions(scraped, 'enroll', 'verifying') == 0
