"""Structured values of ``openstack site`` show commands: words in a
table, the value itself with ``-f json`` or ``-f yaml``."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

import yaml
from cliff import columns

from ironside.osc import report_text


def to_yaml(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=False,
                          sort_keys=False).rstrip('\n')


class Column(columns.FormattableColumn):
    """``value`` as ``text`` in a table (YAML by default)."""

    def __init__(self, value: Any, text: str | None = None) -> None:
        super().__init__(value)
        self.text = to_yaml(value) if text is None else text

    def human_readable(self) -> str:
        return self.text

    def machine_readable(self) -> Any:
        return self._value


# How the report's structured fields read in a table.
_REPORT_TEXT: dict[str, Callable[[Mapping[str, Any]], str]] = {
    'groups': lambda r: '\n'.join(report_text.group_lines(r)),
    'log': lambda r: '\n'.join(entry['message'] for entry in r['log']),
    'nodes': lambda r: '\n'.join(report_text.node_lines(r)),
    'node_counts': report_text.counts_text,
    'options': report_text.options_text,
    'warnings': lambda r: '\n'.join(r['warnings']),
}


def report_columns(report: Mapping[str, Any], nodes: bool = True
                   ) -> tuple[tuple[str, ...], list[Any]]:
    """A site action's report as a show command's columns and values:
    with -f json or yaml, the report as the API answers it."""
    names = tuple(name for name in report if nodes or name != 'nodes')
    values = []
    for name in names:
        value = report[name]
        if name in _REPORT_TEXT and value is not None:
            value = Column(value, _REPORT_TEXT[name](report))
        elif isinstance(value, (dict, list)):
            value = Column(value)
        values.append(value)
    return names, values
