"""Aborting a site action while it runs.

The abort is asked for through the API, which marks the action
``aborting`` in the database (:func:`ironside.db.site.abort_action`);
the runner that owns it, on whichever conductor, reads that there
(:class:`AbortWatch`). From then on it starts no group, no node and no
task, lets the nodes and tasks in flight finish or fail (their phase
timeouts still apply), and once none is left ends the action as
``aborted`` (:func:`close_groups`). A conductor that takes an aborting
action over does the same with the nodes it finds in flight.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ironside.common.conf import CONF
from ironside.db import site as site_db
from ironside.db import site_models
from ironside.strategy import progress as site_progress

# The result of an aborted action, and of the phases it cut short.
ABORTED = site_models.ABORTED

# Why a task that never ran did not.
NOT_RUN = 'not run: the action was aborted'


class AbortWatch:
    """Whether the action is being aborted: read from the database at
    most every ``[site]action_check_interval`` seconds, and remembered
    once seen."""

    def __init__(self, action_id: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.action_id = action_id
        self.clock = clock
        self.seen = False
        self._next = 0.0

    def requested(self) -> bool:
        if self.seen:
            return True
        now = self.clock()
        if now >= self._next:
            self._next = now + CONF.site.action_check_interval
            self.seen = site_db.abort_requested(self.action_id)
        return self.seen


def final_state(result: str | None) -> str:
    """The state an action ends in with ``result``."""
    return site_models.ABORTED if result == ABORTED \
        else site_models.FINISHED


def close_groups(progress: dict[str, Any]) -> str:
    """Mark the phase each running group is in as aborted (groups not
    started stay pending); the action's result."""
    for group in progress['groups'].values():
        phase = group['state']
        if phase not in (site_progress.PENDING, site_progress.DONE):
            group[phase] = {'result': ABORTED}
            group['state'] = site_progress.DONE
    return ABORTED
