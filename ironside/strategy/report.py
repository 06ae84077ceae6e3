"""The report of a site action, while it runs and when it has finished.

As JSON: every group's prepare and deploy outcome with its reason, every
node's status, and the action's result. As text: the spec's "Example
Processing" flow, exactly as the spec prints it, followed by the
details the flow leaves out (criteria needed and actual, failed
dependencies, each node's status and why it failed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.db import site_models
from ironside.strategy import document
from ironside.strategy import node_flow
from ironside.strategy import progress as site_progress
from ironside.strategy.plan import Plan

RUNNING = 'running'

_LABELS = {
    site_progress.SUCCESS: 'SUCCESS',
    site_progress.FAILED_CRITERIA: 'FAILED',
    site_progress.FAILED_TIMEOUT: 'FAILED, due to timeout',
    site_progress.FAILED_PREPARE: 'FAILED, due to prepare failure',
    site_progress.FAILED_DEPENDENCY: 'FAILED, due to dependency',
    site_progress.PENDING: 'PENDING',
}

_FINISH = {
    site_progress.ACTION_SUCCESS: 'success',
    site_progress.ACTION_PARTIAL: 'success with some nodes/groups failed',
}

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


def build(action: site_models.SiteAction,
          nodes: Sequence[site_models.SiteActionNode]) -> dict[str, Any]:
    """The report of ``action`` as a JSON-ready mapping."""
    strategy = document.build(action.document)
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
        'nodes': [{'name': n.node_name, 'uuid': n.node_uuid,
                   'status': n.status, 'in_flight': n.phase,
                   'reason': n.reason}
                  for n in sorted(nodes, key=lambda n: n.node_name)],
        'node_counts': {status: counts.get(status, 0)
                        for status in STATUSES},
    }


def _time(value) -> str | None:
    return value.isoformat() if value is not None else None


def _label(outcome: Mapping[str, Any]) -> str:
    if outcome['result'] == RUNNING:
        return 'RUNNING %d/%d' % (outcome['done'], outcome['total'])
    return _LABELS[outcome['result']]


def _finish(report: Mapping[str, Any]) -> str:
    result = report['result']
    if report['state'] != site_models.FINISHED or result is None:
        return '(%s)' % report['state']
    if result in _FINISH:
        return 'Finish (%s)' % _FINISH[result]
    return 'Finish (failed due to critical group failed)'


def flow_text(report: Mapping[str, Any]) -> str:
    """The spec's Example Processing flow for this action."""
    width = max([len('prepare ' + g['name']) for g in report['groups']],
                default=0) + 3
    lines = ['Start', '|']
    for index, group in enumerate(report['groups']):
        if index:
            lines.append('V')
        for phase in (node_flow.PREPARE, node_flow.DEPLOY):
            lines.append('| %s<%s>' % (
                ('%s %s' % (phase, group['name'])).ljust(width),
                _label(group[phase])))
    lines += ['|', _finish(report)]
    return '\n'.join(lines)


def _outcome_detail(outcome: Mapping[str, Any]) -> str:
    text = outcome['result']
    if outcome.get('criteria'):
        text += ' (%s)' % ', '.join(
            '%s needed %s, actual %s' % (c['criterion'], c['needed'],
                                         c['actual'])
            for c in outcome['criteria'])
    elif outcome.get('dependencies'):
        text += ' (%s)' % ', '.join(outcome['dependencies'])
    elif outcome.get('timeout'):
        text += ' (after %s seconds)' % outcome['timeout']
    elif outcome['result'] == RUNNING:
        text += ' (%d of %d nodes done)' % (outcome['done'],
                                            outcome['total'])
    return text


def text(report: Mapping[str, Any], nodes: bool = True) -> str:
    """The flow, then group details, node statuses and the result."""
    lines = [flow_text(report), '', 'Groups:']
    for group in report['groups']:
        lines.append('  %s%s: %d nodes; prepare %s; deploy %s' % (
            group['name'], ' (critical)' if group['critical'] else '',
            len(group['nodes']), _outcome_detail(group['prepare']),
            _outcome_detail(group['deploy'])))
    counts = report['node_counts']
    lines += ['', 'Nodes: %s' % ', '.join(
        '%d %s' % (counts[s], s) for s in STATUSES)]
    if nodes:
        width = max([len(n['name']) for n in report['nodes']], default=0)
        for node in report['nodes']:
            status = node['status']
            if node['in_flight']:
                status += ' (%s in flight)' % node['in_flight']
            line = '  %s  %s' % (node['name'].ljust(width), status)
            if node['reason']:
                line += ': %s' % node['reason']
            lines.append(line)
    lines += ['', 'Result: %s' % (report['result'] or report['state'])]
    return '\n'.join(lines)
