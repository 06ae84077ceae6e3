"""Site layer: deployment strategies, site actions, their nodes and claims.

Revision ID: 0002_site
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# JSON documents are stored as text; LONGTEXT on MySQL/MariaDB.
JSON_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')


revision = '0002_site'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('site_strategies',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('schema', sa.String(length=255), nullable=False),
    sa.Column('document', JSON_TEXT, nullable=True),
    sa.Column('source', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_site_strategies')),
    sa.UniqueConstraint('name', name=op.f('uniq_site_strategies0name')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_site_strategies0uuid'))
    )
    op.create_table('site_actions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('strategy_name', sa.String(length=255), nullable=False),
    sa.Column('document', JSON_TEXT, nullable=True),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('result', sa.String(length=255), nullable=True),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(), nullable=True),
    sa.Column('progress', JSON_TEXT, nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_site_actions')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_site_actions0uuid'))
    )
    with op.batch_alter_table('site_actions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_site_actions_owner'), ['owner'], unique=False)
        batch_op.create_index(batch_op.f('ix_site_actions_state'), ['state'], unique=False)

    op.create_table('site_action_nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('action_id', sa.Integer(), nullable=False),
    sa.Column('node_uuid', sa.String(length=36), nullable=False),
    sa.Column('node_name', sa.String(length=255), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('phase', sa.String(length=16), nullable=True),
    sa.Column('request', sa.String(length=16), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['action_id'], ['site_actions.id'], name=op.f('fk_site_action_nodes_action_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_site_action_nodes')),
    sa.UniqueConstraint('action_id', 'node_uuid', name='uniq_site_action_nodes0action_id')
    )
    with op.batch_alter_table('site_action_nodes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_site_action_nodes_action_id'), ['action_id'], unique=False)

    op.create_table('site_node_claims',
    sa.Column('node_uuid', sa.String(length=36), nullable=False),
    sa.Column('action_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['action_id'], ['site_actions.id'], name=op.f('fk_site_node_claims_action_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('node_uuid', name=op.f('pk_site_node_claims'))
    )
    with op.batch_alter_table('site_node_claims', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_site_node_claims_action_id'), ['action_id'], unique=False)


def downgrade() -> None:
    op.drop_table('site_node_claims')
    op.drop_table('site_action_nodes')
    op.drop_table('site_actions')
    op.drop_table('site_strategies')
