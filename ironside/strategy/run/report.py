"""The report of a site action, while it runs and when it has finished.

A JSON document: every group's prepare and deploy outcome (and, for a
group whose nodes run tasks, its tasks outcome) with its reason, every
node's status and its task runs (task, status, exit status, duration,
output tail, reason; the one running now), the plan's warnings, and the
action's result. Clients render it (``ironside.osc.report_text`` prints
it as the spec's flow).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.db import site_models
from ironside.strategy import progress as site_progress
from ironside.strategy.core import model
from ironside.strategy.plan.action_plan import ActionPlan
from ironside.strategy.run import node_flow

RUNNING = 'running'

STATUSES = (site_models.NOT_STARTED, site_models.PREPARED,
            site_models.SUCCESS, site_models.FAILURE)

# Statuses of a task run, as the report shows them.
TASK_STATUSES = (site_models.PENDING, site_models.IN_FLIGHT,
                 site_models.SUCCESS, 'failed', 'timeout', 'unreachable',
                 site_models.INTERRUPTED, site_models.NOT_RUN,
                 site_models.SKIPPED)


def _phase(group: Mapping[str, Any], phase: str,
           finished: Mapping[str, bool]) -> dict[str, Any]:
    if group.get(phase):
        return dict(group[phase])
    if group['state'] != phase:
        return {'result': site_progress.PENDING}
    nodes = group['phase_nodes']
    return {'result': RUNNING, 'total': len(nodes),
            'done': sum(1 for u in nodes if finished[u])}


def _task(run: site_models.SiteActionTask) -> dict[str, Any]:
    return {'task': run.task, 'stage': run.stage, 'status': run.status,
            'exit_status': run.exit_status,
            'duration': round(run.duration, 3) if run.duration is not None
            else None,
            'output_tail': run.output_tail, 'reason': run.reason}


def build(action: site_models.SiteAction,
          nodes: Sequence[site_models.SiteActionNode],
          tasks: Sequence[site_models.SiteActionTask] = (),
          live: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The report of ``action`` as a JSON-ready mapping.

    ``live`` (node UUID → :class:`~..nodes.seam.NodeState`) adds the provision
    state and the step now running to the nodes in flight.
    """
    progress = action.progress
    names = {n.node_uuid: n.node_name for n in nodes}
    statuses = {n.node_uuid: n.status for n in nodes}
    runs: dict[str, list[site_models.SiteActionTask]] = {}
    for run in sorted(tasks, key=lambda r: (r.node_uuid, r.position)):
        runs.setdefault(run.node_uuid, []).append(run)
    group_nodes = {name: g['nodes'] for name, g in
                   progress['groups'].items()}
    plan = ActionPlan.restore(action.document, group_nodes, names,
                              {u: [r.task for r in rs]
                               for u, rs in runs.items()})
    groups = []
    for name in progress['order'] + plan.remaining_order(progress['order']):
        group = progress['groups'][name]
        planned = plan.group(name)
        stage_runs = {u: [r for r in runs.get(u, ())
                          if r.stage == planned.stage]
                      for u in group['nodes']}
        finished = {u: _phase_done(statuses[u], stage_runs[u], group)
                    for u in group['nodes']}
        entry = {
            'name': name,
            'critical': planned.critical,
            'depends_on': list(planned.depends_on),
            'strategy': planned.strategy.as_dict(),
            'nodes': sorted(names[u] for u in group['nodes']),
            'prepare': _phase(group, node_flow.PREPARE, finished),
            'deploy': _phase(group, node_flow.DEPLOY, finished),
        }
        if any(stage_runs.values()):
            entry['tasks'] = _phase(group, node_flow.TASKS, finished)
        if planned.kind != model.STRATEGY_GROUP:
            entry['kind'] = planned.kind
        groups.append(entry)
    counts = Counter(statuses.values())
    return {
        'uuid': action.uuid,
        'action': action.action,
        'strategy': action.strategy_name,
        'state': action.state,
        'result': action.result,
        'owner': action.owner,
        'created_at': _time(action.created_at),
        'started_at': _time(action.started_at),
        'finished_at': _time(action.finished_at),
        'groups': groups,
        'nodes': [_node(n, runs.get(n.node_uuid, ()), live or {})
                  for n in sorted(nodes, key=lambda n: n.node_name)],
        'node_counts': {status: counts.get(status, 0)
                        for status in STATUSES},
        'options': _options(action.document),
        'warnings': plan.warnings,
    }


def _phase_done(status: str,
                stage_runs: Sequence[site_models.SiteActionTask],
                group: Mapping[str, Any]) -> bool:
    phase = group['state']
    if phase == node_flow.TASKS:
        return status == site_models.FAILURE or all(
            r.status not in (site_models.PENDING, site_models.IN_FLIGHT)
            for r in stage_runs)
    return status in node_flow.FINISHED.get(phase, ())


def _node(node: site_models.SiteActionNode,
          runs: Sequence[site_models.SiteActionTask],
          live: Mapping[str, Any]) -> dict[str, Any]:
    running = [r.task for r in runs if r.status == site_models.IN_FLIGHT]
    entry = {'name': node.node_name, 'uuid': node.node_uuid,
             'status': node.status, 'in_flight': node.phase,
             'reason': node.reason,
             'running': running[0] if running else None,
             'tasks': [_task(r) for r in runs]}
    state = live.get(node.node_uuid) if node.phase else None
    if state is not None:
        entry.update(provision_state=state.provision_state, step=state.step)
    return entry


def _options(document: Mapping[str, Any]) -> dict[str, Any] | None:
    """The partial-run options (never the access: it holds the key)."""
    options = document.get('options') if 'format' in document else None
    if not options:
        return None
    return {k: v for k, v in options.items() if v}


def _time(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
