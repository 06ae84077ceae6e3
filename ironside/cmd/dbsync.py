"""ironside-dbsync: upgrade the database schema, or show its version."""

from __future__ import annotations

import argparse
import sys

from oslo_config import cfg

from ironside.common import service
from ironside.common.conf import CONF
from ironside.db import migration


def _upgrade() -> None:
    migration.upgrade(CONF.command.revision)
    print('Database is at revision %s' % migration.version())


def _version() -> None:
    print(migration.version() or 'Database is not versioned')


def _add_commands(
        subparsers: argparse._SubParsersAction[argparse.ArgumentParser]
) -> None:
    parser = subparsers.add_parser('upgrade', help='Upgrade the schema.')
    parser.add_argument('--revision', default='head',
                        help='Revision to upgrade to (default: head).')
    parser.set_defaults(func=_upgrade)
    parser = subparsers.add_parser('version',
                                   help='Print the schema revision.')
    parser.set_defaults(func=_version)


command_opt = cfg.SubCommandOpt('command', title='Command',
                                help='Available commands',
                                handler=_add_commands)


def main() -> None:
    CONF.register_cli_opt(command_opt)
    service.prepare_service()
    try:
        CONF.command.func()
    except Exception as exc:
        print('ironside-dbsync failed: %s' % exc, file=sys.stderr)
        sys.exit(1)
