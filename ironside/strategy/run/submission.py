"""Asks the node backend for a node's next request (prepare, deploy or
teardown) for :mod:`.groups`, and says what came of it: made, to be
asked again later (the node is busy), or refused for good.

A request refused because someone else holds the node's lock is asked
again until ``[site]node_locked_timeout`` (:class:`LockWait`);
then the node fails.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections.abc import Callable
from typing import Any

from ironside.common.conf import CONF
from ironside.db import site_models
from ironside.strategy.core import model
from ironside.strategy.core.model import Group
from ironside.strategy.nodes import seam
from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.run import task_flow

LOG = logging.getLogger(__name__)

# A deploy's steps and templates.
DeployRequest = tuple[list[dict[str, Any]], list[str]]


class LockWait:
    """How long each node's requests have been refused because someone
    else holds its lock, in this runner (one that takes the action over
    waits afresh). A lock held longer than ``[site]node_locked_timeout``
    is not someone's passing step: the node fails, and the group's
    success criteria judge it, rather than the phase timing out."""

    def __init__(self) -> None:
        self._since: dict[str, datetime.datetime] = {}

    def given_up(self, uuid: str, now: datetime.datetime, verb: str,
                 error: Exception) -> str | None:
        """Why the node fails now, or None to ask again later."""
        since = self._since.setdefault(uuid, now)
        waited = (now - since).total_seconds()
        if waited < CONF.site.node_locked_timeout:
            return None
        return '%s not made: the node is still locked after %d seconds: %s' \
            % (verb, waited, error)

    def forget(self, uuid: str) -> None:
        self._since.pop(uuid, None)


@dataclasses.dataclass(frozen=True)
class Sent:
    """What came of a request: ``made``, or ``failure`` (why the node
    fails now), or neither (ask again later)."""

    made: bool = False
    failure: str | None = None


class Requests:
    """Makes the nodes' requests, counting how long each node's lock
    has been waited for."""

    def __init__(self, backend: seam.NodeBackend,
                 clock: Callable[[], datetime.datetime]) -> None:
        self.backend = backend
        self.clock = clock
        self.locks = LockWait()

    def send(self, uuid: str, name: str, verb: str,
             deploy: Callable[[], DeployRequest]) -> Sent:
        """Ask for ``verb`` on the node; ``deploy`` gives a deploy's
        steps and templates."""
        try:
            if verb == seam.DEPLOY:
                steps, templates = deploy()
                self.backend.start_deploy(uuid, steps, templates)
            elif verb == seam.TEARDOWN:
                self.backend.start_teardown(uuid)
            else:
                self.backend.start_prepare(uuid, verb)
        except seam.Busy as exc:
            # Someone else's lock is waited out only so long.
            reason = self.locks.given_up(uuid, self.clock(), verb, exc) \
                if isinstance(exc, seam.Locked) else None
            if reason is None:
                LOG.debug('Node %s is busy, %s retried later: %s',
                          name, verb, exc)
                return Sent()
            return Sent(failure=reason)
        except seam.Rejected as exc:
            return Sent(failure='%s refused: %s' % (verb, exc))
        self.locks.forget(uuid)
        return Sent(made=True)

    def forget(self, uuid: str) -> None:
        """The node's request is over: a later lock is waited afresh."""
        self.locks.forget(uuid)


def deploy_request(plan: ActionPlan, flow: task_flow.TaskFlow,
                   holding: dict[tuple[str, str], list[str]], group: Group,
                   uuid: str) -> DeployRequest:
    """The group's deploy steps and templates (for a stage's group,
    those of the node's first group that has any), then the node's
    ``step`` tasks in graph order."""
    groups = [plan.group(name) for name in holding.get(
        (uuid, model.DEPLOYMENT), ())]
    source = next((g for g in [group] + groups
                   if g.deploy_steps or g.deploy_templates), group)
    steps = list(source.deploy_steps)
    for record in flow.rows(uuid):
        task = flow.task(record)
        if task.type == model.STEP and \
                record.status == site_models.PENDING:
            steps.append(dict(task.parameters))
    return steps, list(source.deploy_templates)
