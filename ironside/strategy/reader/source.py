"""Documents from YAML or JSON text, with the line of everything in them.

A document's lines are kept as a map from a path (the keys and list
indexes leading to a value, e.g. ``('data', 'groups', 2, 'name')``) to the
1-based line where that key or list item starts, so that an error found
anywhere in the parsed value can name its line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import yaml

from ironside.strategy.core.paths import Path


class SourceError(ValueError):
    """The text is not YAML or JSON; ``line`` says where, if known."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


@dataclasses.dataclass(frozen=True)
class SourceDocument:
    """One parsed document and its line map (empty for a given mapping)."""

    data: Any
    lines: Mapping[Path, int] = dataclasses.field(default_factory=dict)


def _line_map(node: yaml.Node, path: Path, lines: dict[Path, int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[path + (key,)] = key_node.start_mark.line + 1
            _line_map(value_node, path + (key,), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _line_map(item, path + (index,), lines)


def line_map(node: yaml.Node) -> dict[Path, int]:
    """Line (1-based) of every mapping key and list item, by path."""
    lines: dict[Path, int] = {}
    _line_map(node, (), lines)
    return lines


def read_documents(text: str) -> list[SourceDocument]:
    """Every non-empty document of a YAML (or JSON) stream, in order.

    Raises SourceError when the text does not parse.
    """
    loader = yaml.SafeLoader(text)
    documents = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # check_node() said there is one
                break
            data = loader.construct_document(node)
            if data is not None:
                documents.append(SourceDocument(data, line_map(node)))
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        problem = getattr(exc, 'problem', None) or str(exc)
        raise SourceError(problem, mark.line + 1 if mark else None) \
            from None
    finally:
        loader.dispose()
    return documents
