"""Volume connectors and targets (API 1.32); runbooks and their steps
(API 1.92), with their description and traits (1.112).

Revision ID: 0006_volume_runbooks
Revises: 0005_conductor_instance
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# JSON documents are stored as text; LONGTEXT on MySQL/MariaDB.
JSON_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')

revision = '0006_volume_runbooks'
down_revision = '0005_conductor_instance'
branch_labels = None
depends_on = None


def _timestamps() -> tuple[sa.Column[Any], sa.Column[Any]]:
    return (sa.Column('created_at', sa.DateTime(), nullable=False),
            sa.Column('updated_at', sa.DateTime(), nullable=True))


def _node_child(table: str, *columns: sa.Column[Any],
                unique: Sequence[str]) -> None:
    op.create_table(
        table,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('node_id', sa.Integer(), nullable=False),
        *columns,
        sa.Column('extra', JSON_TEXT, nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(['node_id'], ['nodes.id'],
                                name=op.f('fk_%s_node_id' % table),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_%s' % table)),
        sa.UniqueConstraint('uuid', name=op.f('uniq_%s0uuid' % table)),
        sa.UniqueConstraint(*unique, name='uniq_%s0%s' % (
            table.replace('_', ''), '0'.join(unique))),
    )
    with op.batch_alter_table(table, schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_%s_node_id' % table),
                              ['node_id'], unique=False)


def upgrade() -> None:
    _node_child('volume_connectors',
                sa.Column('type', sa.String(length=32), nullable=False),
                sa.Column('connector_id', sa.String(length=255),
                          nullable=False),
                unique=('type', 'connector_id'))
    _node_child('volume_targets',
                sa.Column('volume_type', sa.String(length=64),
                          nullable=False),
                sa.Column('properties', JSON_TEXT, nullable=True),
                sa.Column('boot_index', sa.Integer(), nullable=False),
                sa.Column('volume_id', sa.String(length=36),
                          nullable=False),
                unique=('node_id', 'boot_index'))
    op.create_table(
        'runbooks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('disable_ramdisk', sa.Boolean(), nullable=False),
        sa.Column('public', sa.Boolean(), nullable=False),
        sa.Column('owner', sa.String(length=255), nullable=True),
        sa.Column('description', sa.String(length=255), nullable=True),
        sa.Column('traits', JSON_TEXT, nullable=True),
        sa.Column('extra', JSON_TEXT, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_runbooks')),
        sa.UniqueConstraint('name', name=op.f('uniq_runbooks0name')),
        sa.UniqueConstraint('uuid', name=op.f('uniq_runbooks0uuid')),
    )
    op.create_table(
        'runbook_steps',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('runbook_id', sa.Integer(), nullable=False),
        sa.Column('interface', sa.String(length=255), nullable=False),
        sa.Column('step', sa.String(length=255), nullable=False),
        sa.Column('args', JSON_TEXT, nullable=True),
        sa.Column('order', sa.Integer(), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['runbook_id'], ['runbooks.id'],
                                name=op.f('fk_runbook_steps_runbook_id'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_runbook_steps')),
    )
    with op.batch_alter_table('runbook_steps', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_runbook_steps_runbook_id'),
                              ['runbook_id'], unique=False)


def downgrade() -> None:
    op.drop_table('runbook_steps')
    op.drop_table('runbooks')
    op.drop_table('volume_targets')
    op.drop_table('volume_connectors')
