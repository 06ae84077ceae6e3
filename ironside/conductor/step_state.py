"""The control state of a node's step flow, as one typed record.

A deploy, clean or service flow keeps, between the steps it runs and
across conductors, the step list, the index of the current step (None
while the flow's preparation, such as booting the agent, is awaited),
whether the waiting step is polled and how often, whether it finished
(Ironic's ``skip_current_*_step``), whether an abort waits for it to end
and whether the step list is computed again once it ends. They
live in the node's ``driver_internal_info`` under Ironic's keys, so that
clients and tools that read them still can; this module is the one
place that spells those keys. Everything else reads and writes a
:class:`StepState`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# Field → the driver_internal_info key, with the flow's kind in it.
_KEYS = {
    'steps': '%s_steps',
    'index': '%s_step_index',
    'polling': '%s_polling',
    'poll_interval': '%s_poll_interval',
    'step_finished': 'skip_current_%s_step',
    'abort_after_step': '%s_abort_after',
    'refresh_steps': '%s_refresh_steps',
}
# Values that are not kept (the key is removed instead).
_EMPTY: dict[str, Any] = {'steps': None, 'index': None, 'polling': False,
                          'poll_interval': None, 'step_finished': None,
                          'abort_after_step': False, 'refresh_steps': False}


def _same(old: Any, new: Any) -> bool:
    return old is new or (type(old) is type(new) and old == new)


@dataclasses.dataclass
class StepState:
    kind: str                           # deploy, clean or service
    steps: list[dict[str, Any]] | None = None  # the flow's steps, in order
    index: int | None = None            # the current step's position
    polling: bool = False               # the waiting step is polled
    poll_interval: float | None = None  # seconds between polls
    # Whether the waiting step is over when the flow resumes (None: not
    # said, which counts as over, as Ironic's default).
    step_finished: bool | None = None
    abort_after_step: bool = False      # abort once the step ends
    # Compute the step list again once the waiting step ends (the agent
    # it booted brings steps of its own).
    refresh_steps: bool = False

    @classmethod
    def of(cls, node: Any, kind: str) -> StepState:
        """The state a node records for its ``kind`` flow."""
        info = node.driver_internal_info or {}
        values = {}
        for field, key in _KEYS.items():
            value = info.get(key % kind, _EMPTY[field])
            values[field] = value if value is not None else _EMPTY[field]
        return cls(kind=kind, **values)

    def save_to(self, node: Any) -> None:
        """Write the state into the node (saved with the node)."""
        info = node.driver_internal_info
        if info is None:
            info = node.driver_internal_info = {}
        for field, key in _KEYS.items():
            value = getattr(self, field)
            name = key % self.kind
            if value == _EMPTY[field]:
                info.pop(name, None)
            elif not _same(info.get(name), value):
                # Only a change is written: each write of a tracked
                # document flags the node, which costs more than this.
                info[name] = value

    def waiting_cleared(self) -> StepState:
        """The state without what a waiting step asked for."""
        return dataclasses.replace(self, polling=False, poll_interval=None,
                                   step_finished=None, refresh_steps=False)

    def cleared(self) -> StepState:
        """No flow running: nothing kept."""
        return StepState(self.kind)
