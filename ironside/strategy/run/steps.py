"""The steps of a plan, as the one runner runs them: its public seam.

Every plan is a list of steps the runner (:mod:`.runner`) runs in order.
The last is always the plan's groups, phase by phase (:class:`Groups`);
a ``redeploy_server`` plan has its own steps before them (:mod:`.redeploy`:
decommission, destroy, remove from the cluster, back in service). A step
is anything with a ``name`` and a ``run(action)`` that says how it ended:

- :data:`CONTINUE`: done, the next step runs;
- :data:`FINISHED`: the action ended here (its result written);
- :data:`STOPPED`: the runner must stop without finishing the action
  (it was asked to, or another conductor took the action), and whoever
  runs the action next starts at the step that was running.

A step is given the :class:`RunningAction`: the action's row (its
progress is the step's record), the node seam, the fleet cap, the
runner's stop event and clock, the task runners and the action's peers.
"""

from __future__ import annotations

import dataclasses
import datetime
import threading
from collections.abc import Callable
from typing import Any
from typing import Protocol

from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy.core.criteria import SuccessCriteria
from ironside.strategy.core.model import Group
from ironside.strategy.nodes import seam
from ironside.strategy.run import abort
from ironside.strategy.run import groups
from ironside.strategy.run import task_flow
from ironside.strategy.run.in_flight import InFlight

CONTINUE = 'continue'
FINISHED = 'finished'
STOPPED = 'stopped'


@dataclasses.dataclass
class RunningAction:
    """One action being run here, and what its steps reach the world by."""

    row: site_models.SiteAction
    host: str
    nodes: seam.NodeBackend
    limit: InFlight
    stop: threading.Event
    clock: Callable[[], datetime.datetime]
    # Where the nodes' tasks run, or what makes it when the first does.
    tasks: task_flow.TaskExecution | \
        Callable[[], task_flow.TaskExecution] | None
    abort_watch: abort.AbortWatch
    # How a redeploy_server action reaches Kubernetes and etcd.
    peers: Callable[[site_models.SiteAction], Any] | None = None
    # A step of the plan before its groups ran to its end: the site
    # changed, and the revision is tagged however the action ends.
    changed: bool = False

    @property
    def uuid(self) -> str:
        return self.row.uuid

    @property
    def progress(self) -> dict[str, Any]:
        return self.row.progress

    def save(self, **kwargs: Any) -> None:
        """Write the progress (and ``nodes``, ``result``, ``tag``), as
        the action's owner (NotOwner otherwise)."""
        site_db.save_progress(self.row.id, self.host, self.progress,
                              **kwargs)


class Step(Protocol):
    name: str

    def run(self, action: RunningAction) -> str:
        """CONTINUE, FINISHED or STOPPED."""


# How a group's phase is judged; by default its own success criteria.
Criteria = Callable[[Group], SuccessCriteria]
# The action's result as its plan tells it, from the groups' result.
Ending = Callable[[str, groups.GroupPhases], str]


class Groups:
    """The plan's groups, phase by phase: every plan's last step."""

    name = 'groups'

    def __init__(self, criteria: Criteria | None = None,
                 ending: Ending | None = None) -> None:
        self.criteria = criteria
        self.ending = ending

    def run(self, action: RunningAction) -> str:
        phases = groups.GroupPhases(
            action.row, action.host, action.nodes, action.limit,
            action.stop, action.clock, action.tasks, action.abort_watch,
            criteria=self.criteria, ending=self.ending,
            changed=action.changed)
        return FINISHED if phases.run() else STOPPED
