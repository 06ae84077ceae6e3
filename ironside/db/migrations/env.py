"""Alembic environment: runs migrations on the connection it is handed."""

from alembic import context

from ironside.db import design_models  # noqa
from ironside.db import models
from ironside.db import site_models  # noqa

target_metadata = models.Base.metadata


def run_migrations_online() -> None:
    connection = context.config.attributes['connection']
    context.configure(connection=connection,
                      target_metadata=target_metadata,
                      render_as_batch=True,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
