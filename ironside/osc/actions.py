"""``openstack site action ...``."""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from collections.abc import Sequence
from typing import IO
from typing import Any

from osc_lib import exceptions
from osc_lib.command import command

from ironside.osc import report_text
from ironside.osc.columns import report_columns
from ironside.osc.common import load_yaml_file
from ironside.osc.common import named_documents
from ironside.osc.common import read_file
from ironside.osc.common import site_client


def _parameters(values: list[str]) -> dict[str, str]:
    parameters = {}
    for value in values:
        name, sep, given = value.partition('=')
        if not sep or not name:
            raise exceptions.CommandError(
                '--param takes NAME=VALUE, not "%s"' % value)
        parameters[name] = given
    return parameters


class CreateAction(command.ShowOne):
    """Start deploy_site or update_site: on the committed design revision
    (or another, with --param target-revision=...), or with a stored
    strategy and/or task graphs given as files; with --tasks, --skip,
    --start, --end or --nodes, a partial run. Or redeploy_server, with
    --param node=NAME (and preserve-local-storage, target-revision, the
    drain and etcd timeouts). Shows the action created (with -f json or
    yaml, as the API answers it); with --wait, the action as it ended."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('action', metavar='<action>',
                            choices=['deploy_site', 'update_site',
                                     'redeploy_server'],
                            help='deploy_site, update_site or '
                                 'redeploy_server')
        parser.add_argument('--strategy', metavar='<strategy>',
                            help='Name of a stored deployment strategy, '
                                 'instead of the design')
        parser.add_argument('--task-graph', metavar='<file>',
                            action='append', default=[],
                            dest='task_graphs',
                            help='A task graph (Fuel tasks.yaml, or an '
                                 'ironside/TaskGraph/v1 document), or a '
                                 'DeploymentStrategy document, instead of '
                                 'the design; repeat for several')
        parser.add_argument('--param', metavar='<name=value>',
                            action='append', default=[], dest='params',
                            help='An action parameter, e.g. '
                                 'allow-intermediate-commits=true or '
                                 'target-revision=3; repeat for more')
        parser.add_argument('--tasks', metavar='<task,...>',
                            help='Run only these tasks')
        parser.add_argument('--skip', metavar='<task,...>',
                            help='Run every task but these')
        parser.add_argument('--start', metavar='<task>',
                            help='Start at this task (or group, or stage): '
                                 'it and what comes after it')
        parser.add_argument('--end', metavar='<task>',
                            help='End at this task (or group, or stage): '
                                 'it and what it needs first')
        parser.add_argument('--nodes', metavar='<node,...>',
                            help='Only these nodes (names or UUIDs)')
        parser.add_argument('--access', metavar='<file>',
                            help='With --task-graph: YAML or JSON, "nodes": '
                                 'each node\'s "address" (and "port", '
                                 '"user", "known_host") to run its tasks '
                                 'over SSH')
        parser.add_argument('--ssh-key', metavar='<file>',
                            help='With --task-graph: the private key to log '
                                 'in to the nodes with')
        parser.add_argument('--wait', action='store_true',
                            help='Wait until the action ends, then show '
                                 'it; exit with 1 if it failed or was '
                                 'aborted. As a table (the default '
                                 'format), the progress is shown as it '
                                 'goes and the report as text')
        parser.add_argument('--poll-interval', metavar='<seconds>',
                            type=float, default=2.0,
                            help='Seconds between progress updates with '
                                 '--wait (default 2)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[Any]]:
        client = site_client(self)
        parameters = _parameters(parsed_args.params)
        parameters.update({name: getattr(parsed_args, name) for name in
                           ('tasks', 'skip', 'start', 'end', 'nodes')
                           if getattr(parsed_args, name)})
        created = client.create_action(
            parsed_args.action, parsed_args.strategy, parameters,
            documents=named_documents(parsed_args.task_graphs),
            access=_access(parsed_args))
        self.report = created
        if parsed_args.wait:
            fetch = functools.partial(client.get_action, created['uuid'])
            if _as_text(parsed_args):
                self.app.stdout.write(_created_text(created))
                self.report = Progress(self.app.stdout).follow(
                    fetch, parsed_args.poll_interval)
            else:
                self.report = until_ended(fetch, parsed_args.poll_interval)
        return report_columns(self.report)

    def produce_output(self, parsed_args: argparse.Namespace,
                       column_names: Sequence[str], data: Sequence[Any]
                       ) -> int:
        if parsed_args.wait and _as_text(parsed_args):
            self.app.stdout.write('\n' + report_text.text(self.report) +
                                  '\n')
            return 0
        return super().produce_output(parsed_args, column_names, data)

    def run(self, parsed_args: argparse.Namespace) -> int:
        code = super().run(parsed_args)
        if parsed_args.wait and _ended_badly(self.report):
            return 1
        return code


def _as_text(parsed_args: argparse.Namespace) -> bool:
    """Whether the command shows a table (the default), not a format
    for scripts."""
    return parsed_args.formatter == 'table'


def _created_text(created: dict) -> str:
    """The action as ``--wait`` introduces it, before its progress."""
    revision = ' (design revision %d)' % created['revision'] \
        if created.get('revision') else ''
    lines = ['Site action %s: %s with strategy %s%s' % (
        created['uuid'], created['action'], created['strategy'], revision)]
    lines += ['  %s' % entry['message'] for entry in created.get('log') or ()]
    lines += ['Warning: %s' % w for w in created.get('warnings') or ()]
    return '\n'.join(lines) + '\n'


def _ended_badly(action: dict) -> bool:
    return action['state'] == report_text.ABORTED or \
        (action['result'] or '').startswith('failed')


def until_ended(fetch: Callable[[], dict], interval: float,
                show: Callable[[dict], None] | None = None) -> dict:
    """The action ``fetch`` reads, once it has ended; ``show`` sees it
    each time it is read."""
    while True:
        current = fetch()
        if show is not None:
            show(current)
        if current['state'] in report_text.ENDED:
            return current
        time.sleep(interval)


def _access(parsed_args: argparse.Namespace) -> dict[str, Any] | None:
    if not parsed_args.access and not parsed_args.ssh_key:
        return None
    access: dict[str, Any] = {}
    if parsed_args.access:
        access = load_yaml_file(parsed_args.access) or {}
        if not isinstance(access, dict):
            raise exceptions.CommandError(
                '%s must hold a mapping with "nodes"' % parsed_args.access)
    if parsed_args.ssh_key:
        access['private_key'] = read_file(parsed_args.ssh_key)
    return access


class Progress:
    """Shows a running action's flow, redrawn in place on a terminal.

    Elsewhere (a pipe, a log) each group phase is printed once, when it
    ends, so the output reads as the spec's flow does.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.tty = getattr(stream, 'isatty', lambda: False)()
        self.drawn = 0
        self.printed: set[str] = set()

    def follow(self, fetch: Callable[[], dict], interval: float) -> dict:
        return until_ended(fetch, interval, self.show)

    def show(self, current: dict) -> None:
        flow = report_text.flow_text(current)
        if self.tty:
            counts = current['node_counts']
            lines = flow.splitlines() + ['Nodes: ' + ', '.join(
                '%d %s' % (n, status) for status, n in counts.items())]
            lines += ['  %s: %s' % (node['name'], node['running'])
                      for node in current['nodes'] if node.get('running')]
            if self.drawn:
                self.stream.write('\x1b[%dF\x1b[J' % self.drawn)
            self.stream.write('\n'.join(lines) + '\n')
            self.drawn = len(lines)
        else:
            for line in self._finished_tasks(current) + flow.splitlines():
                if line.startswith(('| ', '  ')) and \
                        '<PENDING>' not in line and \
                        '<RUNNING' not in line and line not in self.printed:
                    self.printed.add(line)
                    self.stream.write(line + '\n')
        self.stream.flush()

    @staticmethod
    def _finished_tasks(current: dict) -> list[str]:
        return ['  ' + report_text.task_line(node, run)
                for node in current['nodes']
                for run in node.get('tasks') or ()
                if run['status'] not in report_text.TASK_WAITING]


class ListActions(command.Lister):
    """List site actions, newest first: filtered, sorted and paged by
    the site API."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--state', metavar='<state>', action='append',
                            help='Only actions in this state (queued, '
                                 'running, aborting, finished, aborted) '
                                 'or that finished so (success, failed); '
                                 'repeat, or separate with commas, for '
                                 'any of several')
        parser.add_argument('--action', metavar='<action>',
                            action='append',
                            help='Only these actions (deploy_site, '
                                 'update_site, redeploy_server); repeat '
                                 'or separate with commas for several')
        parser.add_argument('--revision', metavar='<revision>', type=int,
                            help='Only actions that ran this design '
                                 'revision')
        parser.add_argument('--sort', metavar='<key>[:<direction>]',
                            help='Sort by created_at (the default), '
                                 'action or state; direction asc or desc '
                                 '(the default)')
        parser.add_argument('--marker', metavar='<action>',
                            help='UUID of the last action of the previous '
                                 'page: list those after it')
        parser.add_argument('--limit', metavar='<count>', type=int,
                            help='Show at most this many')
        parser.add_argument('--long', action='store_true',
                            help='Show when each action started and '
                                 'finished too')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[list[str], list[list[Any]]]:
        sort_key, _, sort_dir = (parsed_args.sort or '').partition(':')
        found = site_client(self).list_actions(
            state=_joined(parsed_args.state),
            action=_joined(parsed_args.action),
            revision=parsed_args.revision, marker=parsed_args.marker,
            limit=parsed_args.limit, sort_key=sort_key or None,
            sort_dir=sort_dir or None)
        columns = ['uuid', 'action', 'strategy', 'revision', 'state',
                   'result', 'owner', 'created_at']
        headers = ['UUID', 'Action', 'Strategy', 'Revision', 'State',
                   'Result', 'Owner', 'Created At']
        if parsed_args.long:
            columns += ['started_at', 'finished_at']
            headers += ['Started At', 'Finished At']
        return headers, [[a[c] for c in columns] for a in found]


def _joined(values: list[str] | None) -> str | None:
    """Repeated options as the API's comma-separated list."""
    return ','.join(values) if values else None


class ShowAction(command.ShowOne):
    """Show a site action: its fields, groups and nodes (as the report
    has them with -f json or yaml), or with --report the report as text,
    the spec's flow first."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('action', metavar='<action>',
                            help='UUID of the site action')
        parser.add_argument('--report', action='store_true',
                            help='Print the report as text instead')
        parser.add_argument('--no-nodes', action='store_true',
                            help='Leave out the nodes')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[Any]]:
        self.report = site_client(self).get_action(parsed_args.action)
        return report_columns(self.report, nodes=not parsed_args.no_nodes)

    def produce_output(self, parsed_args: argparse.Namespace,
                       column_names: Sequence[str], data: Sequence[Any]
                       ) -> int:
        if not parsed_args.report:
            return super().produce_output(parsed_args, column_names, data)
        self.app.stdout.write(report_text.text(
            self.report, nodes=not parsed_args.no_nodes) + '\n')
        return 0


class AbortAction(command.ShowOne):
    """Abort a site action: it starts no more nodes, lets those in flight
    finish or fail, then ends as aborted (a queued one at once). Shows
    the action as the abort left it (with -f json or yaml, as the API
    answers it); with --wait, as it ended."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('action', metavar='<action>',
                            help='UUID of the site action')
        parser.add_argument('--wait', action='store_true',
                            help='Wait until the nodes in flight have '
                                 'finished and the action is aborted')
        parser.add_argument('--poll-interval', metavar='<seconds>',
                            type=float, default=2.0,
                            help='Seconds between looks with --wait '
                                 '(default 2)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[Any]]:
        client = site_client(self)
        action = client.abort_action(parsed_args.action)
        if parsed_args.wait and action['state'] not in report_text.ENDED:
            action = until_ended(functools.partial(
                client.get_action, parsed_args.action),
                parsed_args.poll_interval)
        return report_columns(action)
