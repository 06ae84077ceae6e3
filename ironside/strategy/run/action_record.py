"""What an action's groups write besides their nodes and tasks: the
action's log, whether they changed anything, and the revision's tag.

The log is the one the action was created with (the design revision it
runs, the inventory applied), to which the groups add what they did
that an operator would otherwise not see: the nodes they took back from
a failed state. The progress says whether the groups changed anything
(``changed``: a request made of a node, a task started), so that a
conductor taking the action over tags the revision as the first would
have: a failed action that changed nothing was refused, and leaves the
revision as it was.
"""

from __future__ import annotations

import logging

from ironside.db import design_models
from ironside.db import site_models
from ironside.strategy.designs import versions
from ironside.strategy.plan import design_actions

LOG = logging.getLogger(__name__)

# The progress key saying that the groups changed something.
CHANGED = 'changed'


class ActionRecord:
    def __init__(self, action: site_models.SiteAction,
                 changed_before: bool = False) -> None:
        """``changed_before``: the plan's steps before its groups changed
        the site (a redeploy_server's destroy)."""
        self.uuid = action.uuid
        self.progress = action.progress
        self.changed_before = changed_before
        self.entries: list[dict[str, str]] = list(action.log or [])
        self.progress_dirty = False
        self._log_dirty = False

    @property
    def unwritten(self) -> bool:
        return self.progress_dirty or self._log_dirty

    def changed(self) -> None:
        """The groups changed something (written with the next save)."""
        if not self.progress.get(CHANGED):
            self.progress[CHANGED] = True
            self.progress_dirty = True

    def progress_written(self) -> None:
        self.progress_dirty = False

    def log(self, message: str) -> None:
        LOG.info('Site action %s: %s', self.uuid, message)
        self.entries.append(design_actions.log_entry(message))
        self._log_dirty = True

    def take_log(self) -> list[dict[str, str]] | None:
        """The whole log, if it grew since it was last taken."""
        if not self._log_dirty:
            return None
        self._log_dirty = False
        return list(self.entries)

    def tag(self, result: str | None) -> str | None:
        """The tag the action's ending puts on its revision: none for a
        failed or aborted action that changed nothing."""
        tag = versions.action_tag(result)
        if tag == design_models.SITE_ACTION_FAILURE and \
                not self.changed_before and not self.progress.get(CHANGED):
            return None
        return tag
