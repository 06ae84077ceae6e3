"""Places inside a document: the path to a value and its line.

A path is the keys and list indexes leading to a value, e.g.
``('data', 'groups', 2, 'name')``; a document read from text keeps a map
from each path to the 1-based line where that key or list item starts
(:mod:`ironside.strategy.reader.source`), so that an error found anywhere
in the parsed value, by a reader or by an expression's check, can name
its field and its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

Path = tuple[Any, ...]


def line_of(lines: Mapping[Path, int], path: Path) -> int | None:
    """The line of ``path``, or of the nearest enclosing value that has one."""
    while True:
        if path in lines:
            return lines[path]
        if not path:
            return None
        path = path[:-1]


def field_name(path: Sequence[Any]) -> str:
    """A path as people write it: ``strategy.amount``, ``selectors[0]``."""
    text = ''
    for part in path:
        if isinstance(part, int):
            text += '[%d]' % part
        else:
            text += ('.' if text else '') + str(part)
    return text


def placed(message: str, document: str | None = None,
           group: str | None = None, task: str | None = None,
           field: str | None = None, node: str | None = None,
           line: int | None = None, source: str | None = None) -> str:
    """A problem as every site error names it: the file it was read from,
    its document, its group or task, its field, the node it failed on,
    then what is wrong and the line. The one way a document's errors
    read, whether a commit or an action found them."""
    where = []
    if source:
        where.append('file "%s"' % source)
    if document is not None:
        where.append('document "%s"' % document)
    if group is not None:
        where.append('group "%s"' % group)
    if task is not None:
        where.append('task "%s"' % task)
    if field:
        where.append('field "%s"' % field)
    if node is not None:
        where.append('node "%s"' % node)
    prefix = ', '.join(where) + ': ' if where else ''
    return '%s%s%s' % (prefix, message, ' (line %d)' % line if line else '')
