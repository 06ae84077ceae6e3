"""A site action's report as text: the spec's "Example Processing" flow,
exactly as the spec prints it (with a ``tasks`` line for a group whose
nodes run tasks), followed by the details the flow leaves out (criteria
needed and actual, failed dependencies, each node's status and why it
failed, each task run that did not succeed, with its output's tail).

It reads only the report's JSON, so the client imports no server module;
the result and status words below are the report's vocabulary
(``ironside.strategy.progress``, ``ironside.db.site_models``), and a unit
test keeps the two in step.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

RUNNING = 'running'
FINISHED = 'finished'
# An action ended by an abort: its state, its result, and the result of
# the phases it cut short.
ABORTED = 'aborted'
# States in which an action has ended.
ENDED = (FINISHED, ABORTED)
PREPARE = 'prepare'
DEPLOY = 'deploy'
TASKS = 'tasks'
PHASES = (PREPARE, DEPLOY, TASKS)

STATUSES = ('not started', 'prepared', 'success', 'failure')

_LABELS = {
    'success': 'SUCCESS',
    'failed: criteria': 'FAILED',
    'failed: timeout': 'FAILED, due to timeout',
    'failed: prepare': 'FAILED, due to prepare failure',
    'failed: dependency': 'FAILED, due to dependency',
    'pending': 'PENDING',
    ABORTED: 'ABORTED',
}
# Results only a group's tasks phase has.
_TASK_LABELS = {
    'failed: deploy': 'FAILED, due to deploy failure',
}

# Task run statuses that are neither waiting nor a success.
TASK_OK = ('success', 'skipped')
TASK_WAITING = ('pending', 'running')

_FINISH = {
    'success': 'success',
    'success with some nodes or groups failed':
        'success with some nodes/groups failed',
}


def _label(outcome: Mapping[str, Any]) -> str:
    if outcome['result'] == RUNNING:
        return 'RUNNING %d/%d' % (outcome['done'], outcome['total'])
    return _LABELS.get(outcome['result']) or _TASK_LABELS[outcome['result']]


def _finish(report: Mapping[str, Any]) -> str:
    result = report['result']
    if report['state'] == ABORTED:
        return 'Aborted'
    if report['state'] != FINISHED or result is None:
        return '(%s)' % report['state']
    if result in _FINISH:
        return 'Finish (%s)' % _FINISH[result]
    if report.get('redeploy'):
        return 'Finish (%s)' % result
    return 'Finish (failed due to critical group failed)'


def flow_text(report: Mapping[str, Any]) -> str:
    """The spec's Example Processing flow for this action."""
    width = max([len('prepare ' + g['name']) for g in report['groups']],
                default=0) + 3
    lines = ['Start', '|']
    for index, group in enumerate(report['groups']):
        if index:
            lines.append('V')
        for phase in PHASES:
            if phase in group:
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
    lines = [flow_text(report), '']
    if report.get('options'):
        lines += ['Partial run: %s' % options_text(report), '']
    if report.get('warnings'):
        lines += ['Warnings:'] + ['  ' + w for w in report['warnings']] + \
            ['']
    if report.get('expressions'):
        lines += ['Computed fields:'] + [
            '  ' + line for line in expression_lines(report)] + ['']
    lines.append('Groups:')
    lines += ['  ' + line for line in group_lines(report)]
    lines += ['', 'Nodes: %s' % counts_text(report)]
    if nodes:
        lines += ['  ' + line for line in node_lines(report)]
    if report.get('redeploy'):
        lines += [''] + redeploy_lines(report['redeploy'])
    lines += ['', 'Result: %s' % (report['result'] or report['state'])]
    return '\n'.join(lines)


# Node names shown per computed value, at most.
_SHOWN_NODES = 5


def _value_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def expression_lines(report: Mapping[str, Any]) -> list[str]:
    """Each yaql_exp field's value (per node: how many nodes had each
    value, and a few of them), so a reader sees why a task ran."""
    lines = []
    for entry in report['expressions']:
        where = '%s %s' % (entry['owner'], entry['field'])
        if 'nodes' not in entry:
            lines.append('%s = %s' % (where, _value_text(entry['value'])))
            continue
        for found in entry['nodes']:
            names = found['nodes']
            shown = ', '.join(names[:_SHOWN_NODES])
            if len(names) > _SHOWN_NODES:
                shown += ', ...'
            lines.append('%s = %s on %d node%s (%s)' % (
                where, _value_text(found['value']), len(names),
                '' if len(names) == 1 else 's', shown))
    return lines


def options_text(report: Mapping[str, Any]) -> str:
    """A partial run's options, on one line."""
    return '; '.join(
        '%s %s' % (name, ', '.join(value) if isinstance(value, list)
                   else value)
        for name, value in sorted((report.get('options') or {}).items()))


def group_lines(report: Mapping[str, Any]) -> list[str]:
    """Each group: its node count and each phase's outcome, with why."""
    return ['%s%s: %d nodes; %s' % (
        group['name'], ' (critical)' if group['critical'] else '',
        len(group['nodes']), '; '.join(
            '%s %s' % (phase, _outcome_detail(group[phase]))
            for phase in PHASES if phase in group))
        for group in report['groups']]


def counts_text(report: Mapping[str, Any]) -> str:
    counts = report['node_counts']
    return ', '.join('%d %s' % (counts[s], s) for s in STATUSES)


def node_lines(report: Mapping[str, Any]) -> list[str]:
    """Each node's status, what it is doing and why it failed, then its
    task runs that did not succeed."""
    width = max([len(n['name']) for n in report['nodes']], default=0)
    lines = []
    for node in report['nodes']:
        status = node['status']
        if node.get('running'):
            status += ' (task %s running)' % node['running']
        elif node['in_flight']:
            status += ' (%s in flight)' % node['in_flight']
        line = '%s  %s' % (node['name'].ljust(width), status)
        if node['reason']:
            line += ': %s' % node['reason']
        lines.append(line)
        lines.extend(_task_lines(node, ' ' * (width + 2)))
    return lines


def _status_text(status: Mapping[str, Any]) -> str:
    return '%s %s: %s' % (status['reason'], status['code'],
                          status['message'])


def redeploy_lines(redeploy: Mapping[str, Any]) -> list[str]:
    """A redeploy_server's steps with their status responses, and the
    action's, with its details."""
    lines = ['Redeploy of %s (%s):' % (
        redeploy['node'], 'only the OS disk wiped'
        if redeploy['preserve_local_storage'] else 'every disk wiped')]
    width = max(len(s['step']) for s in redeploy['steps'])
    for step in redeploy['steps']:
        line = '  %s  %s' % (step['step'].ljust(width), step['state'])
        if step.get('status'):
            line += ' (%s)' % _status_text(step['status'])
        lines.append(line)
    status = redeploy.get('status')
    if status:
        lines.append('Status: %s' % _status_text(status))
        for message in status['details']['messageList']:
            lines.append('  %s%s: %s' % ('ERROR ' if message['error']
                                         else '', message['name'],
                                         message['message']))
    return lines


def _task_lines(node: Mapping[str, Any], indent: str) -> list[str]:
    """A node's task runs: a count of those done, then each one that did
    not succeed, with why and the tail of its output."""
    runs = node.get('tasks') or []
    if not runs:
        return []
    done = [r for r in runs if r['status'] in TASK_OK]
    lines = ['%stasks: %d of %d done' % (indent, len(done), len(runs))]
    for run in runs:
        if run['status'] in TASK_OK or run['status'] in TASK_WAITING:
            continue
        line = '%s%s: %s' % (indent, run['task'], run['status'])
        details = []
        if run.get('exit_status') is not None:
            details.append('exit status %s' % run['exit_status'])
        if run.get('duration') is not None:
            details.append('%.1fs' % run['duration'])
        if details:
            line += ' (%s)' % ', '.join(details)
        if run.get('reason'):
            line += ': %s' % run['reason']
        lines.append(line)
        for tail in (run.get('output_tail') or '').splitlines()[-10:]:
            lines.append('%s  | %s' % (indent, tail))
    return lines


def task_line(node: Mapping[str, Any], run: Mapping[str, Any]) -> str:
    """One finished task run, as the live display logs it."""
    line = '%s %s: %s' % (node['name'], run['task'], run['status'])
    if run.get('duration') is not None:
        line += ' (%.1fs)' % run['duration']
    if run.get('reason'):
        line += ': %s' % run['reason']
    return line
