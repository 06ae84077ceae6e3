"""``openstack site revision ...``: committed designs and their tags."""

from __future__ import annotations

import argparse
from typing import Any

from osc_lib.command import command

from ironside.osc.common import site_client


def _tags(revision: dict[str, Any]) -> str:
    return '\n'.join('%s (action %s)' % (t['tag'], t['action'])
                     if t['action'] else t['tag']
                     for t in revision['tags'])


class ListRevisions(command.Lister):
    """List the committed revisions of the design, with their tags."""

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
        rows = [(r['revision'], r['created_at'], r['documents'],
                 r['forced'], _tags(r))
                for r in site_client(self).list_revisions()]
        return ('Revision', 'Created At', 'Documents', 'Forced', 'Tags'), rows


class ShowRevision(command.ShowOne):
    """Show a revision: its collections, tags and site actions."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('revision', metavar='<revision>',
                            help='A revision number, or committed, '
                                 'successful-site-action or '
                                 'last-site-action')
        return parser

    def take_action(self, parsed_args: argparse.Namespace
                    ) -> tuple[tuple[str, ...], tuple[Any, ...]]:
        found = site_client(self).get_revision(parsed_args.revision)
        columns = ('revision', 'created_at', 'documents', 'collections',
                   'forced', 'warnings', 'tags', 'actions')
        values = (found['revision'], found['created_at'],
                  found['documents'],
                  '\n'.join('%s: %d' % item
                            for item in found['collections'].items()),
                  found['forced'], '\n'.join(found['warnings']),
                  _tags(found),
                  '\n'.join('%s %s: %s' % (a['uuid'], a['action'],
                                           a['result'] or a['state'])
                            for a in found['actions']))
        return columns, values
