"""Site actions that run a design revision: the target, the guard, the
inventory, the parameters, the tags."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.db import designs as designs_db
from ironside.db import session as db_session
from ironside.db import site as site_db
from ironside.strategy import actions
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.run import runner
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.design_fixtures import config
from tests.unit.strategy.design_fixtures import configuration
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import stage_example
from tests.unit.strategy.design_fixtures import strategy
from tests.unit.strategy.memory_limit import InFlightLimit

SUCCESS = 'site-action-success'
FAILURE = 'site-action-failure'


def commit_revisions(count):
    for _ in range(count):
        stage('c', config('x', designs_db.latest_revision()))
        store.commit()


def tag(revision, name, action='a1'):
    with db_session.writer() as session:
        designs_db.add_tag(session, revision, name, action)


def run(nodes, action='deploy_site', **parameters):
    row = actions.create_action(nodes, action, parameters=parameters)
    assert site_db.claim_action(row.id, 'test-host', None, None)
    assert runner.ActionRunner(row.uuid, 'test-host', nodes,
                               InFlightLimit(100)).run()
    return actions.action_report(row.uuid)


def tags():
    return [(t.revision_id, t.tag) for t in designs_db.tags()]


# The guard

def test_no_intermediate_commit(db):
    commit_revisions(1)
    assert versions.intermediate_commits(1).revisions == []
    versions.check_intermediate_commits(1)
    commit_revisions(1)
    tag(1, SUCCESS)
    versions.check_intermediate_commits(2)


def test_one_intermediate_commit(db):
    commit_revisions(2)
    with pytest.raises(exception.IntermediateCommits) as err:
        versions.check_intermediate_commits(2)
    assert err.value.code == 409
    assert str(err.value) == (
        'Intermediate commit detected: revision 1 was committed after '
        'revision 0 (no site action has run a revision yet) and before '
        'revision 2 (the one this action would run), and no site action '
        'ran it. See what changed with "openstack site design diff '
        '--base-version 0 --diff-version 2", and create the action with the '
        'parameter allow-intermediate-commits=true to run revision 2 '
        'anyway.')


def test_two_intermediate_commits(db):
    commit_revisions(4)
    tag(1, FAILURE)
    with pytest.raises(exception.IntermediateCommits) as err:
        versions.check_intermediate_commits(4)
    assert str(err.value) == (
        'Intermediate commit detected: revisions 2, 3 were committed after '
        'revision 1 (the newest a site action ran) and before revision 4 '
        '(the one this action would run), and no site action ran them. See '
        'what changed with "openstack site design diff --base-version '
        'last-site-action --diff-version 4", and create the action with the '
        'parameter allow-intermediate-commits=true to run revision 4 '
        'anyway.')


def test_a_revision_with_both_tags(db):
    commit_revisions(3)
    tag(2, FAILURE, 'a1')
    tag(2, SUCCESS, 'a2')
    assert versions.intermediate_commits(3).revisions == []
    assert versions.revision_of('successful-site-action') == 2
    assert versions.revision_of('last-site-action') == 2
    tag(1, SUCCESS)
    assert versions.revision_of('successful-site-action') == 2
    (info,) = [r for r in store.revisions() if r.number == 2]
    assert [(t.tag, t.action) for t in info.tags] == [
        (FAILURE, 'a1'), (SUCCESS, 'a2')]


def test_an_older_target_than_the_last_site_action(db):
    commit_revisions(3)
    tag(3, SUCCESS)
    assert versions.intermediate_commits(1).revisions == []


# Actions

@pytest.fixture
def site(db):
    stage_example()
    store.commit()
    return memory_nodes.MemoryNodes()


def test_deploy_site_runs_the_committed_revision(site):
    outside = site.add('outside', rack='rack03', tags=['control'])
    report = run(site)
    assert report['result'] == 'success'
    assert report['revision'] == 1
    assert report['parameters'] == {}
    assert [e['message'] for e in report['log']] == [
        'Runs design revision 1 (target-revision committed)',
        'Inventory: enrolled 14 nodes (cmp-r1-01, cmp-r1-02, cmp-r1-03, '
        'cmp-r1-04, cmp-r2-01, cmp-r2-02, cmp-r2-03, ctl01, ctl02, ctl03, '
        'ctl04, mon01, mon02, ntp01)']
    assert len(report['nodes']) == 14
    assert site.requests_for('outside') == []
    assert outside.provision_state == 'enroll'
    ctl01 = site.by_name('ctl01')
    assert ctl01.enrolled.driver == 'fake-hardware'
    assert ctl01.enrolled.driver_info['fake_bmc_password'] == \
        'example-bmc-secret'
    assert ctl01.enrolled.resource_class == 'baremetal'
    assert ctl01.extra == {'rack': 'rack03', 'tags': ['control'],
                           'labels': {'ucp_control_plane': 'enabled'},
                           'roles': ['controller']}
    assert tags() == [(1, SUCCESS)]
    assert designs_db.tags()[0].action_uuid == report['uuid']


def test_existing_nodes_get_the_design_extra_fields(site):
    ctl01 = site.add('ctl01', rack='rack09', tags=['old'])
    ctl01.extra['owner_note'] = 'kept'
    site.add('ctl02', rack='rack03', tags=['control'],
             labels={'ucp_control_plane': 'enabled'})
    site.by_name('ctl02').extra['roles'] = ['controller']
    report = run(site)
    assert ctl01.extra == {'rack': 'rack03', 'tags': ['control'],
                           'labels': {'ucp_control_plane': 'enabled'},
                           'roles': ['controller'], 'owner_note': 'kept'}
    assert ctl01.enrolled is None
    assert site.requests_for('ctl02')[0] == 'manage'
    assert [e['message'] for e in report['log']][1:] == [
        'Inventory: enrolled 12 nodes (cmp-r1-01, cmp-r1-02, cmp-r1-03, '
        'cmp-r1-04, cmp-r2-01, cmp-r2-02, cmp-r2-03, ctl03, ctl04, mon01, '
        'mon02, ntp01)',
        'Inventory: updated rack, tags, labels and roles of 1 node (ctl01)',
        'Inventory: 1 node already as the design says']


def test_a_failed_action_tags_failure_and_a_rerun_success(site):
    run(site)
    site.by_name('ntp01').provision_state = 'enroll'
    site.by_name('ntp01').fail_verify = True
    report = run(site, 'update_site', **{'target-revision': '1'})
    assert report['result'] == 'failed: critical group ntp-node failed'
    site.by_name('ntp01').fail_verify = False
    report = run(site, 'update_site', **{'target-revision': 1})
    assert report['result'] == 'success'
    assert tags() == [(1, SUCCESS), (1, FAILURE), (1, SUCCESS)]


def test_the_guard_refuses_and_nothing_starts(site):
    commit_revisions(2)
    with pytest.raises(exception.IntermediateCommits) as err:
        actions.create_action(site, 'deploy_site')
    assert 'revisions 1, 2 were committed after revision 0' in str(err.value)
    assert site_db.list_actions() == []
    assert site.nodes == {}
    report = run(site, **{'allow-intermediate-commits': 'true'})
    assert report['revision'] == 3
    assert report['log'][1]['message'] == (
        'allow-intermediate-commits=true: the intermediate-commit check is '
        'skipped (it would have refused revisions 1, 2)')
    assert report['parameters'] == {'allow-intermediate-commits': True}


@pytest.mark.parametrize('parameters, error, message', [
    ({'target-revision': 7}, exception.DesignVersionNotFound,
     'Design revision 7 does not exist.'),
    ({'target-revision': 'successful-site-action'},
     exception.DesignVersionNotFound, 'No design revision is tagged '
     'site-action-success: no site action has succeeded yet.'),
    ({'target-revision': 'buffer'}, exception.InvalidActionParameters,
     'Invalid parameters: "target-revision" must be committed, '
     'successful-site-action, last-site-action or a revision number, not '
     '"buffer"'),
    ({'target-revision': 'newest'}, exception.InvalidActionParameters,
     'Invalid parameters: "target-revision" must be committed, '
     'successful-site-action, last-site-action or a revision number, not '
     '"newest"'),
    ({'allow-intermediate-commits': 'maybe'},
     exception.InvalidActionParameters, 'Invalid parameters: '
     '"allow-intermediate-commits" must be true or false, not "maybe"'),
    ({'preserve-local-storage': 'true', 'zap': 1},
     exception.InvalidActionParameters, 'Unknown parameters for '
     'deploy_site: preserve-local-storage, zap (it takes '
     'allow-intermediate-commits, end, nodes, skip, start, '
     'target-revision, tasks)'),
])
def test_bad_targets_and_parameters_start_nothing(site, parameters, error,
                                                  message):
    with pytest.raises(error) as err:
        actions.create_action(site, 'deploy_site', parameters=parameters)
    assert str(err.value) == message
    assert site_db.list_actions() == []
    assert site.nodes == {}


def test_nodes_held_by_an_unfinished_action_refuse_it(site):
    first = actions.create_action(site, 'deploy_site')
    stage('c', config('x', 1))
    store.commit()
    requests = list(site.requests)
    with pytest.raises(exception.SiteActionConflict) as err:
        actions.create_action(site, 'deploy_site', parameters={
            'allow-intermediate-commits': True})
    assert str(err.value).startswith(
        'Site action %s is still running on nodes cmp-r1-01, ' % first.uuid)
    assert site.requests == requests


def test_a_revision_without_inventory_or_strategy(db):
    nodes = memory_nodes.MemoryNodes()
    stage('a', configuration(), strategy())
    store.commit()
    with pytest.raises(exception.DesignIncomplete) as err:
        actions.create_action(nodes, 'deploy_site')
    assert str(err.value) == (
        'Design revision 1 can not run a site action: it has no '
        'ironside/BaremetalNode/v1 documents, so no nodes to act on.')
    tag(1, SUCCESS)
    store.stage('a', [], empty=True)
    stage('b', node('n1'), strategy('other'))
    store.commit(force=True)
    with pytest.raises(exception.DesignIncomplete) as err:
        actions.create_action(nodes, 'deploy_site')
    assert str(err.value) == (
        'Design revision 2 can not run a site action: it has no '
        'DeploymentStrategy named "deployment-strategy" (named by its '
        'deployment configuration, or the default).')
