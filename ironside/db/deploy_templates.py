"""Queries on deploy templates: named lists of deploy steps."""

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


def _ident_clause(ident: str):
    if uuidutils.is_uuid_like(ident):
        return models.DeployTemplate.uuid == ident
    return models.DeployTemplate.name == ident


def _duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    if 'name' in db_session.duplicate_columns(exc):
        return exception.DeployTemplateDuplicateName(name=values.get('name'))
    return exception.DeployTemplateAlreadyExists(uuid=values.get('uuid'))


def _steps(steps: Iterable[dict]) -> list[models.DeployTemplateStep]:
    return [models.DeployTemplateStep(
        interface=s['interface'], step=s['step'], args=s.get('args') or {},
        priority=s['priority']) for s in steps]


def create(values: dict[str, Any]) -> models.DeployTemplate:
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    steps = values.pop('steps', [])
    template = models.DeployTemplate(**values)
    template.steps = _steps(steps)
    try:
        with db_session.writer() as session:
            session.add(template)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values) from None
    return template


def update(ident: str, values: dict[str, Any],
           expected: dict[str, Any] | None = None) -> models.DeployTemplate:
    """Change a template; with ``expected``, only if the fields it names
    still hold those values (compare-and-set, see resources.update)."""
    values = dict(values)
    steps = values.pop('steps', None)
    try:
        with db_session.writer() as session:
            template = session.scalars(sa.select(models.DeployTemplate).where(
                _ident_clause(ident))).first()
            if template is None:
                raise exception.DeployTemplateNotFound(template=ident)
            if expected:
                session.refresh(template, with_for_update=True)
                current = {'name': template.name,
                           'extra': template.extra or {},
                           'steps': [s.as_step() for s in template.steps]}
                resources.require_unchanged('deploy_templates', ident,
                                            current, expected)
            for key, value in values.items():
                setattr(template, key, value)
            if steps is not None:
                template.steps = _steps(steps)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values) from None
    return template


def get(ident: str) -> models.DeployTemplate:
    with db_session.reader() as session:
        template = session.scalars(sa.select(models.DeployTemplate).where(
            _ident_clause(ident))).first()
    if template is None:
        raise exception.DeployTemplateNotFound(template=ident)
    return template


def list_templates(limit: int | None = None, marker: str | None = None,
                   sort_key: str = 'id', sort_dir: str = 'asc'
                   ) -> list[models.DeployTemplate]:
    marker_id = get(marker).id if marker else None
    query = db_session.paginate(sa.select(models.DeployTemplate),
                              models.DeployTemplate, limit, marker_id,
                              sort_key, sort_dir)
    with db_session.reader() as session:
        return list(session.scalars(query))


def by_names(names: Iterable[str]) -> list[models.DeployTemplate]:
    names = list(names)
    if not names:
        return []
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(models.DeployTemplate)
            .where(models.DeployTemplate.name.in_(names))
            .order_by(models.DeployTemplate.name)))


def destroy(ident: str) -> None:
    with db_session.writer() as session:
        template = session.scalars(sa.select(models.DeployTemplate).where(
            _ident_clause(ident))).first()
        if template is None:
            raise exception.DeployTemplateNotFound(template=ident)
        # The steps go with it (delete-orphan cascade).
        session.delete(template)
