"""The site tables: migrations 0002_site, 0003_site_designs and
0004_site_action_tasks match the models; claims."""

from __future__ import annotations

import pytest
from alembic import autogenerate
from alembic import migration as alembic_migration

from ironside.common import exception
from ironside.db import models
from ironside.db import session as db_session
from ironside.db import site as site_db
from ironside.db import site_models


def test_site_models_match_the_migration(db):
    with db_session.get_engine().connect() as connection:
        context = alembic_migration.MigrationContext.configure(
            connection, opts={'compare_type': True})
        diff = autogenerate.compare_metadata(context, models.Base.metadata)
    site_tables = {t for t in models.Base.metadata.tables
                   if t.startswith('site_')}
    assert site_tables == {'site_strategies', 'site_actions',
                           'site_action_nodes', 'site_node_claims',
                           'site_design_documents', 'site_design_buffer',
                           'site_design_buffer_documents',
                           'site_design_revisions',
                           'site_design_revision_documents',
                           'site_design_tags', 'site_action_tasks'}
    assert [d for d in diff if any(t in repr(d) for t in site_tables)] == []


def _action(nodes):
    return site_db.create_action('deploy_site', 's', {}, {}, nodes)


def test_claims_refuse_overlap_and_name_the_holder(db):
    first = _action([('u1', 'n1'), ('u2', 'n2')])
    with pytest.raises(exception.SiteActionConflict) as err:
        _action([('u2', 'n2'), ('u3', 'n3')])
    assert str(err.value) == (
        'Site action %s is still running on nodes n2; a second action on '
        'the same nodes is refused until it finishes.' % first.uuid)
    assert [a.uuid for a in site_db.list_actions()] == [first.uuid]
    _action([('u3', 'n3')])


def test_finishing_releases_claims(db):
    first = _action([('u1', 'n1')])
    assert site_db.claim_action(first.id, 'h', None, None)
    site_db.save_progress(first.id, 'h', result='success')
    assert site_db.get_action(first.uuid).state == site_models.FINISHED
    _action([('u1', 'n1')])


def test_only_the_owner_writes(db):
    action = _action([('u1', 'n1')])
    assert site_db.claim_action(action.id, 'h1', None, None)
    assert not site_db.claim_action(action.id, 'h2', None, None)
    with pytest.raises(site_db.NotOwner):
        site_db.save_progress(action.id, 'h2', {'x': 1})
    site_db.release_action(action.id, 'h1')
    assert site_db.claim_action(action.id, 'h2', None,
                                site_db.get_action(action.uuid).heartbeat_at)


def test_strategies(db):
    site_db.create_strategy('s1', 'ironside/DeploymentStrategy/v1', {})
    with pytest.raises(exception.StrategyAlreadyExists):
        site_db.create_strategy('s1', 'ironside/DeploymentStrategy/v1', {})
    assert [s.name for s in site_db.list_strategies()] == ['s1']
    site_db.delete_strategy('s1')
    with pytest.raises(exception.StrategyNotFound):
        site_db.get_strategy('s1')
