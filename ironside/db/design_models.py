"""Tables of site designs: documents, the buffer, revisions and tags.

A document is stored once, by the SHA-256 of its canonical JSON; the
buffer and the revisions hold rows of (collection, schema, name, hash).
A revision is a full snapshot of the design, never changed once
written; two revisions that share a document share its one copy, and a
diff compares hashes, decoding only the documents that changed.
Migration ``0003_site_designs`` creates these tables.
"""

from __future__ import annotations

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.dialects import mysql

from ironside.db.models import Base
from ironside.db.models import JsonDict
from ironside.db.models import JsonList
from ironside.db.models import TimestampMixin
from ironside.db.models import utcnow

# Text of any length: LONGTEXT on MySQL/MariaDB.
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')

SITE_ACTION_SUCCESS = 'site-action-success'
SITE_ACTION_FAILURE = 'site-action-failure'
SITE_ACTION_TAGS = (SITE_ACTION_SUCCESS, SITE_ACTION_FAILURE)


class DesignDocumentBody(Base):
    """One document's content, by hash (decoded only when needed)."""

    __tablename__ = 'site_design_documents'

    hash: orm.Mapped[str] = orm.mapped_column(sa.String(64),
                                              primary_key=True)
    body: orm.Mapped[str] = orm.mapped_column(LONG_TEXT)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False)


class DesignBufferCollection(TimestampMixin, Base):
    """A collection staged in the buffer: it replaces the committed one
    at the next commit (with no documents, it removes it)."""

    __tablename__ = 'site_design_buffer'

    collection: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                    primary_key=True)
    # Changes at every staging: a commit removes only what it read.
    token: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    # The texts it was staged from ([{"name", "text"}]), for line numbers.
    sources: orm.Mapped[list[Any]] = orm.mapped_column(JsonList, nullable=True)


class DesignBufferDocument(Base):
    __tablename__ = 'site_design_buffer_documents'
    __table_args__ = (
        sa.UniqueConstraint('collection', 'schema', 'name',
                            name='uniq_site_design_buffer_documents0key'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    collection: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), sa.ForeignKey('site_design_buffer.collection',
                                      ondelete='CASCADE'), index=True)
    # Order in the collection; the source it came from and its index there.
    position: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    source: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    source_index: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    schema: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    hash: orm.Mapped[str] = orm.mapped_column(
        sa.String(64), sa.ForeignKey('site_design_documents.hash'))


class DesignRevision(Base):
    """A committed design. ``id`` is its number: 1, 2, 3, ..."""

    __tablename__ = 'site_design_revisions'

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True,
                                            autoincrement=False)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False)
    documents: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    # Committed with --force over these warnings.
    forced: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    warnings: orm.Mapped[list[Any]] = orm.mapped_column(
        JsonList, nullable=True)
    # The texts its documents were committed from, for line numbers:
    # {collection: [{"name", "hash"}]}, each text stored once, by the
    # SHA-256 of the text, with the documents (none before migration
    # 0010_design_revision_sources).
    sources: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JsonDict, nullable=True)


class DesignRevisionDocument(Base):
    __tablename__ = 'site_design_revision_documents'

    revision_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('site_design_revisions.id', ondelete='CASCADE'),
        primary_key=True)
    schema: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                              primary_key=True)
    collection: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    position: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    hash: orm.Mapped[str] = orm.mapped_column(
        sa.String(64), sa.ForeignKey('site_design_documents.hash'))
    # Which of the revision's sources of its collection, and which
    # document of it (None: not known).
    source: orm.Mapped[int | None] = orm.mapped_column(sa.Integer,
                                                       nullable=True)
    source_index: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer, nullable=True)


class DesignTag(Base):
    """A tag on a revision: ``site-action-success`` or
    ``site-action-failure``, with the site action that earned it."""

    __tablename__ = 'site_design_tags'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    revision_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('site_design_revisions.id', ondelete='CASCADE'),
        index=True)
    tag: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    action_uuid: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(36), nullable=True)
    data: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JsonDict, nullable=True)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False)
