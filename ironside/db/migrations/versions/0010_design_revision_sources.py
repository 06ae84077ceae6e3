"""Design revisions keep the texts their documents were committed from,
so that an error found when an action runs a revision names its line.

Revision ID: 0010_design_revision_sources
Revises: 0009_node_row_version
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# JSON is stored as text; LONGTEXT on MySQL/MariaDB.
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')

revision = '0010_design_revision_sources'
down_revision = '0009_node_row_version'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('site_design_revisions',
                  sa.Column('sources', LONG_TEXT, nullable=True))
    op.add_column('site_design_revision_documents',
                  sa.Column('source', sa.Integer(), nullable=True))
    op.add_column('site_design_revision_documents',
                  sa.Column('source_index', sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column('site_design_revision_documents', 'source_index')
    op.drop_column('site_design_revision_documents', 'source')
    op.drop_column('site_design_revisions', 'sources')
