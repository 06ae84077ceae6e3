"""Task graphs on the in-memory site: nodes with roles, tasks that run.

``GraphSite`` is the in-memory twin of a site (``memory_nodes``) whose
nodes' tasks run for real through the local task runner, each node a
directory. Commands find on their PATH:

- ``record WHAT...``: appends ``<time> <node> <what>`` to the journal;
- ``puppet``: a stand-in that records ``puppet <manifest>`` and exits
  with ``$NODE_ROOT/puppet-exit`` (0 if missing);
- ``step NAME [SECONDS]``: records ``start NAME``, sleeps, records
  ``end NAME`` (the spec's ``run_setup_network.sh`` is one);

so a test proves what ran where, and in which order, from the journal.
"""

from __future__ import annotations

import dataclasses
import pathlib
import textwrap

from ironside.db import site as site_db
from ironside.strategy import actions
from ironside.strategy.run import runner
from ironside.strategy.run.task_flow import TaskExecution
from ironside.strategy.tasks.registry import TaskRunners
from tests.unit.strategy import memory_nodes
from tests.unit.strategy.local_tasks import LocalTaskRunner
from tests.unit.strategy.memory_limit import InFlightLimit

RECORD = '''#!/bin/sh
printf '%s %s %s\\n' "$(date +%s.%N)" "$NODE_NAME" "$*" >> "$JOURNAL"
'''

PUPPET = '''#!/bin/sh
manifest=""
for arg in "$@"; do
  case "$arg" in -*|apply) ;; *) manifest="$arg" ;; esac
done
record puppet "$manifest"
exit "$(cat "$NODE_ROOT/puppet-exit" 2>/dev/null || echo 0)"
'''

STEP = '''#!/bin/sh
record start "$1"
sleep "${2:-0}"
record end "$1"
'''


@dataclasses.dataclass(frozen=True)
class Entry:
    time: float
    node: str
    what: str


class GraphSite:
    def __init__(self, base: pathlib.Path) -> None:
        self.base = base
        self.bin = base / 'bin'
        self.bin.mkdir(parents=True)
        self.journal_path = base / 'journal'
        self.journal_path.touch()
        self.nodes = memory_nodes.MemoryNodes()
        self.local = LocalTaskRunner(base / 'nodes',
                                     env={'JOURNAL': str(self.journal_path)},
                                     path=[str(self.bin)])
        self.execution = TaskExecution(TaskRunners([self.local]), 16)
        self.script('record', RECORD)
        self.script('puppet', PUPPET)
        self.script('step', STEP)
        self.script('run_setup_network.sh',
                    '#!/bin/sh\nexec step setup_network 0.2\n')

    def script(self, name: str, text: str) -> None:
        path = self.bin / name
        path.write_text(textwrap.dedent(text))
        path.chmod(0o755)

    def add(self, name: str, roles=(), **knobs):
        return self.nodes.add(name, roles=roles, **knobs)

    def add_roles(self, roles: dict[str, list[str]]) -> None:
        """{role: [node names]}, as the spec lists them."""
        for role, names in roles.items():
            for name in names:
                self.add(name, roles=[role])

    def access(self) -> dict:
        return {'nodes': {n.node.name: {'address': '127.0.0.1'}
                          for n in self.nodes.nodes.values()},
                'private_key': 'not a real key'}

    def journal(self) -> list[Entry]:
        entries = []
        for line in self.journal_path.read_text().splitlines():
            when, node, what = (line.split(' ', 2) + [''])[:3]
            entries.append(Entry(float(when), node, what))
        return sorted(entries, key=lambda e: e.time)

    def ran(self) -> dict[str, list[str]]:
        return ran(self.journal())

    def file(self, node: str, path: str) -> pathlib.Path:
        return self.local.file(node, path)

    def start(self, *documents, action='deploy_site', host='test-host',
              options=None, access=None):
        row = actions.create_action(
            self.nodes, action, parameters=options, documents=list(documents),
            access=self.access() if access is None else access)
        assert site_db.claim_action(row.id, host, None, None)
        return row

    def runner(self, row, host='test-host', limit=None, **kwargs):
        return runner.ActionRunner(
            row.uuid, host, kwargs.pop('nodes', self.nodes),
            limit or InFlightLimit(1000),
            tasks=kwargs.pop('tasks', self.execution), **kwargs)

    def run(self, *documents, limit=None, options=None, access=None,
            action='deploy_site', **kwargs) -> dict:
        """Create the action, run it to its end here; its report."""
        row = self.start(*documents, action=action, options=options,
                         access=access)
        assert self.runner(row, limit=limit, **kwargs).run()
        return actions.action_report(row.uuid)

    def close(self) -> None:
        # Every task has ended; idle workers need not be waited for.
        self.execution.close(wait=False)


def node(report: dict, name: str) -> dict:
    return next(n for n in report['nodes'] if n['name'] == name)


def group(report: dict, name: str) -> dict:
    return next(g for g in report['groups'] if g['name'] == name)


def tasks_of(report: dict, name: str) -> dict[str, str]:
    """{task: status} of a node in the report."""
    return {t['task']: t['status'] for t in node(report, name)['tasks']}


# Reading a journal (here, or the one the sshd fixture's nodes write).

def ran(journal) -> dict[str, list[str]]:
    """What each node did, in order."""
    found: dict[str, list[str]] = {}
    for entry in journal:
        found.setdefault(entry.node, []).append(entry.what)
    return found


def spans(journal) -> dict[str, tuple[float, float]]:
    """Node → (first, last) time it wrote to the journal."""
    found: dict[str, tuple[float, float]] = {}
    for entry in journal:
        first, _last = found.get(entry.node, (entry.time, entry.time))
        found[entry.node] = (first, entry.time)
    return found


def before(spans, earlier, later) -> bool:
    """Every node of ``earlier`` was done before any of ``later`` began."""
    return all(spans[e][1] < spans[n][0] for e in earlier for n in later)


def overlap(spans, one, other) -> bool:
    """The two nodes' work overlapped in time."""
    return spans[one][0] < spans[other][1] and \
        spans[other][0] < spans[one][1]
