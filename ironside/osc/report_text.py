"""A site action's report as text: the spec's "Example Processing" flow,
exactly as the spec prints it, followed by the details the flow leaves
out (criteria needed and actual, failed dependencies, each node's status
and why it failed).

It reads only the report's JSON, so the client imports no server module;
the result and status words below are the report's vocabulary
(``ironside.strategy.progress``, ``ironside.db.site_models``), and a unit
test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RUNNING = 'running'
FINISHED = 'finished'
PREPARE = 'prepare'
DEPLOY = 'deploy'

STATUSES = ('not started', 'prepared', 'success', 'failure')

_LABELS = {
    'success': 'SUCCESS',
    'failed: criteria': 'FAILED',
    'failed: timeout': 'FAILED, due to timeout',
    'failed: prepare': 'FAILED, due to prepare failure',
    'failed: dependency': 'FAILED, due to dependency',
    'pending': 'PENDING',
}

_FINISH = {
    'success': 'success',
    'success with some nodes or groups failed':
        'success with some nodes/groups failed',
}


def _label(outcome: Mapping[str, Any]) -> str:
    if outcome['result'] == RUNNING:
        return 'RUNNING %d/%d' % (outcome['done'], outcome['total'])
    return _LABELS[outcome['result']]


def _finish(report: Mapping[str, Any]) -> str:
    result = report['result']
    if report['state'] != FINISHED or result is None:
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
        for phase in (PREPARE, DEPLOY):
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
