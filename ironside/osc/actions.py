"""``openstack site action ...``."""

from __future__ import annotations

import json
import time

from osc_lib import exceptions
from osc_lib.command import command

from ironside.osc import report_text
from ironside.osc.common import site_client

FINISHED = 'finished'


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
    strategy."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('action', metavar='<action>',
                            choices=['deploy_site', 'update_site'],
                            help='deploy_site or update_site')
        parser.add_argument('--strategy', metavar='<strategy>',
                            help='Name of a stored deployment strategy, '
                                 'instead of the design')
        parser.add_argument('--param', metavar='<name=value>',
                            action='append', default=[], dest='params',
                            help='An action parameter, e.g. '
                                 'allow-intermediate-commits=true or '
                                 'target-revision=3; repeat for more')
        parser.add_argument('--wait', action='store_true',
                            help='Show the progress until the action ends; '
                                 'exit with 1 if it failed')
        parser.add_argument('--poll-interval', metavar='<seconds>',
                            type=float, default=2.0,
                            help='Seconds between progress updates with '
                                 '--wait (default 2)')
        return parser

    def take_action(self, parsed_args):
        client = site_client(self)
        created = client.create_action(parsed_args.action,
                                       parsed_args.strategy,
                                       _parameters(parsed_args.params))
        revision = ' (design revision %d)' % created['revision'] \
            if created.get('revision') else ''
        self.app.stdout.write('Site action %s: %s with strategy %s%s\n' % (
            created['uuid'], created['action'], created['strategy'],
            revision))
        for entry in created.get('log') or ():
            self.app.stdout.write('  %s\n' % entry['message'])
        if not parsed_args.wait:
            return 0
        final = Progress(self.app.stdout).follow(
            lambda: client.get_action(created['uuid']),
            parsed_args.poll_interval)
        self.app.stdout.write('\n' + report_text.text(final) + '\n')
        return 1 if (final['result'] or '').startswith('failed') else 0


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
            if current['state'] == FINISHED:
                return current
            time.sleep(interval)

    def show(self, current: dict) -> None:
        flow = report_text.flow_text(current)
        if self.tty:
            counts = current['node_counts']
            lines = flow.splitlines() + ['Nodes: ' + ', '.join(
                '%d %s' % (n, status) for status, n in counts.items())]
            if self.drawn:
                self.stream.write('\x1b[%dF\x1b[J' % self.drawn)
            self.stream.write('\n'.join(lines) + '\n')
            self.drawn = len(lines)
        else:
            for line in flow.splitlines():
                if line.startswith('| ') and '<PENDING>' not in line and \
                        '<RUNNING' not in line and line not in self.printed:
                    self.printed.add(line)
                    self.stream.write(line + '\n')
        self.stream.flush()


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


class ShowAction(command.Command):
    """Show a site action's report."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('action', metavar='<action>',
                            help='UUID of the site action')
        parser.add_argument('--format', dest='report_format',
                            choices=['text', 'json'], default='text',
                            help='The report as text (default) or JSON')
        parser.add_argument('--no-nodes', action='store_true',
                            help='Leave out the list of nodes')
        return parser

    def take_action(self, parsed_args):
        current = site_client(self).get_action(parsed_args.action)
        if parsed_args.report_format == 'json':
            self.app.stdout.write(json.dumps(current, indent=2) + '\n')
        else:
            self.app.stdout.write(report_text.text(
                current, nodes=not parsed_args.no_nodes) + '\n')
