"""Schema migrations: upgrade, current version, and revision creation."""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration

from ironside.db import session as db_session


def _config(connection: sa.Connection | None = None
            ) -> alembic_config.Config:
    path = os.path.join(os.path.dirname(__file__), 'migrations',
                        'alembic.ini')
    config = alembic_config.Config(path)
    config.attributes['connection'] = connection
    return config


def upgrade(revision: str = 'head') -> None:
    """Upgrade the configured database to ``revision``."""
    engine = db_session.get_engine()
    with engine.begin() as connection:
        alembic_command.upgrade(_config(connection), revision)


def version() -> str | None:
    """The revision the configured database is at; None if not versioned."""
    engine = db_session.get_engine()
    with engine.connect() as connection:
        context = alembic_migration.MigrationContext.configure(connection)
        return context.get_current_revision()


def revision(message: str, autogenerate: bool = True) -> None:
    """Create a new migration script (a developer's tool)."""
    engine = db_session.get_engine()
    with engine.begin() as connection:
        alembic_command.revision(_config(connection), message=message,
                                 autogenerate=autogenerate)
