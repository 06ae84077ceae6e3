"""Schema migrations: upgrade, current version, and revision creation.

alembic (~0.5 s of CPU to import, and resident after) is loaded only
when a migration runs: a start-up that finds the schema at the newest
revision (:func:`upgrade`, the all-in-one's every start) reads the
version with a plain query and goes on.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import sqlalchemy as sa

from ironside.db import session as db_session

if TYPE_CHECKING:
    from alembic import config as alembic_config

MIGRATIONS = os.path.join(os.path.dirname(__file__), 'migrations')

# Alembic's table of the revision a database is at.
VERSION_TABLE = 'alembic_version'


def _config(connection: sa.Connection | None = None
            ) -> alembic_config.Config:
    # Only a migration (or a new one) needs alembic.
    from alembic import config as alembic_config
    config = alembic_config.Config(os.path.join(MIGRATIONS, 'alembic.ini'))
    config.attributes['connection'] = connection
    return config


def head() -> str:
    """The newest revision. Each script is named after its revision and
    numbered in order (0001_..., 0002_...; the history is linear), so
    the last name is the head (a unit test checks it is alembic's)."""
    names = sorted(name[:-len('.py')] for name in
                   os.listdir(os.path.join(MIGRATIONS, 'versions'))
                   if name[:1].isdigit() and name.endswith('.py'))
    return names[-1]


def _current(connection: sa.Connection) -> str | None:
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return None
    table = sa.table(VERSION_TABLE, sa.column('version_num'))
    versions = connection.execute(
        sa.select(table.c.version_num)).scalars().all()
    if len(versions) > 1:
        raise RuntimeError('the database is at several revisions: %s'
                           % ', '.join(sorted(versions)))
    return versions[0] if versions else None


def upgrade(revision: str = 'head') -> None:
    """Upgrade the configured database to ``revision``."""
    engine = db_session.get_engine()
    if revision == 'head':
        with engine.connect() as connection:
            if _current(connection) == head():
                return
    # alembic only when a migration may run.
    from alembic import command as alembic_command
    with engine.begin() as connection:
        alembic_command.upgrade(_config(connection), revision)


def version() -> str | None:
    """The revision the configured database is at; None if not versioned."""
    engine = db_session.get_engine()
    with engine.connect() as connection:
        return _current(connection)


def revision(message: str, autogenerate: bool = True) -> None:
    """Create a new migration script (a developer's tool)."""
    # alembic only when a migration may run.
    from alembic import command as alembic_command
    engine = db_session.get_engine()
    with engine.begin() as connection:
        alembic_command.revision(_config(connection), message=message,
                                 autogenerate=autogenerate)
