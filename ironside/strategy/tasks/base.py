"""The contract between the site layer and the task runners.

A task of a task graph (``shell``, ``upload_file``, ``rsync``, ``puppet``)
runs on a node once the node is ``active``, over a transport a *task
runner* provides. Runners are stevedore plugins of the entry point group
``ironside.site.task_runners``; each says which task types it runs, so
another transport (or another task type) is one more plugin.

The site layer calls :meth:`TaskRunner.run` from worker threads, one task
of a node at a time, tasks of many nodes at once. A runner never raises
for what happens on the node (a non-zero exit, a timeout, an unreachable
node): it answers with a :class:`TaskResult` saying so, so that one node's
failure is that node's alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any
from typing import Protocol

ENTRY_POINT_GROUP = 'ironside.site.task_runners'

# TaskResult.status values.
SUCCESS = 'success'
FAILED = 'failed'          # ran, and exited non-zero
TIMEOUT = 'timeout'        # did not finish within the task's timeout
UNREACHABLE = 'unreachable'  # the node could not be reached or logged in to


@dataclasses.dataclass(frozen=True)
class TaskTarget:
    """Where a task runs: the deployed node's OS, as the design says it is
    reached. ``private_key`` is a secret: never logged, never shown."""

    node_name: str
    address: str
    port: int = 22
    user: str = 'root'
    private_key: str | None = dataclasses.field(default=None, repr=False)
    # The node's SSH host key ("ssh-ed25519 AAAA..."), when the design
    # knows it; without it the first key seen is accepted.
    host_key: str | None = None


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """One task to run on one node, its parameters already computed."""

    id: str
    type: str
    parameters: Mapping[str, Any]
    timeout: float | None = None


@dataclasses.dataclass(frozen=True)
class TaskResult:
    task: str
    node: str
    status: str
    duration: float
    exit_status: int | None = None
    # The last lines of the task's output (stdout and stderr together).
    output_tail: str = ''
    # Why it did not succeed, in words an operator can act on.
    reason: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status == SUCCESS

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class TaskRunner(Protocol):
    # The task types this runner runs.
    types: frozenset[str]

    def run(self, target: TaskTarget, task: TaskSpec) -> TaskResult:
        """Run one task on one node and say how it went."""

    def close(self) -> None:
        """Release connections; called when the service stops."""
