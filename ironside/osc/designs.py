"""``openstack site design ...``: stage, see, compare and commit the site
design. Documents come back from the server with secrets masked."""

from __future__ import annotations

import argparse
from typing import Any

import yaml
from osc_lib import exceptions
from osc_lib.command import command

from ironside.osc.common import file_name
from ironside.osc.common import read_yaml_file
from ironside.osc.common import site_client

VERSIONS = ('buffer, committed, successful-site-action, last-site-action '
            'or a revision number')


def _yaml(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=False,
                          sort_keys=False).rstrip('\n')


class CreateCollection(command.ShowOne):
    """Create or replace a collection of documents in the buffer."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('collection', metavar='<collection>',
                            help='Name of the collection')
        parser.add_argument('--file', metavar='<file>', action='append',
                            default=[], dest='files',
                            help='YAML or JSON documents ("-" for stdin); '
                                 'repeat for more files')
        parser.add_argument('--empty', action='store_true',
                            help='Stage the collection with no documents: '
                                 'the next commit removes it from the '
                                 'design')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[Any]]:
        if not parsed_args.files and not parsed_args.empty:
            raise exceptions.CommandError('Give --file, or --empty')
        sources = [(file_name(f), read_yaml_file(f))
                   for f in parsed_args.files]
        staged = site_client(self).stage_collection(
            parsed_args.collection, sources, parsed_args.empty)
        columns = ('collection', 'status', 'documents')
        return columns, [staged[c] for c in columns]


class ShowBuffer(command.Lister):
    """List the collections staged in the buffer."""

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
        buffer = site_client(self).get_buffer()
        return ('Collection', 'Status', 'Documents', 'Staged At'), [
            (c['collection'], c['status'], c['documents'], c['staged_at'])
            for c in buffer['collections']]


class DiscardBuffer(command.Command):
    """Discard every collection staged in the buffer."""

    def take_action(self, parsed_args: argparse.Namespace) -> None:
        site_client(self).discard_buffer()


class ShowDesign(command.Lister):
    """List the documents of a version of the design."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        # A positional: "openstack" itself takes --version anywhere.
        parser.add_argument('version', metavar='<version>', nargs='?',
                            help='%s (default committed)' % VERSIONS)
        parser.add_argument('--collection', metavar='<collection>',
                            help='Only this collection')
        parser.add_argument('--long', action='store_true',
                            help='Show each document too')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[list[str], list[list[Any]]]:
        found = site_client(self).design_documents(parsed_args.version,
                                                   parsed_args.collection)
        columns = ['Collection', 'Schema', 'Name']
        rows = []
        for item in found['documents']:
            row = [item['collection'], item['schema'], item['name']]
            if parsed_args.long:
                row.append(_yaml(item['document']))
            rows.append(row)
        if parsed_args.long:
            columns.append('Document')
        return columns, rows


class RenderDesign(command.ShowOne):
    """Show a version of the design as site actions read it."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        # A positional: "openstack" itself takes --version anywhere.
        parser.add_argument('version', metavar='<version>', nargs='?',
                            help='%s (default committed)' % VERSIONS)
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], tuple[Any, ...]]:
        found = site_client(self).rendered_design(parsed_args.version)
        strategy = found['strategy']
        groups = '' if strategy is None else '\n'.join(
            '%s: %s' % (g['name'], ', '.join(g['nodes']) or '(no nodes)')
            for g in strategy['groups'])
        columns = ('version', 'revision', 'deployment_strategy', 'groups',
                   'nodes', 'configs', 'settings', 'kinds', 'other',
                   'issues')
        values = (found['version'], found['revision'],
                  found['configuration']['deployment_strategy'], groups,
                  len(found['nodes']), ', '.join(found['configs']),
                  ', '.join(found['settings']),
                  '\n'.join('%s: %d' % (kind, len(names))
                            for kind, names in found['kinds'].items()),
                  '\n'.join('%s %s (%s)' % (d['schema'], d['name'],
                                            d['collection'])
                            for d in found['other']),
                  '\n'.join(i['text'] for i in found['issues']))
        return columns, values


def _change(change: dict) -> str:
    if change['change'] == 'added':
        return '%s: added %s' % (change['path'], _flat(change['new']))
    if change['change'] == 'removed':
        return '%s: removed %s' % (change['path'], _flat(change['old']))
    return '%s: %s -> %s' % (change['path'], _flat(change['old']),
                             _flat(change['new']))


def _flat(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True,
                          width=1 << 30).strip().removesuffix('\n...')


class DiffDesign(command.Lister):
    """Compare two versions of the design, document by document."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--base-version', metavar='<version>',
                            help='%s (default committed)' % VERSIONS)
        parser.add_argument('--diff-version', metavar='<version>',
                            help='%s (default buffer)' % VERSIONS)
        parser.add_argument('--all', action='store_true',
                            help='List unmodified documents too')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
        found = site_client(self).design_diff(parsed_args.base_version,
                                              parsed_args.diff_version)
        rows = [(d['collection'], d['schema'], d['name'], d['status'],
                 '\n'.join(_change(c) for c in d['changes']))
                for d in found['documents']
                if parsed_args.all or d['status'] != 'unmodified']
        return ('Collection', 'Schema', 'Name', 'Status', 'Changes'), rows


class CommitDesign(command.ShowOne):
    """Validate the buffer and commit it as the next revision."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--force', action='store_true',
                            help='Commit in spite of warnings (never of '
                                 'errors)')
        parser.add_argument('--dry-run', action='store_true',
                            help='Validate only; commit nothing')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], tuple[Any, ...]]:
        result = site_client(self).commit_design(parsed_args.force,
                                                 parsed_args.dry_run)
        columns = ('revision', 'documents', 'dry_run', 'forced', 'warnings')
        return columns, (result['revision'], result['documents'],
                         result['dry_run'], result['forced'],
                         '\n'.join(w['text'] for w in result['warnings']))
