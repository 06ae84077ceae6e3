"""Queries of site designs: document bodies, the buffer, revisions, tags.

Rows of a version are (collection, position, schema, name, hash); bodies
are read by hash only when a document's content is needed. A commit
writes its revision in one transaction, and only if the buffer and the
committed head are still what it validated.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from oslo_db import exception as db_exc
from sqlalchemy import orm
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from ironside.common import exception
from ironside.db import models
from ironside.db import session as db_session
from ironside.db.design_models import DesignBufferCollection as Buffer
from ironside.db.design_models import DesignBufferDocument as BufferDoc
from ironside.db.design_models import DesignDocumentBody as Body
from ironside.db.design_models import DesignRevision as Revision
from ironside.db.design_models import DesignRevisionDocument as RevisionDoc
from ironside.db.design_models import DesignTag as Tag
from ironside.db.site_models import SiteAction

_CHUNK = 500


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start:start + _CHUNK]


# Bodies

def bodies(hashes: Iterable[str]) -> dict[str, str]:
    """The stored text of each document, by hash."""
    wanted = sorted(set(hashes))
    found: dict[str, str] = {}
    with db_session.reader() as session:
        for chunk in _chunks(wanted):
            found.update(session.execute(
                sa.select(Body.hash, Body.body)
                .where(Body.hash.in_(list(chunk)))).all())
    return found


def _insert_ignoring_duplicates(session: orm.Session,
                                rows: list[dict[str, Any]]) -> None:
    """Insert bodies another writer may be inserting too."""
    dialect = session.get_bind().dialect.name
    statement: sa.Insert
    if dialect == 'postgresql':
        statement = postgresql.insert(Body).on_conflict_do_nothing()
    elif dialect == 'sqlite':
        statement = sqlite.insert(Body).on_conflict_do_nothing()
    else:
        statement = sa.insert(Body).prefix_with('IGNORE')
    session.execute(statement, rows)


def _store_bodies(session: orm.Session, texts: Mapping[str, str]) -> None:
    hashes = sorted(texts)
    existing: set[str] = set()
    for chunk in _chunks(hashes):
        existing.update(session.scalars(
            sa.select(Body.hash).where(Body.hash.in_(list(chunk)))))
    now = models.utcnow()
    missing = [{'hash': h, 'body': texts[h], 'created_at': now}
               for h in hashes if h not in existing]
    for chunk in _chunks(missing):
        _insert_ignoring_duplicates(session, list(chunk))


# The buffer

def buffer_collections() -> list[db_session.AnyRow]:
    """Staged collections: (collection, token, created_at, updated_at)."""
    with db_session.reader() as session:
        return list(session.execute(
            sa.select(Buffer.collection, Buffer.token, Buffer.created_at,
                      Buffer.updated_at).order_by(Buffer.collection)))


def buffer_rows(collections: Sequence[str] | None = None
                ) -> list[db_session.AnyRow]:
    """(collection, position, source, source_index, schema, name, hash)
    of staged documents, in collection order."""
    query = sa.select(BufferDoc.collection, BufferDoc.position,
                      BufferDoc.source, BufferDoc.source_index,
                      BufferDoc.schema, BufferDoc.name, BufferDoc.hash)
    if collections is not None:
        query = query.where(BufferDoc.collection.in_(list(collections)))
    with db_session.reader() as session:
        return list(session.execute(
            query.order_by(BufferDoc.collection, BufferDoc.position)))


def buffer_sources(collection: str) -> list[dict[str, str]]:
    with db_session.reader() as session:
        sources = session.scalar(sa.select(Buffer.sources).where(
            Buffer.collection == collection))
    return sources or []


def stage(collection: str, token: str, sources: list[dict[str, str]],
          rows: Sequence[Mapping[str, Any]], texts: Mapping[str, str]
          ) -> None:
    """Put ``collection`` in the buffer, replacing what was staged.

    ``rows`` are dicts of position, source, source_index, schema, name
    and hash; ``texts`` the bodies by hash.
    """
    now = models.utcnow()
    with db_session.writer() as session:
        _store_bodies(session, texts)
        session.execute(sa.delete(Buffer)
                        .where(Buffer.collection == collection))
        session.execute(sa.insert(Buffer).values(
            collection=collection, token=token, sources=sources,
            created_at=now))
        if rows:
            session.execute(sa.insert(BufferDoc), [
                dict(row, collection=collection) for row in rows])


def unstage(collection: str) -> None:
    with db_session.writer() as session:
        session.execute(sa.delete(BufferDoc)
                        .where(BufferDoc.collection == collection))
        session.execute(sa.delete(Buffer)
                        .where(Buffer.collection == collection))


def discard_buffer() -> None:
    with db_session.writer() as session:
        session.execute(sa.delete(BufferDoc))
        session.execute(sa.delete(Buffer))


# Revisions

def latest_revision() -> int:
    """The newest revision's number; 0 if none was committed."""
    with db_session.reader() as session:
        return session.scalar(sa.select(sa.func.max(Revision.id))) or 0


def revision_rows(revision: int) -> list[db_session.AnyRow]:
    """(collection, position, schema, name, hash, source, source_index)
    of a revision."""
    if not revision:
        return []
    with db_session.reader() as session:
        return list(session.execute(
            sa.select(RevisionDoc.collection, RevisionDoc.position,
                      RevisionDoc.schema, RevisionDoc.name,
                      RevisionDoc.hash, RevisionDoc.source,
                      RevisionDoc.source_index)
            .where(RevisionDoc.revision_id == revision)
            .order_by(RevisionDoc.collection, RevisionDoc.position)))


def revision_sources(revision: int) -> dict[str, list[dict[str, str]]]:
    """The texts a revision was committed from, by collection:
    [{"name", "hash"}] (see :func:`bodies`); {} if it did not keep them."""
    if not revision:
        return {}
    with db_session.reader() as session:
        return session.scalar(sa.select(Revision.sources).where(
            Revision.id == revision)) or {}


def commit(base: int, tokens: Mapping[str, str],
           rows: Sequence[Mapping[str, Any]], warnings: Sequence[str],
           forced: bool,
           sources: Mapping[str, Sequence[Mapping[str, str]]] | None = None,
           texts: Mapping[str, str] | None = None) -> int:
    """Write revision ``base + 1`` from ``rows`` (dicts of collection,
    position, schema, name, hash, source, source_index) and empty the
    buffer of the collections it read (``tokens``). ``sources``: the
    texts it was committed from, by collection ([{"name", "hash"}]),
    ``texts`` those not stored yet, by hash. DesignChanged, writing
    nothing, if another commit or a staging came first."""
    number = base + 1
    try:
        with db_session.writer() as session:
            removed = session.execute(
                sa.delete(Buffer).where(sa.or_(*[
                    sa.and_(Buffer.collection == c, Buffer.token == t)
                    for c, t in tokens.items()])))
            if db_session.changed_rows(removed) != len(tokens) or \
                    session.scalar(sa.select(sa.func.count())
                                   .select_from(Revision)
                                   .where(Revision.id > base)):
                raise exception.DesignChanged()
            session.execute(sa.delete(BufferDoc).where(
                BufferDoc.collection.in_(list(tokens))))
            _store_bodies(session, texts or {})
            session.execute(sa.insert(Revision).values(
                id=number, created_at=models.utcnow(),
                documents=len(rows), forced=forced,
                warnings=list(warnings),
                sources={c: list(s) for c, s in (sources or {}).items()}))
            for chunk in _chunks(list(rows)):
                session.execute(sa.insert(RevisionDoc), [
                    dict(row, revision_id=number) for row in chunk])
    except db_exc.DBDuplicateEntry:
        raise exception.DesignChanged() from None
    return number


def revisions(numbers: Sequence[int] | None = None) -> list[Revision]:
    query = sa.select(Revision).order_by(Revision.id)
    if numbers is not None:
        query = query.where(Revision.id.in_(list(numbers)))
    with db_session.reader() as session:
        return list(session.scalars(query))


def collection_counts(revision: int) -> dict[str, int]:
    with db_session.reader() as session:
        return dict(session.execute(
            sa.select(RevisionDoc.collection, sa.func.count())
            .where(RevisionDoc.revision_id == revision)
            .group_by(RevisionDoc.collection)
            .order_by(RevisionDoc.collection)).all())


# Tags

def tags(revisions: Sequence[int] | None = None) -> list[Tag]:
    query = sa.select(Tag).order_by(Tag.revision_id, Tag.id)
    if revisions is not None:
        query = query.where(Tag.revision_id.in_(list(revisions)))
    with db_session.reader() as session:
        return list(session.scalars(query))


def add_tag(session: orm.Session, revision: int, tag: str,
            action_uuid: str) -> None:
    """Tag ``revision`` inside the caller's transaction."""
    session.execute(sa.insert(Tag).values(
        revision_id=revision, tag=tag, action_uuid=action_uuid,
        data={'action': action_uuid}, created_at=models.utcnow()))


def newest_tagged(tag_names: Sequence[str]) -> int | None:
    """The newest revision carrying any of these tags."""
    with db_session.reader() as session:
        return session.scalar(sa.select(sa.func.max(Tag.revision_id))
                              .where(Tag.tag.in_(list(tag_names))))


def untagged_between(low: int, high: int,
                     tag_names: Sequence[str]) -> list[int]:
    """Revisions after ``low`` and before ``high`` without these tags."""
    tagged = sa.select(Tag.revision_id).where(Tag.tag.in_(list(tag_names)))
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(Revision.id)
            .where(Revision.id > low, Revision.id < high,
                   Revision.id.not_in(tagged))
            .order_by(Revision.id)))


def revision_actions(revision: int
                     ) -> list[tuple[str, str, str, str | None]]:
    """(uuid, action, state, result) of the actions that ran it."""
    with db_session.reader() as session:
        return [(uuid, action, state, result)
                for uuid, action, state, result in session.execute(
                    sa.select(SiteAction.uuid, SiteAction.action,
                              SiteAction.state, SiteAction.result)
                    .where(SiteAction.revision_id == revision)
                    .order_by(SiteAction.id))]
