"""Queries on runbooks: named, ordered steps for manual cleaning.

A runbook is owned by a project (``owner``) or by no one; ``public``
ones are visible to every project. Its steps keep their ``order``.
"""

from __future__ import annotations

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import step_sets

RUNBOOK = models.Runbook

RUNBOOKS = step_sets.StepSets(
    model=RUNBOOK, step_model=models.RunbookStep, order_key='order',
    compared=('name', 'extra', 'public', 'owner', 'disable_ramdisk',
              'description'),
    not_found=lambda ident: exception.RunbookNotFound(runbook=ident),
    duplicate_name=lambda name: exception.RunbookDuplicateName(name=name),
    duplicate_uuid=lambda uuid: exception.RunbookAlreadyExists(uuid=uuid))

create = RUNBOOKS.create
update = RUNBOOKS.update
get = RUNBOOKS.get
destroy = RUNBOOKS.destroy


def list_runbooks(project: str | None = None, limit: int | None = None,
                  marker: str | None = None, sort_key: str = 'id',
                  sort_dir: str = 'asc') -> list[models.Runbook]:
    """A page of runbooks; with ``project``, its own and the public ones."""
    clauses = [sa.or_(RUNBOOK.owner == project,
                      RUNBOOK.public.is_(True))] if project else []
    return RUNBOOKS.list(clauses, limit, marker, sort_key, sort_dir)
