"""``openstack site node ...``: which nodes selectors select, and what
each node is doing (the spec's node-status endpoint)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from osc_lib import exceptions
from osc_lib.command import command

from ironside.osc.common import load_yaml_file
from ironside.osc.common import site_client

SELECTOR_OPTIONS = (
    # (option, selector field, help)
    ('--node-name', 'node_names', 'Node name (repeat for more)'),
    ('--tag', 'node_tags', 'Node tag, from extra.tags (repeat for more)'),
    ('--label', 'node_labels', 'Node label as key:value, from extra.labels '
                               '(repeat for more)'),
    ('--rack', 'rack_names', 'Rack name, from extra.rack (repeat for '
                             'more)'),
)


STATUS_COLUMNS = ('name', 'provision_state', 'power_state', 'maintenance',
                  'fault', 'step', 'last_error')
STATUS_LONG = ('name', 'uuid', 'rack', 'provision_state',
               'target_provision_state', 'provision_updated_at',
               'power_state', 'maintenance', 'maintenance_reason', 'fault',
               'step', 'last_error')
STATUS_HEADERS = {
    'name': 'Name', 'uuid': 'UUID', 'rack': 'Rack',
    'provision_state': 'Provision State',
    'target_provision_state': 'Target Provision State',
    'provision_updated_at': 'Provision Updated At',
    'power_state': 'Power State', 'maintenance': 'Maintenance',
    'maintenance_reason': 'Maintenance Reason', 'fault': 'Fault',
    'step': 'Step', 'last_error': 'Last Error',
}


def _add_selector_options(parser: argparse.ArgumentParser) -> None:
    for option, field, help_text in SELECTOR_OPTIONS:
        parser.add_argument(option, metavar='<%s>' % option[2:],
                            dest=field, action='append', default=[],
                            help=help_text)


def _selector(parsed_args: argparse.Namespace) -> dict[str, list[str]]:
    """The one selector the options give: values of one option or-ed,
    options and-ed, as in a group's selector."""
    return {field: getattr(parsed_args, field)
            for _option, field, _help in SELECTOR_OPTIONS
            if getattr(parsed_args, field)}


def _join(values: Iterable[str]) -> str:
    return ', '.join(values)


class NodeStatus(command.Lister):
    """Show each node's provision and power state, fault and last error."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        _add_selector_options(parser)
        parser.add_argument('--name', metavar='<pattern>',
                            help='Only nodes whose name matches this '
                                 'shell-style pattern (cmp-r2-*)')
        parser.add_argument('--provision-state', metavar='<state>',
                            action='append', default=[],
                            help='Only nodes in this provision state '
                                 '(repeat for more)')
        parser.add_argument('--long', action='store_true',
                            help='Show more columns')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[list[str], list[list[Any]]]:
        params = {field: ','.join(values)
                  for field, values in _selector(parsed_args).items()}
        if parsed_args.name:
            params['name'] = parsed_args.name
        if parsed_args.provision_state:
            params['provision_state'] = ','.join(parsed_args.provision_state)
        nodes = site_client(self).node_status(params)
        columns = STATUS_LONG if parsed_args.long else STATUS_COLUMNS
        return ([STATUS_HEADERS[c] for c in columns],
                [[n.get(c) for c in columns] for n in nodes])


class NodeFilter(command.Lister):
    """List the nodes that selectors select, as a group's would."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('file', metavar='<file>', nargs='?',
                            help='YAML or JSON file ("-" for stdin) with a '
                                 'list of selectors, or a mapping with '
                                 '"selectors"; or give one selector with '
                                 'the options below')
        _add_selector_options(parser)
        parser.add_argument('--revision', metavar='<version>',
                            help='Select from the inventory of this design '
                                 'version (a revision number, committed, '
                                 'successful-site-action, buffer) as the '
                                 'design describes the nodes, instead of '
                                 'from the enrolled nodes; a node not '
                                 'enrolled yet has no UUID')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[list[Any]]]:
        selector = _selector(parsed_args)
        if parsed_args.file and selector:
            raise exceptions.CommandError(
                'Give selectors in a file or as options, not both')
        if not parsed_args.file:
            return self._listing(site_client(self).filter_nodes(
                [selector] if selector else [], parsed_args.revision))
        document = load_yaml_file(parsed_args.file)
        if isinstance(document, dict) and 'selectors' in document:
            document = document['selectors']
        if document is None:
            document = []
        if not isinstance(document, list):
            raise exceptions.CommandError(
                '%s: expected a list of selectors, or a mapping with '
                '"selectors"' % parsed_args.file)
        try:
            nodes = site_client(self).filter_nodes(document,
                                                   parsed_args.revision)
        except exceptions.CommandError as exc:
            raise exceptions.CommandError('%s: %s' % (parsed_args.file,
                                                      exc)) from None
        return self._listing(nodes)

    @staticmethod
    def _listing(nodes: list[dict[str, Any]]
                 ) -> tuple[tuple[str, ...], list[list[Any]]]:
        rows = [[n['name'], n['uuid'], n.get('rack'), _join(n['tags']),
                 _join('%s: %s' % kv for kv in n['labels'].items())]
                for n in nodes]
        return ('Name', 'UUID', 'Rack', 'Tags', 'Labels'), rows
