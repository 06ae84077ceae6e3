"""The design store: the buffer, commits, revisions, versions, diffs."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.db import designs as designs_db
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.reader import documents as reader
from ironside.strategy.reader.documents import Source
from tests.unit.strategy.design_fixtures import DESIGN
from tests.unit.strategy.design_fixtures import config
from tests.unit.strategy.design_fixtures import configuration
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import source
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import stage_example
from tests.unit.strategy.design_fixtures import strategy
from tests.unit.strategy.design_fixtures import text


def names(found):
    return [(d.collection, d.name) for d in found]


def test_stage_statuses(db):
    assert stage('a', config('x', 1)).status == 'created'
    assert [(c.collection, c.status, c.documents)
            for c in store.buffer()] == [('a', 'created', 1)]
    store.commit(force=True)
    assert store.buffer() == []
    assert stage('a', config('x', 2)).status == 'modified'
    # Back to what is committed: no longer staged.
    assert stage('a', config('x', 1)).status == 'unmodified'
    assert store.buffer() == []
    deleted = store.stage('a', [], empty=True)
    assert (deleted.status, deleted.documents) == ('deleted', 0)


@pytest.mark.parametrize('collection, sources, empty, message', [
    ('a b', [Source('f', text(config('x', 1)))], False,
     'Invalid collection name "a b": use 1 to 255 letters, digits, ".", '
     '"_", "~" or "-"'),
    ('a', [Source('f', '# nothing\n')], False,
     'Collection a has no documents; to remove it from the design, stage '
     'it empty'),
    ('a', [Source('f', text(config('x', 1)))], True,
     'Collection a was to be staged empty, but its sources hold 1 '
     'documents'),
])
def test_stage_refusals(db, collection, sources, empty, message):
    with pytest.raises(exception.InvalidParameterValue) as err:
        store.stage(collection, sources, empty)
    assert str(err.value) == message
    assert store.buffer() == []


def test_staging_the_same_again_is_refused(db):
    stage('a', config('x', 1))
    with pytest.raises(exception.DesignCollectionUnchanged) as err:
        stage('a', config('x', 1))
    assert err.value.code == 400
    assert str(err.value) == \
        'Collection a is unchanged; nothing was added to the buffer.'


def test_bad_documents_are_not_staged(db):
    with pytest.raises(exception.InvalidDesign) as err:
        store.stage('a', [Source('f.yaml', 'schema: x\nmetadata: {}\n')])
    assert str(err.value) == (
        'Collection a was not added to the buffer:\n'
        '  collection "a", file "f.yaml", schema "x", document "#1", field '
        '"data": missing required field (line 1)\n'
        '  collection "a", file "f.yaml", schema "x", document "#1", field '
        '"schema": must match ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/v[0-9]+'
        '(\\.[0-9]+)?$, not "x" (line 1)\n'
        '  collection "a", file "f.yaml", schema "x", document "#1", field '
        '"metadata.name": missing required field (line 2)')
    assert store.buffer() == []


def test_an_empty_buffer_refuses_to_commit(db):
    with pytest.raises(exception.DesignBufferEmpty) as err:
        store.commit()
    assert err.value.code == 409
    assert str(err.value) == (
        'The buffer is empty: it holds no change to the committed design, '
        'so there is nothing to commit.')
    stage_example()
    store.commit()
    with pytest.raises(exception.DesignBufferEmpty):
        store.commit(force=True)


def test_commits_make_numbered_full_snapshots(db):
    stage_example()
    first = store.commit()
    assert (first.revision, first.documents, first.issues) == (1, 18, [])
    stage('extra', config('more', {'a': 1}))
    second = store.commit()
    assert second.revision == 2
    assert len(store.documents(2)[1]) == 19
    assert len(store.documents(1)[1]) == 18
    assert names(store.documents(1, 'config')[1]) == [
        ('config', 'site'), ('config', 'ipmi-admin-password')]
    assert [r.number for r in store.revisions()] == [1, 2]


def test_a_failed_commit_names_each_problem_and_changes_nothing(db):
    stage_example()
    store.commit()
    bad = (DESIGN / 'nodes.yaml').read_text().replace(
        '  tags: [monitoring]', '  tags: monitoring', 1).replace(
        'deployment_strategy: deployment-strategy', 'x', 1)
    store.stage('nodes', [Source('nodes.yaml', bad)])
    store.stage('site', [Source('cfg.yaml', (
        DESIGN / 'deployment-configuration.yaml').read_text().replace(
        'deployment_strategy: deployment-strategy',
        'deployment_strategy: nope')), source(
        DESIGN.parent / 'deployment-strategy.yaml')])
    with pytest.raises(exception.InvalidDesign) as err:
        store.commit(force=True)
    assert str(err.value) == (
        'Design commit refused: 2 errors, 0 warnings:\n'
        '  collection "nodes", file "nodes.yaml", schema '
        '"ironside/BaremetalNode/v1", document "mon01", field "data.tags": '
        'must be a list, not "monitoring" (line 118)\n'
        '  collection "site", file "cfg.yaml", schema '
        '"shipyard/DeploymentConfiguration/v1", document '
        '"deployment-configuration", field '
        '"data.physical_provisioner.deployment_strategy": names the '
        'DeploymentStrategy "nope", which the design does not have '
        '(line 16)')
    assert err.value.code == 400
    assert designs_db.latest_revision() == 1
    assert {c.collection for c in store.buffer()} == {'nodes', 'site'}


def test_warnings_need_force_and_are_recorded(db):
    stage('a', configuration(), strategy(), node('n1'),
          config('c', 1), configuration(name='spare'))
    with pytest.raises(exception.InvalidDesign) as err:
        store.commit()
    assert str(err.value) == (
        'Design commit refused: 0 errors, 1 warning (commit with force to '
        'accept warnings):\n'
        '  warning: collection "a", file "input.yaml", schema '
        '"ironside/DeploymentConfiguration/v1", document "spare", field '
        '"metadata.name": not used: site actions read the '
        'DeploymentConfiguration named deployment-configuration (line 37)')
    dry = store.commit(force=True, dry_run=True)
    assert (dry.revision, dry.forced) == (None, True)
    assert designs_db.latest_revision() == 0
    forced = store.commit(force=True)
    assert (forced.revision, forced.forced) == (1, True)
    (info,) = store.revisions()
    assert info.forced
    assert info.warnings == [str(forced.issues[0])]


def test_line_maps_are_read_only_when_there_are_problems(db, monkeypatch):
    def no_line_maps(text):
        raise AssertionError('line maps read for a valid design')
    monkeypatch.setattr(reader, 'source_lines', no_line_maps)
    stage_example()
    assert store.commit().revision == 1


def test_a_commit_after_a_change_to_the_buffer_writes_nothing(db):
    stage('a', config('x', 1))
    tokens = {c.collection: c.token for c in designs_db.buffer_collections()}
    stage('a', config('x', 2))
    with pytest.raises(exception.DesignChanged) as err:
        designs_db.commit(0, tokens, [], [], False)
    assert err.value.code == 409
    assert designs_db.latest_revision() == 0
    assert [c.collection for c in store.buffer()] == ['a']


@pytest.mark.parametrize('name, expected', [
    ('buffer', 'buffer'), ('Committed', 'committed'),
    ('successful_site_action', 'successful-site-action'),
    ('last-site-action', 'last-site-action'), ('12', 12), (3, 3)])
def test_version_names(name, expected):
    assert versions.parse(name) == expected


@pytest.mark.parametrize('name', ['latest', '-1', -1, True, '1.5', ''])
def test_bad_version_names(name):
    with pytest.raises(exception.InvalidDesignVersion) as err:
        versions.parse(name)
    assert err.value.code == 400
    assert str(err.value) == (
        'Invalid version "%s": expected buffer, committed, '
        'successful-site-action, last-site-action or a revision number.'
        % name)


@pytest.mark.parametrize('version, message', [
    ('committed', 'No design revision has been committed yet.'),
    ('successful-site-action', 'No design revision is tagged '
     'site-action-success: no site action has succeeded yet.'),
    ('last-site-action', 'No design revision is tagged site-action-success '
     'or site-action-failure: no site action has finished yet.'),
    (1, 'Design revision 1 does not exist.'),
    (0, 'Design revision 0 does not exist.'),
])
def test_missing_versions(db, version, message):
    with pytest.raises(exception.DesignVersionNotFound) as err:
        store.documents(version)
    assert err.value.code == 404
    assert str(err.value) == message


def test_shown_documents_mask_secrets(db):
    stage_example()
    store.commit()
    shown = {d.name: store.shown(d)['document']['data']
             for d in store.documents('committed')[1]}
    assert shown['ctl01']['driver_info']['fake_bmc_password'] == '******'
    assert shown['ctl01']['driver_info']['fake_bmc_address'] == '10.0.3.11'
    assert shown['ipmi-admin-password'] == '******'


def test_diff(db):
    stage('a', config('same', 1), config('gone', 1),
          config('changed', {'x': 1, 'y': [1, 2], 'password': 'old'}))
    stage('b', config('moves', 1))
    store.commit()
    stage('a', config('same', 1), config('moves', 1),
          config('changed', {'x': 2, 'y': [1, 2, 3], 'z': None,
                             'password': 'new'}), config('new', 1))
    store.stage('b', [], empty=True)
    result = store.diff()
    assert (result.base, result.base_revision, result.new,
            result.new_revision) == ('committed', 1, 'buffer', None)
    assert result.collections == {'a': 'modified', 'b': 'deleted'}
    assert [(d.collection, d.name, d.status, [c.as_dict() for c in
                                              d.changes])
            for d in result.documents] == [
        ('a', 'same', 'unmodified', []),
        ('a', 'moves', 'modified', [{'path': '(collection)',
                                     'change': 'changed', 'old': 'b',
                                     'new': 'a'}]),
        ('a', 'changed', 'modified', [
            {'path': 'data.password', 'change': 'changed', 'old': '******',
             'new': '******'},
            {'path': 'data.x', 'change': 'changed', 'old': 1, 'new': 2},
            {'path': 'data.y', 'change': 'changed', 'old': [1, 2],
             'new': [1, 2, 3]},
            {'path': 'data.z', 'change': 'added', 'new': None}]),
        ('a', 'new', 'added', []),
        ('a', 'gone', 'removed', [])]
    store.commit()
    assert store.diff(2, 1).collections == {'a': 'modified', 'b': 'created'}
    assert [d.status for d in store.diff(0, 1).documents] == ['added'] * 4
    assert store.diff('committed', 'buffer').collections == {
        'a': 'unmodified'}


def test_diff_masks_encrypted_documents(db):
    stage('a', config('c', {'x': 1}, storagePolicy='encrypted'))
    store.commit()
    stage('a', config('c', {'x': 2}, storagePolicy='encrypted'))
    (changed,) = store.diff().documents
    assert [c.as_dict() for c in changed.changes] == [
        {'path': 'data.x', 'change': 'changed', 'old': '******',
         'new': '******'}]


def test_render_reads_the_buffer_with_its_issues(db):
    stage('a', configuration('missing'), node('n1'))
    site, issues = store.render('buffer')
    assert sorted(site.nodes) == ['n1']
    assert [i.error.field for i in issues] == [
        'data.physical_provisioner.deployment_strategy']
