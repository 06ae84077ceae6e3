"""A node's row version: the count of its writes, for compare-and-set.

Revision ID: 0009_node_row_version
Revises: 0008_fleet_limits
"""

import sqlalchemy as sa
from alembic import op

revision = '0009_node_row_version'
down_revision = '0008_fleet_limits'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('row_version', sa.Integer(),
                                   server_default='0', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        batch.drop_column('row_version')
