"""Fleet-wide caps: a row to lock per cap, and the slots conductors hold.

Revision ID: 0008_fleet_limits
Revises: 0007_inspection_rules
"""

import sqlalchemy as sa
from alembic import op

revision = '0008_fleet_limits'
down_revision = '0007_inspection_rules'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'fleet_limits',
        sa.Column('name', sa.String(length=32), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('name', name=op.f('pk_fleet_limits')),
    )
    op.create_table(
        'fleet_slots',
        sa.Column('name', sa.String(length=32), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('used', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('name', 'host', name=op.f('pk_fleet_slots')),
    )


def downgrade() -> None:
    op.drop_table('fleet_slots')
    op.drop_table('fleet_limits')
