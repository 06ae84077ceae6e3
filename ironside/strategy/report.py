"""The report of a site action, while it runs and when it has finished.

A JSON document: every group's prepare and deploy outcome with its
reason, every node's status, and the action's result. Clients render it
(``ironside.osc.report_text`` prints it as the spec's flow).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.db import site_models
from ironside.strategy import node_flow
from ironside.strategy import progress as site_progress
from ironside.strategy.plan import Plan
from ironside.strategy.reader import shipyard

RUNNING = 'running'

STATUSES = (site_models.NOT_STARTED, site_models.PREPARED,
            site_models.SUCCESS, site_models.FAILURE)


def _phase(group: Mapping[str, Any], phase: str,
           statuses: Mapping[str, str]) -> dict[str, Any]:
    if group.get(phase):
        return dict(group[phase])
    if group['state'] != phase:
        return {'result': site_progress.PENDING}
    finished = node_flow.FINISHED[phase]
    nodes = group['phase_nodes']
    return {'result': RUNNING, 'total': len(nodes),
            'done': sum(1 for u in nodes if statuses[u] in finished)}


def _node(node: site_models.SiteActionNode,
          live: Mapping[str, Any]) -> dict[str, Any]:
    entry = {'name': node.node_name, 'uuid': node.node_uuid,
             'status': node.status, 'in_flight': node.phase,
             'reason': node.reason}
    state = live.get(node.node_uuid) if node.phase else None
    if state is not None:
        entry.update(provision_state=state.provision_state, step=state.step)
    return entry


def build(action: site_models.SiteAction,
          nodes: Sequence[site_models.SiteActionNode],
          live: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The report of ``action`` as a JSON-ready mapping.

    ``live`` (node UUID → :class:`~.seam.NodeState`) adds the provision
    state and the step now running to the nodes in flight.
    """
    strategy = shipyard.build(action.document)
    progress = action.progress
    names = {n.node_uuid: n.node_name for n in nodes}
    statuses = {n.node_uuid: n.status for n in nodes}
    plan = Plan(strategy.groups, {name: g['nodes'] for name, g in
                                  progress['groups'].items()})
    groups = []
    for name in progress['order'] + plan.remaining_order(progress['order']):
        group = progress['groups'][name]
        groups.append({
            'name': name,
            'critical': strategy.group(name).critical,
            'depends_on': list(strategy.group(name).depends_on),
            'strategy': strategy.group(name).strategy.as_dict(),
            'nodes': sorted(names[u] for u in group['nodes']),
            'prepare': _phase(group, node_flow.PREPARE, statuses),
            'deploy': _phase(group, node_flow.DEPLOY, statuses),
        })
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
        'nodes': [_node(n, live or {})
                  for n in sorted(nodes, key=lambda n: n.node_name)],
        'node_counts': {status: counts.get(status, 0)
                        for status in STATUSES},
    }


def _time(value) -> str | None:
    return value.isoformat() if value is not None else None
