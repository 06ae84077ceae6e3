"""Inspection rules (API 1.96) and the inventory a node's inspection
stored (API 1.81).

Revision ID: 0007_inspection_rules
Revises: 0006_volume_runbooks
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# JSON documents are stored as text; LONGTEXT on MySQL/MariaDB.
JSON_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')

revision = '0007_inspection_rules'
down_revision = '0006_volume_runbooks'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'inspection_rules',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('description', sa.String(length=255), nullable=True),
        sa.Column('phase', sa.String(length=16), nullable=False),
        sa.Column('priority', sa.Integer(), nullable=False),
        sa.Column('sensitive', sa.Boolean(), nullable=False),
        sa.Column('conditions', JSON_TEXT, nullable=True),
        sa.Column('actions', JSON_TEXT, nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_inspection_rules')),
        sa.UniqueConstraint('uuid', name=op.f('uniq_inspection_rules0uuid')),
    )
    with op.batch_alter_table('inspection_rules', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_inspection_rules_phase'),
                              ['phase'], unique=False)
    op.create_table(
        'node_inventory',
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('inventory', JSON_TEXT, nullable=True),
        sa.Column('plugin_data', JSON_TEXT, nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['node_id'], ['nodes.id'],
                                name=op.f('fk_node_inventory_node_id'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('node_id', name=op.f('pk_node_inventory')),
    )


def downgrade() -> None:
    op.drop_table('node_inventory')
    op.drop_table('inspection_rules')
