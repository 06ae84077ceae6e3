"""``openstack site task ...``: the tasks of task graphs."""

from __future__ import annotations

import argparse
from typing import Any

from osc_lib.command import command

from ironside.osc.common import named_documents
from ironside.osc.common import show_validation
from ironside.osc.common import site_client


class ListTasks(command.Lister):
    """List the tasks of the committed design (or another version, or of
    task graph files) in graph order, from --start to --end as a partial
    run walks them."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('files', metavar='<file>', nargs='*',
                            help='Task graphs (and a DeploymentStrategy '
                                 'whose groups they use); without them, '
                                 'the design\'s')
        parser.add_argument('--design-version', metavar='<version>',
                            help='The design version (committed, a '
                                 'revision number, ...; default committed)')
        parser.add_argument('--start', metavar='<task>',
                            help='Only this task (or group, or stage) and '
                                 'what comes after it')
        parser.add_argument('--end', metavar='<task>',
                            help='Only this task (or group, or stage) and '
                                 'what it needs first')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
        tasks = site_client(self).list_tasks(
            named_documents(parsed_args.files),
            parsed_args.start, parsed_args.end, parsed_args.design_version)
        rows = [(t['id'], t['type'], t['stage'], ', '.join(t['groups']),
                 ', '.join(t['roles']), ', '.join(t['needs_tasks']))
                for t in tasks]
        return ('ID', 'Type', 'Stage', 'Groups', 'Roles', 'Requires'), rows


class ValidateTaskGraph(command.Command):
    """Validate task graphs (and the DeploymentStrategy whose groups
    they use) together, without the rest of a site's documents: errors,
    and warnings for what only those can settle; each names its file
    and line."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('files', metavar='<file>', nargs='+',
                            help='YAML or JSON documents ("-" for stdin)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        return show_validation(
            self.app.stdout, parsed_args.files,
            site_client(self).validate_task_graphs(
                named_documents(parsed_args.files)))
