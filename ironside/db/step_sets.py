"""Named lists of steps: deploy templates and runbooks.

Both are a row identified by UUID or name with its steps in a child
table (deleted with it); they differ in their columns and in how a step
is ordered (a deploy step's ``priority``, a runbook step's ``order``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any
from typing import Generic
from typing import TypeVar

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
from sqlalchemy import orm

from ironside.common import exception
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

# The named lists of steps: what a StepSets stores.
StepSet = TypeVar('StepSet', models.DeployTemplate, models.Runbook)


@dataclasses.dataclass(frozen=True)
class StepSets(Generic[StepSet]):
    model: type[StepSet]
    step_model: type[models.Base]
    order_key: str                          # 'priority' or 'order'
    # The stored fields a compare-and-set compares, besides the steps.
    compared: tuple[str, ...]
    not_found: Callable[[str], exception.IronsideException]
    duplicate_name: Callable[[str | None], exception.IronsideException]
    duplicate_uuid: Callable[[str | None], exception.IronsideException]

    def _ident_clause(self, ident: str) -> sa.ColumnElement[bool]:
        if uuidutils.is_uuid_like(ident):
            return self.model.uuid == ident
        return self.model.name == ident

    def _duplicate(self, exc: db_exc.DBDuplicateEntry,
                   values: dict[str, Any]) -> exception.IronsideException:
        if 'name' in db_session.duplicate_columns(exc):
            return self.duplicate_name(values.get('name'))
        return self.duplicate_uuid(values.get('uuid'))

    def _steps(self, steps: Iterable[dict[str, Any]]) -> list[Any]:
        """Rows of the step model (DeployTemplateStep or RunbookStep)."""
        return [self.step_model(
            interface=s['interface'], step=s['step'],
            args=s.get('args') or {}, **{self.order_key: s[self.order_key]})
            for s in steps]

    def _current(self, row: StepSet) -> dict[str, Any]:
        current = {name: getattr(row, name) for name in self.compared}
        if 'extra' in current:
            current['extra'] = current['extra'] or {}
        current['steps'] = [s.as_step() for s in row.steps]
        return current

    def _find(self, session: orm.Session, ident: str) -> StepSet:
        row = session.scalars(sa.select(self.model).where(
            self._ident_clause(ident))).first()
        if row is None:
            raise self.not_found(ident)
        return row

    def create(self, values: dict[str, Any]) -> StepSet:
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        steps = values.pop('steps', [])
        row = self.model(**values)
        row.steps = self._steps(steps)
        try:
            with db_session.writer() as session:
                session.add(row)
                session.flush()
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from None
        return row

    def update(self, ident: str, values: dict[str, Any],
               expected: dict[str, Any] | None = None) -> StepSet:
        """Change one; with ``expected``, only if the fields it names
        still hold those values (compare-and-set, see resources.update)."""
        values = dict(values)
        steps = values.pop('steps', None)
        try:
            with db_session.writer() as session:
                row = self._find(session, ident)
                if expected:
                    session.refresh(row, with_for_update=True)
                    resources.require_unchanged(
                        self.model.__tablename__, ident, self._current(row),
                        expected)
                for key, value in values.items():
                    setattr(row, key, value)
                if steps is not None:
                    row.steps = self._steps(steps)
                session.flush()
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from None
        return row

    def get(self, ident: str) -> StepSet:
        with db_session.reader() as session:
            return self._find(session, ident)

    def list(self, clauses: Iterable[sa.ColumnElement[bool]] = (),
             limit: int | None = None, marker: str | None = None,
             sort_key: str = 'id', sort_dir: str = 'asc') -> list[StepSet]:
        marker_id = self.get(marker).id if marker else None
        query = db_session.paginate(
            sa.select(self.model).where(*clauses), self.model, limit,
            marker_id, sort_key, sort_dir)
        with db_session.reader() as session:
            return list(session.scalars(query))

    def destroy(self, ident: str) -> None:
        with db_session.writer() as session:
            # The steps go with it (delete-orphan cascade).
            session.delete(self._find(session, ident))
