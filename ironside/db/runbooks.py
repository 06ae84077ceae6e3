"""Queries on runbooks: named, ordered steps for manual cleaning.

A runbook is owned by a project (``owner``) or by no one; ``public``
ones are visible to every project. Its steps keep their ``order``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from ironside.common import exception
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

RUNBOOK = models.Runbook


def _ident_clause(ident: str):
    if uuidutils.is_uuid_like(ident):
        return RUNBOOK.uuid == ident
    return RUNBOOK.name == ident


def _duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    if 'name' in db_session.duplicate_columns(exc):
        return exception.RunbookDuplicateName(name=values.get('name'))
    return exception.RunbookAlreadyExists(uuid=values.get('uuid'))


def _steps(steps: Iterable[dict]) -> list[models.RunbookStep]:
    return [models.RunbookStep(
        interface=s['interface'], step=s['step'], args=s.get('args') or {},
        order=s['order']) for s in steps]


def _current(runbook: models.Runbook) -> dict[str, Any]:
    return {'name': runbook.name, 'extra': runbook.extra or {},
            'public': runbook.public, 'owner': runbook.owner,
            'disable_ramdisk': runbook.disable_ramdisk,
            'description': runbook.description,
            'steps': [s.as_step() for s in runbook.steps]}


def create(values: dict[str, Any]) -> models.Runbook:
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    steps = values.pop('steps', [])
    runbook = RUNBOOK(**values)
    runbook.steps = _steps(steps)
    try:
        with db_session.writer() as session:
            session.add(runbook)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values) from None
    return runbook


def update(ident: str, values: dict[str, Any],
           expected: dict[str, Any] | None = None) -> models.Runbook:
    """Change a runbook; with ``expected``, only if the fields it names
    still hold those values (compare-and-set, see resources.update)."""
    values = dict(values)
    steps = values.pop('steps', None)
    try:
        with db_session.writer() as session:
            runbook = session.scalars(sa.select(RUNBOOK).where(
                _ident_clause(ident))).first()
            if runbook is None:
                raise exception.RunbookNotFound(runbook=ident)
            if expected:
                session.refresh(runbook, with_for_update=True)
                resources.require_unchanged('runbooks', ident,
                                            _current(runbook), expected)
            for key, value in values.items():
                setattr(runbook, key, value)
            if steps is not None:
                runbook.steps = _steps(steps)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values) from None
    return runbook


def get(ident: str) -> models.Runbook:
    with db_session.reader() as session:
        runbook = session.scalars(sa.select(RUNBOOK).where(
            _ident_clause(ident))).first()
    if runbook is None:
        raise exception.RunbookNotFound(runbook=ident)
    return runbook


def list_runbooks(project: str | None = None, limit: int | None = None,
                  marker: str | None = None, sort_key: str = 'id',
                  sort_dir: str = 'asc') -> list[models.Runbook]:
    """A page of runbooks; with ``project``, its own and the public ones."""
    marker_id = get(marker).id if marker else None
    query = sa.select(RUNBOOK)
    if project:
        query = query.where(sa.or_(RUNBOOK.owner == project,
                                   RUNBOOK.public.is_(True)))
    query = db_session.paginate(query, RUNBOOK, limit, marker_id, sort_key,
                                sort_dir)
    with db_session.reader() as session:
        return list(session.scalars(query))


def destroy(ident: str) -> None:
    with db_session.writer() as session:
        runbook = session.scalars(sa.select(RUNBOOK).where(
            _ident_clause(ident))).first()
        if runbook is None:
            raise exception.RunbookNotFound(runbook=ident)
        # The steps go with it (delete-orphan cascade).
        session.delete(runbook)
