"""The task runners a process has: which runs each task type.

Runners are the stevedore plugins of ``ironside.site.task_runners``
(:mod:`.base`). A task type is run by the one runner that declares it;
two installed runners declaring the same type is a configuration error
found when they are loaded, not when a task runs.
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
from collections.abc import Iterable
from typing import Any

from stevedore import extension

from ironside.common import exception
from ironside.strategy.tasks.base import ENTRY_POINT_GROUP
from ironside.strategy.tasks.base import TaskRunner

LOG = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def runner_types() -> frozenset[str]:
    """The task types the installed runners run (without loading any
    runner's connections: ``types`` is read from its class)."""
    manager = extension.ExtensionManager(
        ENTRY_POINT_GROUP, invoke_on_load=False,
        on_load_failure_callback=_load_failed)
    types: set[str] = set()
    for ext in manager:
        types.update(getattr(ext.plugin, 'types', ()))
    return frozenset(types)


def _load_failed(_manager: extension.ExtensionManager[Any],
                 entry_point: importlib.metadata.EntryPoint,
                 exc: BaseException) -> None:
    LOG.error('Task runner %s could not be loaded: %s', entry_point, exc)


class TaskRunners:
    """Task type → the runner that runs it."""

    def __init__(self, runners: Iterable[TaskRunner]) -> None:
        self.runners = list(runners)
        self._by_type: dict[str, TaskRunner] = {}
        for runner in self.runners:
            for task_type in runner.types:
                other = self._by_type.get(task_type)
                if other is not None:
                    raise exception.ConfigInvalid(
                        error_msg='task runners %s and %s both run %s tasks'
                                  % (type(other).__name__,
                                     type(runner).__name__, task_type))
                self._by_type[task_type] = runner

    @classmethod
    def installed(cls) -> TaskRunners:
        """Every runner of the entry point group, made."""
        manager: extension.ExtensionManager[TaskRunner] = \
            extension.ExtensionManager(
                ENTRY_POINT_GROUP, invoke_on_load=True,
                on_load_failure_callback=_load_failed)
        # invoke_on_load: every extension loaded has its runner made.
        return cls(ext.obj for ext in sorted(manager, key=lambda e: e.name)
                   if ext.obj is not None)

    def for_type(self, task_type: str) -> TaskRunner | None:
        return self._by_type.get(task_type)

    @property
    def types(self) -> frozenset[str]:
        return frozenset(self._by_type)

    def close(self) -> None:
        for runner in self.runners:
            try:
                runner.close()
            except Exception:
                LOG.warning('Closing task runner %s failed',
                            type(runner).__name__, exc_info=True)
