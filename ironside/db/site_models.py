"""Tables of the site layer: strategies, site actions and their nodes.

They live on the same ``Base`` as the other models so that one metadata
describes the whole schema (migration ``0002_site`` creates them;
``0003_site_designs`` adds the design revision, parameters and log of
an action, and the tables of :mod:`ironside.db.design_models`;
``0004_site_action_tasks`` the task runs of an action).
"""

from __future__ import annotations

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from ironside.db import design_models  # noqa: F401 (the tables it references)
from ironside.db.models import Base
from ironside.db.models import JsonDict
from ironside.db.models import JsonList
from ironside.db.models import JsonObject
from ironside.db.models import TimestampMixin
from ironside.db.models import utcnow

# Site action states.
QUEUED = 'queued'
RUNNING = 'running'
FINISHED = 'finished'
# Asked to abort: no new node starts; those in flight finish or fail.
ABORTING = 'aborting'
# Ended by an abort (its result is ``aborted`` too).
ABORTED = 'aborted'
# States of an action a conductor still runs, and of one that ended.
UNFINISHED = (QUEUED, RUNNING, ABORTING)
ENDED = (FINISHED, ABORTED)

# A node's status within one site action (the spec's four).
NOT_STARTED = 'not started'
PREPARED = 'prepared'
SUCCESS = 'success'
FAILURE = 'failure'

# A task run's status: the task runners' success, failed, timeout and
# unreachable (ironside.strategy.tasks.base), and these.
PENDING = 'pending'
IN_FLIGHT = 'running'
# It was running when its conductor stopped, and is not run again.
INTERRUPTED = 'interrupted'
# Its node failed, its group was not run, or a task it needs failed.
NOT_RUN = 'not run'
# Nothing to do: a deploy step of a node that was already deployed.
SKIPPED = 'skipped'


class SiteStrategy(TimestampMixin, Base):
    """A stored DeploymentStrategy document, by name."""

    __tablename__ = 'site_strategies'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    # The document's schema, e.g. shipyard/DeploymentStrategy/v1.
    schema: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    # The whole document (schema, metadata, data) as validated.
    document: orm.Mapped[JsonObject] = orm.mapped_column(JsonDict,
                                                         nullable=True)
    # The text it was given as, when it came as text (YAML keeps comments).
    source: orm.Mapped[str | None] = orm.mapped_column(sa.Text,
                                                       nullable=True)


class SiteAction(TimestampMixin, Base):
    """A deploy_site or update_site run, with everything needed to resume.

    ``document`` is a snapshot of the strategy taken when the action was
    created, and ``progress`` holds each group's nodes and phase results,
    so the action means the same thing whoever runs it and whenever.
    """

    __tablename__ = 'site_actions'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    action: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    strategy_name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    document: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JsonDict, nullable=True)
    state: orm.Mapped[str] = orm.mapped_column(sa.String(16), index=True)
    result: orm.Mapped[str | None] = orm.mapped_column(sa.String(255),
                                                       nullable=True)
    # The conductor running it, and when that conductor last said so.
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255),
                                                      nullable=True,
                                                      index=True)
    heartbeat_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, nullable=True)
    progress: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JsonDict, nullable=True)
    started_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, nullable=True)
    finished_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, nullable=True)
    # The design revision it runs (NULL: a stored strategy), its
    # parameters, and what it says about itself ([{"at", "message"}]).
    revision_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('site_design_revisions.id'), nullable=True,
        index=True)
    parameters: orm.Mapped[dict[str, Any]] = orm.mapped_column(JsonDict,
                                                     nullable=True)
    log: orm.Mapped[list[Any]] = orm.mapped_column(JsonList, nullable=True)


class SiteActionNode(Base):
    """One node of a site action: its status and what is in flight."""

    __tablename__ = 'site_action_nodes'
    __table_args__ = (
        sa.UniqueConstraint('action_id', 'node_uuid',
                            name='uniq_site_action_nodes0action_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    action_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('site_actions.id', ondelete='CASCADE'), index=True)
    node_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    node_name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    # 'prepare' or 'deploy' while the node is in flight, else NULL.
    phase: orm.Mapped[str | None] = orm.mapped_column(sa.String(16),
                                                      nullable=True)
    # The last request made for the node in this phase (manage, provide,
    # deploy): tells a failed transition from one not yet asked for.
    request: orm.Mapped[str | None] = orm.mapped_column(sa.String(16),
                                                        nullable=True)
    reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text,
                                                       nullable=True)
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, default=utcnow, onupdate=utcnow, nullable=True)


class SiteNodeClaim(Base):
    """A node taken by a site action that has not finished.

    The primary key makes a second action on the same node fail at the
    INSERT, atomically, on every backend.
    """

    __tablename__ = 'site_node_claims'

    node_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36),
                                                   primary_key=True)
    action_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('site_actions.id', ondelete='CASCADE'), index=True)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False)


class SiteActionTask(Base):
    """One run of one task on one node of a site action.

    Written ``running`` before the task starts, and with its result when
    it ends, so that a conductor taking the action over knows which
    tasks are done and which one was in flight.
    """

    __tablename__ = 'site_action_tasks'
    __table_args__ = (
        sa.UniqueConstraint('action_id', 'node_uuid', 'task',
                            name='uniq_site_action_tasks0action_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    action_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('site_actions.id', ondelete='CASCADE'), index=True)
    node_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    task: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    # Its place among the node's tasks (0-based), and its stage.
    position: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    stage: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    exit_status: orm.Mapped[int | None] = orm.mapped_column(sa.Integer,
                                                            nullable=True)
    duration: orm.Mapped[float | None] = orm.mapped_column(sa.Float,
                                                           nullable=True)
    output_tail: orm.Mapped[str | None] = orm.mapped_column(sa.Text,
                                                            nullable=True)
    reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text,
                                                       nullable=True)
    # Times the site layer started and ended it (UTC).
    started_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, nullable=True)
    finished_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, nullable=True)
