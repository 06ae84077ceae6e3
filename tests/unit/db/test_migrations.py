"""The migrations build exactly the schema the models describe."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from alembic import autogenerate
from alembic import migration as alembic_migration

from ironside.db import migration
from ironside.db import models
from ironside.db import session as db_session

ROOT = pathlib.Path(__file__).resolve().parents[3]


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


def test_head_is_alembics_head():
    from alembic import script

    scripts = script.ScriptDirectory.from_config(migration._config())
    assert migration.head() == scripts.get_current_head()


_UPGRADE = '''
import sys
from ironside.common.conf import CONF
from ironside.db import migration
CONF([], project='ironside')
CONF.set_override('connection', sys.argv[1], 'database')
before = migration.version()
migration.upgrade()
print(before, migration.version(), 'alembic' in sys.modules)
'''


def test_an_upgrade_at_head_loads_no_alembic(tmp_path):
    """A start that finds the schema at head (the all-in-one's every
    start but the first) reads the version and loads no alembic."""
    url = 'sqlite:///%s' % (tmp_path / 'ironside.sqlite')

    def upgrade() -> list[str]:
        return subprocess.run([sys.executable, '-c', _UPGRADE, url],
                              check=True, capture_output=True, text=True,
                              cwd=ROOT).stdout.split()

    assert upgrade() == ['None', migration.head(), 'True']
    assert upgrade() == [migration.head(), migration.head(), 'False']
