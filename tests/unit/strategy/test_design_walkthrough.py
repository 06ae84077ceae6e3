"""The walk-through of examples/site/README.md ("Site designs"), through
the real ``openstack`` CLI, against the API and a conductor in this
process: stage the example design, commit, deploy, change one document,
commit twice, see the guard refuse, diff against the last successful
site action, deploy with allow-intermediate-commits=true, see both tags.
"""

from __future__ import annotations

import json
import logging

import pytest

from ironside.common import states
from ironside.db import nodes as nodes_db
from ironside.strategy import service as site_service
from ironside.strategy.nodes import conductor as conductor_nodes
from tests.unit.strategy import cli
from tests.unit.strategy.conftest import EXAMPLES

DESIGN = EXAMPLES / 'design'
SECRETS = ('example-bmc-secret', 'example-passphrase')
# The client's own debug log repeats what it sends (as "curl -d"), as
# "openstack --debug" does; the server's logs are what must stay clean.
CLIENT_LOGGERS = ('keystoneauth', 'urllib3', 'osc_lib', 'openstackclient',
                  'cliff', 'stevedore', 'openstack')


def server_log(caplog) -> str:
    return '\n'.join(r.getMessage() for r in caplog.records
                     if not r.name.startswith(CLIENT_LOGGERS))


@pytest.fixture
def openstack(rpc, capsys):
    with cli.serve(rpc) as url:
        cli.forget_site_client()
        yield cli.runner(url, capsys)
        cli.forget_site_client()


@pytest.fixture
def conductor_service(rpc):
    service = site_service.SiteActionService(
        'test-conductor', conductor_nodes.ConductorNodes(rpc))
    service.start()
    yield service
    service.stop()


def _json(result):
    code, out = result
    assert code == 0, out
    return json.loads(out)


def test_walkthrough(openstack, conductor_service, caplog):
    caplog.set_level(logging.DEBUG)
    outputs = []

    def run(*args):
        result = openstack(*args)
        outputs.append(result[1])
        return result

    # Stage the example design in three collections, and commit it.
    staged = _json(run(
        'site', 'design', 'create', 'site', '--file',
        DESIGN / 'deployment-configuration.yaml', '--file',
        EXAMPLES / 'deployment-strategy.yaml', '-f', 'json'))
    assert staged == {'collection': 'site', 'status': 'created',
                      'documents': 2}
    run('site', 'design', 'create', 'nodes', '--file', DESIGN / 'nodes.yaml')
    run('site', 'design', 'create', 'config', '--file',
        DESIGN / 'site-config.yaml')
    committed = _json(run('site', 'design', 'commit', '-f', 'json'))
    assert committed['revision'] == 1
    assert committed['documents'] == 18

    # Deploy it: the 14 nodes are enrolled, then deployed.
    code, out = run('site', 'action', 'create', 'deploy_site', '--wait',
                    '--poll-interval', '0.05')
    assert code == 0, out
    assert 'with strategy deployment-strategy (design revision 1)' in out
    assert '  Inventory: enrolled 14 nodes (cmp-r1-01, ' in out
    assert out.rstrip().endswith('Result: success')
    ctl01 = nodes_db.get_node('ctl01')
    assert ctl01.provision_state == states.ACTIVE
    assert ctl01.extra == {'rack': 'rack03', 'tags': ['control'],
                           'labels': {'ucp_control_plane': 'enabled'},
                           'roles': ['controller']}
    assert ctl01.driver_info['fake_bmc_password'] == 'example-bmc-secret'

    # Change one document and commit; add a node and commit again.
    changed = _json(run('site', 'design', 'create', 'config', '--file',
                        DESIGN / 'site-config-v2.yaml', '-f', 'json'))
    assert changed['status'] == 'modified'
    assert _json(run('site', 'design', 'commit', '-f', 'json')
                 )['revision'] == 2
    run('site', 'design', 'create', 'expansion', '--file',
        DESIGN / 'expansion.yaml')
    assert _json(run('site', 'design', 'commit', '-f', 'json')
                 )['revision'] == 3

    # The guard refuses: revision 2 was never deployed.
    code, out = run('site', 'action', 'create', 'deploy_site')
    assert code == 1
    assert ('Intermediate commit detected: revision 2 was committed after '
            'revision 1 (the newest a site action ran) and before revision '
            '3 (the one this action would run), and no site action ran it.'
            ) in out
    assert '(HTTP 409)' in out

    # What changed since the last successful site action.
    diff = _json(run('site', 'design', 'diff', '--base-version',
                     'successful-site-action', '-f', 'json'))
    assert diff == [
        {'Collection': 'config', 'Schema': 'ironside/Config/v1',
         'Name': 'site', 'Status': 'modified',
         'Changes': 'data.ntp_servers[1]: 10.0.0.2 -> 10.0.0.3'},
        {'Collection': 'expansion', 'Schema': 'ironside/BaremetalNode/v1',
         'Name': 'cmp-r2-04', 'Status': 'added', 'Changes': ''}]

    # Deploy anyway; the action's log says the check was skipped.
    code, out = run('site', 'action', 'create', 'deploy_site', '--param',
                    'allow-intermediate-commits=true', '--wait',
                    '--poll-interval', '0.05')
    assert code == 0, out
    assert ('allow-intermediate-commits=true: the intermediate-commit '
            'check is skipped (it would have refused revision 2)') in out
    assert 'Inventory: enrolled 1 node (cmp-r2-04)' in out
    assert nodes_db.get_node('cmp-r2-04').provision_state == states.ACTIVE

    # Both site actions' tags, on revisions 1 and 3.
    listed = _json(run('site', 'revision', 'list', '-f', 'json'))
    assert [(r['Revision'], r['Tags'].split(' (')[0]) for r in listed] == [
        (1, 'site-action-success'), (2, ''), (3, 'site-action-success')]
    assert _json(run('site', 'revision', 'show', 'last-site-action', '-f',
                     'json'))['revision'] == 3

    # Secrets never show.
    shown = _json(run('site', 'design', 'show', '1', '--collection',
                      'nodes', '--long', '-f', 'json'))
    assert 'fake_bmc_password: \'******\'' in shown[0]['Document']
    rendered = _json(run('site', 'design', 'render', '-f', 'json'))
    assert rendered['groups'].startswith('control-nodes: ctl01, ctl02')
    for secret in SECRETS:
        assert not any(secret in out for out in outputs)
        assert secret not in server_log(caplog)


def test_node_filter_on_a_design_revision(openstack):
    """``site node filter --revision`` selects from the design's
    inventory, as the design describes the nodes, before any is
    enrolled."""
    _json(openstack('site', 'design', 'create', 'site', '--file',
                    DESIGN / 'deployment-configuration.yaml', '--file',
                    EXAMPLES / 'deployment-strategy.yaml', '-f', 'json'))
    _json(openstack('site', 'design', 'create', 'nodes', '--file',
                    DESIGN / 'nodes.yaml', '-f', 'json'))
    assert _json(openstack('site', 'design', 'commit', '-f',
                           'json'))['revision'] == 1
    selected = _json(openstack('site', 'node', 'filter', '--revision',
                               'committed', '--rack', 'rack03', '-f',
                               'json'))
    assert [n['Name'] for n in selected] == \
        ['ctl01', 'ctl02', 'ctl03', 'ctl04', 'ntp01']
    assert {n['UUID'] for n in selected} == {None}
    # Ironside's own nodes: none enrolled yet.
    assert _json(openstack('site', 'node', 'filter', '--rack', 'rack03',
                           '-f', 'json')) == []
    code, out = openstack('site', 'node', 'filter', '--revision', '7',
                          '--rack', 'rack03')
    assert code == 1 and 'revision 7' in out.lower(), out
    code, out = openstack('site', 'node', 'filter', '--revision', 'nope')
    assert code == 1 and 'nope' in out, out
