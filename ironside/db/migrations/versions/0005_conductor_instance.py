"""Conductors: the process that registered each one.

Revision ID: 0005_conductor_instance
Revises: 0004_site_action_tasks
"""

import sqlalchemy as sa
from alembic import op

revision = '0005_conductor_instance'
down_revision = '0004_site_action_tasks'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('conductors', schema=None) as batch_op:
        batch_op.add_column(sa.Column('instance', sa.String(length=255),
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('conductors', schema=None) as batch_op:
        batch_op.drop_column('instance')
