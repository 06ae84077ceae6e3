"""Render a results document as side-by-side tables, and check the aims.

    python -m benchmarks.report benchmarks/results/<file>.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

PHASE_ORDER = ('manage', 'provide', 'deploy', 'undeploy')
READS = (('list', 'list, plain'),
         ('list_detail', 'list, detail'),
         ('list_nova_fields', 'list, Nova fields'),
         ('show', 'show'),
         ('show_nova_fields', 'show, Nova fields'),
         ('instance_lookup', 'instance lookup'))

# "Throughput does not fall as N grows": the largest N's rate is at least
# this share of the smallest N's (leaves room for run-to-run noise).
SCALING_TOLERANCE = 0.9


def _rate(run: dict, names: tuple[str, ...]) -> float | None:
    """Nodes per second through the given phases together."""
    phases = run.get('phases')
    if not phases:
        return None
    seconds = sum(phases[name]['seconds'] for name in names)
    return phases[names[-1]]['nodes'] / seconds if seconds else None


def manage_to_active(run: dict) -> float | None:
    """N over the time of the manage, provide and deploy phases."""
    return _rate(run, PHASE_ORDER[:3])


def end_to_end(run: dict) -> float | None:
    return _rate(run, PHASE_ORDER)


def cpu_ms_per_node(run: dict) -> float | None:
    phases = run.get('phases')
    if not phases:
        return None
    cpu = sum(phases[name]['server_cpu_seconds'] for name in PHASE_ORDER)
    return cpu * 1000 / run['nodes']


def database_cpu_ms_per_node(run: dict) -> float | None:
    """The split shapes' PostgreSQL backends, over the cycle."""
    phases = run.get('phases')
    if not phases or any(phases[name].get('database_cpu_seconds') is None
                         for name in PHASE_ORDER):
        return None
    cpu = sum(phases[name]['database_cpu_seconds'] for name in PHASE_ORDER)
    return cpu * 1000 / run['nodes']


def _rows(run: dict) -> list[tuple[str, str, float | None, bool]]:
    """(label, formatted value, number compared, higher is better)."""
    rows = []
    enroll = run.get('enroll') or {}
    rate = enroll.get('nodes_per_second')
    rows.append(('enroll, nodes/s', _num(rate), rate, True))
    phases = run.get('phases') or {}
    for name in PHASE_ORDER:
        rate = phases[name]['nodes_per_second'] if name in phases else None
        rows.append(('%s, nodes/s' % name, _num(rate), rate, True))
    for label, func in (('manage→active, nodes/s', manage_to_active),
                        ('end to end, nodes/s', end_to_end)):
        rate = func(run)
        rows.append((label, _num(rate), rate, True))
    cpu = cpu_ms_per_node(run)
    rows.append(('server CPU ms/node, cycle', _num(cpu), cpu, False))
    database_cpu = database_cpu_ms_per_node(run)
    if database_cpu is not None:
        rows.append(('PostgreSQL CPU ms/node, cycle', _num(database_cpu),
                     database_cpu, False))
    sql = [phases[name].get('sql_per_node') if name in phases else None
           for name in PHASE_ORDER]
    rows.append(('SQL statements/node, each phase',
                 '/'.join(_num(value) for value in sql)
                 if any(value is not None for value in sql) else '-',
                 None, False))
    latency = run.get('latency') or {}
    for key, label in READS:
        stats = latency.get(key)
        if not stats or not stats.get('count'):
            rows.append(('%s p50/p90/p99 ms' % label, '-', None, False))
            continue
        rows.append(('%s p50/p90/p99 ms' % label, '%s/%s/%s' % (
            _num(stats['p50']), _num(stats['p90']), _num(stats['p99'])),
            stats['p50'], False))
        if key == 'list_detail' and stats.get('p95') is not None:
            rows.append(('%s p95 ms' % label, _num(stats['p95']),
                         stats['p95'], False))
    # Sums over the server's processes (the all-in-one has two).
    for key, label, field in (
            ('memory_at_start', 'RSS after start, MiB', 'rss_mib'),
            ('memory', 'RSS at the end, MiB', 'rss_mib'),
            ('memory', 'peak RSS, MiB', 'peak_rss_mib'),
            ('memory', 'peak PSS, MiB', 'peak_pss_mib')):
        mib = (run.get(key) or {}).get(field)
        rows.append((label, _num(mib), mib, False))
    # Other work on the machine shows here; compare with care when high.
    before = run.get('load_average_before')
    after = run.get('load_average_after')
    load = '%.1f/%.1f' % (before[0], after[0]) if before and after else '-'
    rows.append(('load average before/after', load, None, False))
    return rows


def _num(value: float | None) -> str:
    if value is None:
        return '-'
    if value >= 100:
        return '%.0f' % value
    if value >= 10:
        return '%.1f' % value
    return '%.2f' % value


def _ratio(first: float | None, second: float | None,
           higher_better: bool) -> float | None:
    if not first or not second:
        return None
    return first / second if higher_better else second / first


Group = tuple[str, str, bool]


def group_of(run: dict) -> Group:
    """The shape, workload and cleaning setting a run was made with
    (documents from before them: all-in-one, serial, cleaning on)."""
    return (run.get('shape', 'all-in-one'), run.get('workload', 'serial'),
            run.get('automated_clean', True))


def _group_title(group: Group) -> str:
    return '%s, %s, cleaning %s' % (group[0], group[1],
                                    'on' if group[2] else 'off')


def render_count(count: int, runs: list[dict]) -> str:
    names = [run['server'] for run in runs]
    table = [_rows(run) for run in runs]
    header = ['N = %d, %s' % (count, _group_title(group_of(runs[0])))] + \
        names
    compare = len(runs) >= 2
    if compare:
        header.append('%s vs %s' % (names[0], names[1]))
    lines = [header]
    for index, (label, _, _, higher) in enumerate(table[0]):
        line = [label] + [rows[index][1] for rows in table]
        if compare:
            ratio = _ratio(table[0][index][2], table[1][index][2], higher)
            line.append('%.1f×' % ratio if ratio else '-')
        lines.append(line)
    widths = [max(len(line[col]) for line in lines)
              for col in range(len(header))]
    out = []
    for line in lines:
        cells = [line[0].ljust(widths[0])]
        cells += [line[col].rjust(widths[col])
                  for col in range(1, len(line))]
        out.append('  '.join(cells))
    out.insert(1, '-' * len(out[0]))
    return '\n'.join(out)


def _find(runs: list[dict], server: str, count: int) -> dict | None:
    for run in runs:
        if run['server'] == server and run['nodes'] == count:
            return run
    return None


def check_aims(document: dict) -> list[str]:
    """The aims of the issues, judged on what this run measured."""
    lines = []
    groups = list(dict.fromkeys(group_of(run) for run in document['runs']))
    for group in groups:
        runs = [run for run in document['runs'] if group_of(run) == group]
        found = _group_aims(runs, group)
        if found and len(groups) > 1:
            lines.append('%s:' % _group_title(group))
            found = ['  ' + line for line in found]
        lines.extend(found)
    return lines


def _group_aims(runs: list[dict], group: Group) -> list[str]:
    counts = sorted({run['nodes'] for run in runs})
    lines = []

    def compare(label: str, count: int, value, aim: float,
                higher_better: bool) -> None:
        ours = _find(runs, 'ironside', count)
        theirs = _find(runs, 'ironic39', count)
        if not ours or not theirs:
            return
        ratio = _ratio(value(ours), value(theirs), higher_better)
        if ratio is None:
            return
        verdict = 'met' if ratio >= aim else 'NOT met'
        lines.append('%s at N=%d: %.1f× Ironic 39 (aim ≥ %g×): %s' % (
            label, count, ratio, aim, verdict))

    def p50(key):
        return lambda run: (run.get('latency', {}).get(key) or {}).get('p50')

    def peak_memory(key: str) -> Callable[[dict], float | None]:
        return lambda run: (run.get('memory') or {}).get(key)

    shape, workload, cleaning = group
    if 1000 in counts:
        # Issue 27: half of Ironic's memory, whatever the shape; the
        # processes' proportional set size counts pages that forked
        # processes share once, the sum of their peak RSS each time.
        compare('peak memory (PSS), all processes', 1000,
                peak_memory('peak_pss_mib'), 2, False)
        compare('peak RSS, all processes summed', 1000,
                peak_memory('peak_rss_mib'), 2, False)
    if shape != 'all-in-one':
        # Issue 27's aims for the split shapes.
        if workload == 'burst' and 1000 in counts:
            aim = 10 if cleaning else 15
            compare('manage→active throughput', 1000, manage_to_active,
                    aim, True)
            compare('server CPU per node, whole cycle', 1000,
                    cpu_ms_per_node, aim, False)
        lines.extend(_scaling(runs, counts))
        return lines
    # Issue 15's aims: the burst workload without cleaning, and the
    # serial one with it.
    if (workload, cleaning) == ('burst', False) and 1000 in counts:
        compare('manage→active throughput', 1000, manage_to_active, 20,
                True)
        compare('server CPU per node, whole cycle', 1000, cpu_ms_per_node,
                20, False)
        compare('node list (detail) p50', 1000, p50('list_detail'), 20,
                False)
        ours = _find(runs, 'ironside', 1000) or {}
        detail = (ours.get('latency') or {}).get('list_detail') or {}
        if detail.get('p95') is not None:
            spread = detail['p95'] / detail['p50']
            lines.append('node list (detail) p95 = %.1f× its p50 (aim < 2×): '
                         '%s' % (spread, 'met' if spread < 2 else 'NOT met'))
    if (workload, cleaning) == ('serial', True) and 1000 in counts:
        compare('manage→active throughput, cleaning on', 1000,
                manage_to_active, 10, True)
    if (workload, cleaning) != ('serial', True):
        lines.extend(_scaling(runs, counts))
        return lines
    if 1000 in counts:
        compare('manage→active throughput', 1000, manage_to_active, 10,
                True)
        compare('node list (plain) p50', 1000, p50('list'), 5, False)
        compare('node list (detail) p50', 1000, p50('list_detail'), 5,
                False)
    if 10000 in counts:
        compare('node list (Nova fields) p50', 10000,
                p50('list_nova_fields'), 5, False)
        compare('node show (Nova fields) p50', 10000,
                p50('show_nova_fields'), 5, False)
        compare('instance lookup p50', 10000, p50('instance_lookup'), 5,
                False)
    lines.extend(_scaling(runs, counts))
    return lines


def _scaling(runs: list[dict], counts: list[int]) -> list[str]:
    """Manage→active throughput by N, and whether it holds as N grows."""
    lines = []
    for server in ('ironside', 'ironic39'):
        rates = [(count, manage_to_active(_find(runs, server, count) or {}))
                 for count in counts]
        rates = [(count, rate) for count, rate in rates if rate]
        if len(rates) < 2:
            continue
        text = ', '.join('N=%d: %.1f' % item for item in rates)
        line = '%s manage→active nodes/s by N: %s' % (server, text)
        if server == 'ironside':
            kept = rates[-1][1] / rates[0][1]
            line += ' (largest/smallest N: %.2f; aim: does not fall: %s)' % (
                kept, 'met' if kept >= SCALING_TOLERANCE else 'NOT met')
        lines.append(line)
    return lines


def render(document: dict) -> str:
    machine = document.get('machine', {})
    settings = document.get('settings', {})
    parts = ['Machine: %s CPUs (%s), %s GiB, Python %s. Workers: %s; polls '
             'at once, then after %ss, growing 1.5x to %ss.' % (
                 machine.get('cpus'), machine.get('cpu_model'),
                 machine.get('memory_gib'), machine.get('python'),
                 settings.get('workers'), settings.get('poll_first'),
                 settings.get('poll_max'))]
    versions = {run['server']: run['version'] for run in document['runs']
                if run.get('version')}
    if versions:
        parts[0] += '\nVersions: %s.' % ', '.join(
            '%s %s' % item for item in versions.items())
    groups = dict.fromkeys(group_of(run) for run in document['runs'])
    for group, count in [(group, count) for group in groups for count in
                         sorted({run['nodes'] for run in document['runs']
                                 if group_of(run) == group})]:
        runs = [run for run in document['runs'] if run['nodes'] == count
                and group_of(run) == group]
        parts.append(render_count(count, runs))
        for run in runs:
            if run.get('error'):
                parts.append('%s failed: %s' % (run['server'], run['error']))
            for phase in (run.get('phases') or {}).values():
                if phase['failures']:
                    parts.append('%s %s: %s' % (run['server'], phase['name'],
                                                '; '.join(phase['failures'])))
    aims = check_aims(document)
    if aims:
        parts.append('Aims:\n' + '\n'.join('  ' + line for line in aims))
    return '\n\n'.join(parts)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print(render(json.loads(Path(args[0]).read_text())))
    return 0


if __name__ == '__main__':
    sys.exit(main())
