"""Runs one site action, whatever its kind: the one runner of every plan.

A plan is a list of steps (:mod:`.steps`), run in order through one
public seam: ``deploy_site`` and ``update_site`` have their groups only;
``redeploy_server`` has its own steps before them (:mod:`.redeploy`).
The runner stops (returns False, having written nothing more) when it
is asked to or when another conductor owns the action; it returns True
once the action has finished. A step that ran to its end before the
groups changed the site: the groups then tag the revision however the
action ends (:mod:`.action_record`).
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from typing import Any

from ironside.db import models
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy.nodes import seam
from ironside.strategy.plan.parameters import REDEPLOY_SERVER
from ironside.strategy.run import abort
from ironside.strategy.run import redeploy
from ironside.strategy.run import task_flow
from ironside.strategy.run.in_flight import InFlight
from ironside.strategy.run.steps import FINISHED
from ironside.strategy.run.steps import STOPPED
from ironside.strategy.run.steps import Groups
from ironside.strategy.run.steps import RunningAction
from ironside.strategy.run.steps import Step

LOG = logging.getLogger(__name__)


def _groups_only(_action: RunningAction) -> list[Step]:
    return [Groups()]


# The steps of each kind of action's plan; any other: its groups.
STEPS: dict[str, Callable[[RunningAction], list[Step]]] = {
    REDEPLOY_SERVER: redeploy.steps,
}


class ActionRunner:
    def __init__(self, action_uuid: str, host: str, nodes: seam.NodeBackend,
                 limit: InFlight, stop: threading.Event | None = None,
                 clock: Callable[[], datetime.datetime] = models.utcnow,
                 tasks: task_flow.TaskExecution |
                 Callable[[], task_flow.TaskExecution] | None = None,
                 peers: Callable[[site_models.SiteAction], Any] | None = None
                 ) -> None:
        """``tasks``: where the nodes' tasks run (or what makes it when
        the first one does), by default the installed task runners;
        ``peers``: how a redeploy_server action reaches Kubernetes and
        etcd, by default as the conductor's configuration and the design
        say."""
        row = site_db.get_action(action_uuid)
        self.action = RunningAction(
            row=row, host=host, nodes=nodes, limit=limit,
            stop=stop or threading.Event(), clock=clock, tasks=tasks,
            abort_watch=abort.AbortWatch(row.id), peers=peers)
        self.steps = STEPS.get(row.action, _groups_only)(self.action)

    @property
    def abort(self) -> abort.AbortWatch:
        return self.action.abort_watch

    def run(self) -> bool:
        """Run the plan's steps until the action finishes (True) or the
        runner must stop (False)."""
        try:
            for step in self.steps:
                outcome = step.run(self.action)
                if outcome == STOPPED:
                    return False
                if outcome == FINISHED:
                    return True
                self.action.changed = True
            return True
        except site_db.NotOwner:
            LOG.warning('Site action %s was taken over by another '
                        'conductor; %s stops running it', self.action.uuid,
                        self.action.host)
            return False
