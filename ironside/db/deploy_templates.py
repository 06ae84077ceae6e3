"""Queries on deploy templates: named lists of deploy steps."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import session as db_session
from ironside.db import step_sets

TEMPLATES = step_sets.StepSets(
    model=models.DeployTemplate, step_model=models.DeployTemplateStep,
    order_key='priority', compared=('name', 'extra'),
    not_found=lambda ident: exception.DeployTemplateNotFound(
        template=ident),
    duplicate_name=lambda name: exception.DeployTemplateDuplicateName(
        name=name),
    duplicate_uuid=lambda uuid: exception.DeployTemplateAlreadyExists(
        uuid=uuid))

create = TEMPLATES.create
update = TEMPLATES.update
get = TEMPLATES.get
destroy = TEMPLATES.destroy


def list_templates(limit: int | None = None, marker: str | None = None,
                   sort_key: str = 'id', sort_dir: str = 'asc'
                   ) -> list[models.DeployTemplate]:
    return TEMPLATES.list((), limit, marker, sort_key, sort_dir)


def by_names(names: Iterable[str]) -> list[models.DeployTemplate]:
    names = list(names)
    if not names:
        return []
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(models.DeployTemplate)
            .where(models.DeployTemplate.name.in_(names))
            .order_by(models.DeployTemplate.name)))
