"""Site layer: the task runs of a site action (task graphs).

Revision ID: 0004_site_action_tasks
Revises: 0003_site_designs
"""

import sqlalchemy as sa
from alembic import op

revision = '0004_site_action_tasks'
down_revision = '0003_site_designs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('site_action_tasks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('action_id', sa.Integer(), nullable=False),
    sa.Column('node_uuid', sa.String(length=36), nullable=False),
    sa.Column('task', sa.String(length=255), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('stage', sa.String(length=255), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('exit_status', sa.Integer(), nullable=True),
    sa.Column('duration', sa.Float(), nullable=True),
    sa.Column('output_tail', sa.Text(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['action_id'], ['site_actions.id'], name=op.f('fk_site_action_tasks_action_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_site_action_tasks')),
    sa.UniqueConstraint('action_id', 'node_uuid', 'task', name='uniq_site_action_tasks0action_id')
    )
    with op.batch_alter_table('site_action_tasks', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_site_action_tasks_action_id'), ['action_id'], unique=False)


def downgrade() -> None:
    op.drop_table('site_action_tasks')
