"""``openstack site strategy ...``."""

from __future__ import annotations

import argparse
from typing import Any

from osc_lib.command import command

from ironside.osc.columns import Column
from ironside.osc.common import FileArgument
from ironside.osc.common import file_name
from ironside.osc.common import read_yaml_file
from ironside.osc.common import show_validation
from ironside.osc.common import site_client


class _StrategyArgument(command.Command):
    """Commands about one stored strategy."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('strategy', metavar='<strategy>',
                            help='Name or UUID of the strategy')
        return parser


class ValidateStrategy(FileArgument, command.Command):
    """Validate a DeploymentStrategy document without storing it."""

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        return show_validation(
            self.app.stdout, [parsed_args.file],
            site_client(self).validate_strategy(
                read_yaml_file(parsed_args.file),
                file_name(parsed_args.file)))


class CreateStrategy(FileArgument, command.ShowOne):
    """Store a DeploymentStrategy document; show what was stored (the
    document itself: ``openstack site strategy show``)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--name', metavar='<name>',
                            help='Store it under this name (default: the '
                                 'document\'s metadata.name)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], tuple[Any, ...]]:
        strategy = site_client(self).create_strategy(
            read_yaml_file(parsed_args.file), parsed_args.name)
        columns = ('name', 'uuid', 'schema', 'group_count', 'groups',
                   'created_at')
        return columns, (strategy['name'], strategy['uuid'],
                         strategy['schema'], len(strategy['groups']),
                         ', '.join(strategy['groups']),
                         strategy['created_at'])


class ListStrategies(command.Lister):
    """List stored deployment strategies."""

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
        rows = [(s['name'], s['uuid'], s['schema'], ', '.join(s['groups']))
                for s in site_client(self).list_strategies()]
        return ('Name', 'UUID', 'Schema', 'Groups'), rows


class ShowStrategy(_StrategyArgument, command.ShowOne):
    """Show a deployment strategy and its document."""

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], tuple[Any, ...]]:
        strategy = site_client(self).get_strategy(parsed_args.strategy)
        columns = ('name', 'uuid', 'schema', 'groups', 'created_at',
                   'document')
        return columns, (strategy['name'], strategy['uuid'],
                         strategy['schema'], ', '.join(strategy['groups']),
                         strategy['created_at'],
                         Column(strategy['document']))


class DeleteStrategy(_StrategyArgument, command.Command):
    """Delete a deployment strategy."""

    def take_action(self, parsed_args: argparse.Namespace) -> None:
        site_client(self).delete_strategy(parsed_args.strategy)
