"""The migrations build exactly the schema the models describe."""

from __future__ import annotations

from alembic import autogenerate
from alembic import migration as alembic_migration

from ironside.db import migration
from ironside.db import models
from ironside.db import session as db_session


def test_models_match_migrations(db):
    with db_session.get_engine().connect() as connection:
        context = alembic_migration.MigrationContext.configure(
            connection, opts={'compare_type': True})
        diff = autogenerate.compare_metadata(context, models.Base.metadata)
    assert diff == []


def test_database_is_at_head(db):
    from alembic import script

    scripts = script.ScriptDirectory.from_config(migration._config())
    assert migration.version() == scripts.get_current_head()
