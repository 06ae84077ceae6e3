"""A site action's progress document: what it holds and what it means.

Stored in ``site_actions.progress``::

    {"order": ["ntp-node", ...],          # groups in the order resolved
     "groups": {"ntp-node": {
         "nodes": [uuid, ...],            # the group's full node set
         "state": "pending" | "prepare" | "deploy" | "done",
         "phase_nodes": [uuid, ...],      # nodes the running phase acts on
         "phase_started_at": "2024-...",  # UTC, for the phase timeout
         "prepare": {"result": "success" | "failed: ...", ...} | null,
         "deploy": {...} | null,
         "tasks": {...} | null}}}          # only for groups with tasks

``state`` is also "tasks" while the group's nodes run their tasks;
``"changed": true`` is added once the groups have asked anything of a
node or started a task (:mod:`.run.action_record`).

The group and action results are the strings below (and ``aborted``,
for an action aborted and the phases it cut short: :mod:`.run.abort`); the
report shows them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.db import site_models

PENDING = 'pending'
DONE = 'done'

SUCCESS = 'success'
FAILED_CRITERIA = 'failed: criteria'
FAILED_PREPARE = 'failed: prepare'
FAILED_DEPLOY = 'failed: deploy'
FAILED_DEPENDENCY = 'failed: dependency'
FAILED_TIMEOUT = 'failed: timeout'

ACTION_SUCCESS = 'success'
ACTION_PARTIAL = 'success with some nodes or groups failed'


def initial(group_nodes: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    return {'order': [],
            'groups': {name: {'nodes': list(nodes), 'state': PENDING,
                              'phase_nodes': [], 'phase_started_at': None,
                              'prepare': None, 'deploy': None,
                              'tasks': None}
                       for name, nodes in group_nodes.items()}}


def group_failed(group: Mapping[str, Any]) -> bool:
    """Resolved and failed in any phase."""
    return any(group.get(phase) and group[phase]['result'] != SUCCESS
               for phase in ('prepare', 'deploy', 'tasks'))


def action_failed(critical_group: str) -> str:
    return 'failed: critical group %s failed' % critical_group


def action_result(progress: Mapping[str, Any],
                  critical: Iterable[str],
                  node_statuses: Iterable[str]) -> str:
    """The action's result once every group is resolved."""
    critical = set(critical)
    groups = progress['groups']
    failed = [name for name in progress['order']
              if group_failed(groups[name])]
    failed_critical = [name for name in failed if name in critical]
    if failed_critical:
        # The first to fail: the others failed after it, often because of
        # it (the report lists them all).
        return action_failed(failed_critical[0])
    if failed or site_models.FAILURE in set(node_statuses):
        return ACTION_PARTIAL
    return ACTION_SUCCESS
