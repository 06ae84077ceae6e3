"""``openstack site action ...``."""

from __future__ import annotations

import os
import time

from osc_lib import exceptions
from osc_lib.command import command

from ironside.osc import report_text
from ironside.osc.columns import report_columns
from ironside.osc.common import load_yaml_file
from ironside.osc.common import read_file
from ironside.osc.common import read_yaml_file
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


class CreateAction(command.Command):
    """Start deploy_site or update_site: on the committed design revision
    (or another, with --param target-revision=...), or with a stored
    strategy and/or task graphs given as files; with --tasks, --skip,
    --start, --end or --nodes, a partial run. Or redeploy_server, with
    --param node=NAME (and preserve-local-storage, target-revision, the
    drain and etcd timeouts)."""

    def get_parser(self, prog_name):
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
                            help='Show the progress until the action ends; '
                                 'exit with 1 if it failed or was aborted')
        parser.add_argument('--poll-interval', metavar='<seconds>',
                            type=float, default=2.0,
                            help='Seconds between progress updates with '
                                 '--wait (default 2)')
        return parser

    def take_action(self, parsed_args):
        client = site_client(self)
        parameters = _parameters(parsed_args.params)
        parameters.update({name: getattr(parsed_args, name) for name in
                           ('tasks', 'skip', 'start', 'end', 'nodes')
                           if getattr(parsed_args, name)})
        created = client.create_action(
            parsed_args.action, parsed_args.strategy, parameters,
            documents=[{'name': os.path.basename(path),
                        'document': read_yaml_file(path)}
                       for path in parsed_args.task_graphs],
            access=_access(parsed_args))
        revision = ' (design revision %d)' % created['revision'] \
            if created.get('revision') else ''
        self.app.stdout.write('Site action %s: %s with strategy %s%s\n' % (
            created['uuid'], created['action'], created['strategy'],
            revision))
        for entry in created.get('log') or ():
            self.app.stdout.write('  %s\n' % entry['message'])
        for warning in created.get('warnings') or ():
            self.app.stdout.write('Warning: %s\n' % warning)
        if not parsed_args.wait:
            return 0
        final = Progress(self.app.stdout).follow(
            lambda: client.get_action(created['uuid']),
            parsed_args.poll_interval)
        self.app.stdout.write('\n' + report_text.text(final) + '\n')
        return 1 if final['state'] == report_text.ABORTED or (
            final['result'] or '').startswith('failed') else 0


def _access(parsed_args) -> dict | None:
    if not parsed_args.access and not parsed_args.ssh_key:
        return None
    access = {}
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

    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = getattr(stream, 'isatty', lambda: False)()
        self.drawn = 0
        self.printed: set[str] = set()

    def follow(self, fetch, interval: float) -> dict:
        while True:
            current = fetch()
            self.show(current)
            if current['state'] in report_text.ENDED:
                return current
            time.sleep(interval)

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
    """List site actions, newest first."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--limit', metavar='<count>', type=int,
                            help='Show at most this many')
        return parser

    def take_action(self, parsed_args):
        columns = ('uuid', 'action', 'strategy', 'revision', 'state',
                   'result', 'owner', 'created_at')
        rows = [[a[c] for c in columns]
                for a in site_client(self).list_actions(parsed_args.limit)]
        return ('UUID', 'Action', 'Strategy', 'Revision', 'State', 'Result',
                'Owner', 'Created At'), rows


class ShowAction(command.ShowOne):
    """Show a site action: its fields, groups and nodes (as the report
    has them with -f json or yaml), or with --report the report as text,
    the spec's flow first."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('action', metavar='<action>',
                            help='UUID of the site action')
        parser.add_argument('--report', action='store_true',
                            help='Print the report as text instead')
        parser.add_argument('--no-nodes', action='store_true',
                            help='Leave out the nodes')
        return parser

    def take_action(self, parsed_args):
        self.report = site_client(self).get_action(parsed_args.action)
        return report_columns(self.report, nodes=not parsed_args.no_nodes)

    def produce_output(self, parsed_args, column_names, data):
        if not parsed_args.report:
            return super().produce_output(parsed_args, column_names, data)
        self.app.stdout.write(report_text.text(
            self.report, nodes=not parsed_args.no_nodes) + '\n')
        return 0


class AbortAction(command.ShowOne):
    """Abort a site action: it starts no more nodes, lets those in flight
    finish or fail, then ends as aborted (a queued one at once)."""

    def get_parser(self, prog_name):
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

    def take_action(self, parsed_args):
        client = site_client(self)
        action = client.abort_action(parsed_args.action)
        while parsed_args.wait and action['state'] not in report_text.ENDED:
            time.sleep(parsed_args.poll_interval)
            action = client.get_action(parsed_args.action)
        columns = ('uuid', 'action', 'state', 'result', 'finished_at')
        return columns, [action[c] for c in columns]
