"""Site designs: documents by hash, the buffer, revisions, tags; the design
revision, parameters and log of a site action.

Revision ID: 0003_site_designs
Revises: 0002_site
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# JSON documents and texts are stored as text; LONGTEXT on MySQL/MariaDB.
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')


revision = '0003_site_designs'
down_revision = '0002_site'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'site_design_documents',
        sa.Column('hash', sa.String(length=64), nullable=False),
        sa.Column('body', LONG_TEXT, nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('hash', name=op.f('pk_site_design_documents')))
    op.create_table(
        'site_design_buffer',
        sa.Column('collection', sa.String(length=255), nullable=False),
        sa.Column('token', sa.String(length=32), nullable=False),
        sa.Column('sources', LONG_TEXT, nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('collection',
                                name=op.f('pk_site_design_buffer')))
    op.create_table(
        'site_design_buffer_documents',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('collection', sa.String(length=255), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('source', sa.Integer(), nullable=False),
        sa.Column('source_index', sa.Integer(), nullable=False),
        sa.Column('schema', sa.String(length=255), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('hash', sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ['collection'], ['site_design_buffer.collection'],
            name=op.f('fk_site_design_buffer_documents_collection'),
            ondelete='CASCADE'),
        sa.ForeignKeyConstraint(
            ['hash'], ['site_design_documents.hash'],
            name=op.f('fk_site_design_buffer_documents_hash')),
        sa.PrimaryKeyConstraint('id',
                                name=op.f('pk_site_design_buffer_documents')),
        sa.UniqueConstraint('collection', 'schema', 'name',
                            name='uniq_site_design_buffer_documents0key'))
    with op.batch_alter_table('site_design_buffer_documents') as batch_op:
        batch_op.create_index(
            batch_op.f('ix_site_design_buffer_documents_collection'),
            ['collection'], unique=False)
    op.create_table(
        'site_design_revisions',
        sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('documents', sa.Integer(), nullable=False),
        sa.Column('forced', sa.Boolean(), nullable=False),
        sa.Column('warnings', LONG_TEXT, nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_site_design_revisions')))
    op.create_table(
        'site_design_revision_documents',
        sa.Column('revision_id', sa.Integer(), nullable=False),
        sa.Column('schema', sa.String(length=255), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('collection', sa.String(length=255), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('hash', sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ['hash'], ['site_design_documents.hash'],
            name=op.f('fk_site_design_revision_documents_hash')),
        sa.ForeignKeyConstraint(
            ['revision_id'], ['site_design_revisions.id'],
            name=op.f('fk_site_design_revision_documents_revision_id'),
            ondelete='CASCADE'),
        sa.PrimaryKeyConstraint(
            'revision_id', 'schema', 'name',
            name=op.f('pk_site_design_revision_documents')))
    op.create_table(
        'site_design_tags',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('revision_id', sa.Integer(), nullable=False),
        sa.Column('tag', sa.String(length=64), nullable=False),
        sa.Column('action_uuid', sa.String(length=36), nullable=True),
        sa.Column('data', LONG_TEXT, nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ['revision_id'], ['site_design_revisions.id'],
            name=op.f('fk_site_design_tags_revision_id'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_site_design_tags')))
    with op.batch_alter_table('site_design_tags') as batch_op:
        batch_op.create_index(batch_op.f('ix_site_design_tags_revision_id'),
                              ['revision_id'], unique=False)
    with op.batch_alter_table('site_actions') as batch_op:
        batch_op.add_column(sa.Column('revision_id', sa.Integer(),
                                      nullable=True))
        batch_op.add_column(sa.Column('parameters', LONG_TEXT,
                                      nullable=True))
        batch_op.add_column(sa.Column('log', LONG_TEXT, nullable=True))
        batch_op.create_index(batch_op.f('ix_site_actions_revision_id'),
                              ['revision_id'], unique=False)
        batch_op.create_foreign_key(
            batch_op.f('fk_site_actions_revision_id'),
            'site_design_revisions', ['revision_id'], ['id'])


def downgrade() -> None:
    with op.batch_alter_table('site_actions') as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_site_actions_revision_id'),
                                 type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_site_actions_revision_id'))
        batch_op.drop_column('log')
        batch_op.drop_column('parameters')
        batch_op.drop_column('revision_id')
    op.drop_table('site_design_tags')
    op.drop_table('site_design_revision_documents')
    op.drop_table('site_design_revisions')
    op.drop_table('site_design_buffer_documents')
    op.drop_table('site_design_buffer')
    op.drop_table('site_design_documents')
