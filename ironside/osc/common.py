"""What the ``openstack site`` commands share."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import IO
from typing import TYPE_CHECKING
from typing import Any

import yaml
from osc_lib import exceptions
from osc_lib.command import command

from ironside.osc import plugin

if TYPE_CHECKING:
    from osc_lib.command import command

    from ironside.osc.client import SiteClient


def read_file(path: str) -> str:
    """The text of ``path`` ("-" for stdin); CommandError naming the file
    if it cannot be read."""
    try:
        if path == '-':
            return sys.stdin.read()
        with open(path, encoding='utf-8') as stream:
            return stream.read()
    except OSError as exc:
        raise exceptions.CommandError('Cannot read %s: %s'
                                      % (path, exc.strerror)) from None


def file_name(path: str) -> str:
    """How the server names a file the command sends: its base name
    ("<stdin>" for "-"), as errors then name it."""
    return '<stdin>' if path == '-' else os.path.basename(path)


def show_validation(stream: IO[str], paths: list[str],
                    result: dict[str, Any]) -> int:
    """A validation's answer as a command prints it: its warnings, then
    "<path> is valid" or every error; the command's exit code."""
    for warning in result.get('warnings') or ():
        stream.write('warning: %s\n' % warning['text'])
    if result['valid']:
        stream.write('%s %s valid\n' % (', '.join(paths), 'is' if len(
            paths) == 1 else 'are'))
        return 0
    for error in result['errors']:
        stream.write(error['text'] + '\n')
    return 1


def site_client(cmd: command.Command) -> SiteClient:
    """The plugin's client: openstackclient's client manager holds it
    as an attribute named by the plugin's API_NAME, set at run time."""
    client: SiteClient = getattr(cmd.app.client_manager, plugin.API_NAME)
    return client


class FileArgument(command.Command):
    """Commands that read a document from a file."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('file', metavar='<file>',
                            help='YAML or JSON document ("-" for stdin)')
        return parser


def _not_yaml(path: str, exc: yaml.YAMLError) -> exceptions.CommandError:
    """The error naming the file as given, the line and the column."""
    mark = getattr(exc, 'problem_mark', None)
    where = ', line %d, column %d' % (mark.line + 1, mark.column + 1) \
        if mark is not None else ''
    problem = getattr(exc, 'problem', None) or str(exc)
    return exceptions.CommandError('%s%s: not valid YAML: %s'
                                   % (path, where, problem))


def load_yaml_file(path: str) -> Any:
    """The YAML (or JSON) document in ``path`` ("-" for stdin);
    CommandError naming the file and the line if it is not YAML."""
    text = read_file(path)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _not_yaml(path, exc) from None


def read_yaml_file(path: str) -> str:
    """The text of ``path``, a stream of YAML (or JSON) documents, to
    send as it is; CommandError naming the file, the line and the column
    if it is not YAML (the server would only know it as a text)."""
    text = read_file(path)
    try:
        for _document in yaml.safe_load_all(text):
            pass
    except yaml.YAMLError as exc:
        raise _not_yaml(path, exc) from None
    return text


def named_documents(paths: Sequence[str]) -> list[dict[str, str]]:
    """Files as the site API takes a list of them: each one's text, read
    and checked by :func:`read_yaml_file`, under :func:`file_name`."""
    return [{'name': file_name(path), 'document': read_yaml_file(path)}
            for path in paths]
