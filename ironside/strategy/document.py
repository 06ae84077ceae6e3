"""DeploymentStrategy documents: reading, validation, and the model.

A document is Shipyard's, unchanged (``schema:
shipyard/DeploymentStrategy/v1``, ``metadata.name``, ``data.groups``), or
the same under Ironside's schema name ``ironside/DeploymentStrategy/v1``.
Both accept Ironside's extensions to a group:

``strategy``
    ``{type: one_by_one}``, or ``{type: parallel, amount: N}`` (N nodes
    per wave; without ``amount`` all nodes in one wave). Default:
    parallel.
``required_for``
    Fuel's reverse of ``depends_on``: the groups that depend on this one.
``deploy_steps``, ``deploy_templates``
    Deploy steps, or names of deploy templates, every node of the group
    is deployed with.

Validation reports every problem at once. Each error names the
document, the group and the field, and for YAML input the line.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import jsonschema
import networkx as nx
import yaml

from ironside.common import exception
from ironside.strategy.criteria import SuccessCriteria
from ironside.strategy.selectors import LabelError
from ironside.strategy.selectors import Selector
from ironside.strategy.selectors import parse_label

SHIPYARD_SCHEMA = 'shipyard/DeploymentStrategy/v1'
IRONSIDE_SCHEMA = 'ironside/DeploymentStrategy/v1'
SCHEMAS = (SHIPYARD_SCHEMA, IRONSIDE_SCHEMA)

ONE_BY_ONE = 'one_by_one'
PARALLEL = 'parallel'

_STRINGS = {'type': 'array', 'items': {'type': 'string'}}

SELECTOR_SCHEMA = {
    'type': 'object',
    'properties': {
        'node_names': _STRINGS,
        'node_tags': _STRINGS,
        'node_labels': {'type': 'array',
                        'items': {'type': ['string', 'object']}},
        'rack_names': _STRINGS,
    },
    'additionalProperties': False,
}

_STEP_SCHEMA = {
    'type': 'object',
    'required': ['interface', 'step', 'priority'],
    'properties': {
        'interface': {'type': 'string', 'minLength': 1},
        'step': {'type': 'string', 'minLength': 1},
        'args': {'type': 'object'},
        'priority': {'type': 'integer', 'minimum': 0},
    },
    'additionalProperties': False,
}

_GROUP_SCHEMA = {
    'type': 'object',
    'required': ['name', 'critical', 'depends_on', 'selectors'],
    'properties': {
        'name': {'type': 'string', 'minLength': 1},
        'critical': {'type': 'boolean'},
        'depends_on': _STRINGS,
        'required_for': _STRINGS,
        'selectors': {'type': 'array', 'items': SELECTOR_SCHEMA},
        'success_criteria': {
            'type': ['object', 'null'],
            'properties': {
                'percent_successful_nodes': {'type': 'number',
                                             'minimum': 0, 'maximum': 100},
                'minimum_successful_nodes': {'type': 'integer',
                                             'minimum': 0},
                'maximum_failed_nodes': {'type': 'integer', 'minimum': 0},
            },
            'additionalProperties': False,
        },
        'strategy': {
            'type': 'object',
            'required': ['type'],
            'properties': {
                'type': {'enum': [ONE_BY_ONE, PARALLEL]},
                'amount': {'type': 'integer', 'minimum': 1},
            },
            'additionalProperties': False,
        },
        'deploy_steps': {'type': 'array', 'items': _STEP_SCHEMA},
        'deploy_templates': {'type': 'array',
                             'items': {'type': 'string', 'minLength': 1}},
    },
    'additionalProperties': False,
}

DOCUMENT_SCHEMA = {
    'type': 'object',
    'required': ['schema', 'metadata', 'data'],
    'properties': {
        'schema': {'enum': list(SCHEMAS)},
        'metadata': {
            'type': 'object',
            'required': ['name'],
            'properties': {'name': {'type': 'string', 'minLength': 1}},
        },
        'data': {
            'type': 'object',
            'required': ['groups'],
            'properties': {'groups': {'type': 'array',
                                      'items': _GROUP_SCHEMA}},
            'additionalProperties': False,
        },
    },
    'additionalProperties': False,
}

_VALIDATOR = jsonschema.Draft202012Validator(DOCUMENT_SCHEMA)
_SELECTORS_VALIDATOR = jsonschema.Draft202012Validator({
    'type': 'object',
    'required': ['selectors'],
    'properties': {'selectors': {'type': 'array', 'items': SELECTOR_SCHEMA}},
})

_TYPE_NAMES = {'object': 'a mapping', 'array': 'a list', 'string': 'a string',
               'boolean': 'true or false', 'integer': 'an integer',
               'number': 'a number', 'null': 'null'}

Path = tuple[Any, ...]


@dataclasses.dataclass(frozen=True)
class DocumentError:
    """One problem in a document, and where it is."""

    document: str
    message: str
    group: str | None = None
    field: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = ['document "%s"' % self.document]
        if self.group is not None:
            where.append('group "%s"' % self.group)
        if self.field:
            where.append('field "%s"' % self.field)
        line = ' (line %d)' % self.line if self.line else ''
        return '%s: %s%s' % (', '.join(where), self.message, line)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class GroupStrategy:
    type: str = PARALLEL
    amount: int | None = None

    def wave_size(self, nodes: int) -> int:
        if self.type == ONE_BY_ONE:
            return 1
        return self.amount or max(nodes, 1)

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = {'type': self.type}
        if self.amount:
            value['amount'] = self.amount
        return value


@dataclasses.dataclass(frozen=True)
class Group:
    name: str
    critical: bool
    depends_on: tuple[str, ...]
    selectors: tuple[Selector, ...]
    success_criteria: SuccessCriteria
    strategy: GroupStrategy
    deploy_steps: tuple[dict, ...] = ()
    deploy_templates: tuple[str, ...] = ()
    # Position in the document (0-based): the last tie-breaker of order.
    index: int = 0


@dataclasses.dataclass(frozen=True)
class Strategy:
    name: str
    schema: str
    groups: tuple[Group, ...]
    # The document as validated, for storing.
    document: dict

    def group(self, name: str) -> Group:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)


# Reading

def _line_map(node: yaml.Node, path: Path = (),
              lines: dict[Path, int] | None = None) -> dict[Path, int]:
    """Line (1-based) of every mapping key and list item, by path."""
    lines = {} if lines is None else lines
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[path + (key,)] = key_node.start_mark.line + 1
            _line_map(value_node, path + (key,), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _line_map(item, path + (index,), lines)
    return lines


def _yaml_documents(text: str) -> list[tuple[Any, dict[Path, int]]]:
    loader = yaml.SafeLoader(text)
    documents = []
    try:
        while loader.check_node():
            node = loader.get_node()
            documents.append((loader.construct_document(node),
                              _line_map(node)))
    finally:
        loader.dispose()
    return documents


def _is_strategy(document: Any) -> bool:
    return isinstance(document, Mapping) and \
        document.get('schema') in SCHEMAS


def read(source: str | Mapping[str, Any], name: str = '<input>'
         ) -> tuple[Any, dict[Path, int]]:
    """The strategy document in ``source`` and its line numbers.

    ``source`` is YAML or JSON text (a stream of several documents may
    hold other documents beside the one strategy), or a parsed mapping.
    Raises InvalidStrategy when the text does not parse, or does not hold
    exactly one strategy document.
    """
    if not isinstance(source, str):
        return source, {}
    try:
        documents = _yaml_documents(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        problem = getattr(exc, 'problem', None) or str(exc)
        raise exception.InvalidStrategy([DocumentError(
            name, 'not valid YAML or JSON: %s' % problem,
            line=mark.line + 1 if mark else None)]) from None
    documents = [(d, lines) for d, lines in documents if d is not None]
    strategies = [(d, lines) for d, lines in documents if _is_strategy(d)]
    if len(strategies) == 1:
        return strategies[0]
    if not strategies and len(documents) == 1:
        return documents[0]
    if not strategies:
        message = 'no document with schema %s or %s' % SCHEMAS
    else:
        message = '%d DeploymentStrategy documents (%s); give one' % (
            len(strategies), ', '.join(
                str(d.get('metadata', {}).get('name')) for d, _ in strategies))
    raise exception.InvalidStrategy([DocumentError(name, message)])


# Validation

def _document_name(document: Any, default: str) -> str:
    if isinstance(document, Mapping):
        metadata = document.get('metadata')
        if isinstance(metadata, Mapping) and \
                isinstance(metadata.get('name'), str) and metadata['name']:
            return metadata['name']
    return default


def _groups(document: Any) -> list:
    data = document.get('data') if isinstance(document, Mapping) else None
    groups = data.get('groups') if isinstance(data, Mapping) else None
    return groups if isinstance(groups, list) else []


def _field(path: Sequence[Any]) -> str:
    text = ''
    for part in path:
        if isinstance(part, int):
            text += '[%d]' % part
        else:
            text += ('.' if text else '') + str(part)
    return text


def _line(lines: Mapping[Path, int], path: Path) -> int | None:
    while True:
        if path in lines:
            return lines[path]
        if not path:
            return None
        path = path[:-1]


class _Errors:
    """Collects errors, placing each in its group, field and line."""

    def __init__(self, document: Any, name: str,
                 lines: Mapping[Path, int]) -> None:
        self.groups = _groups(document)
        self.name = name
        self.lines = lines
        self.errors: list[DocumentError] = []

    def group_name(self, index: int) -> str:
        group = self.groups[index] if index < len(self.groups) else None
        if isinstance(group, Mapping) and isinstance(group.get('name'), str) \
                and group['name']:
            return group['name']
        return '#%d' % (index + 1)

    def add(self, path: Path, message: str) -> None:
        path = tuple(path)
        group = None
        field_path: Path = path
        if len(path) >= 3 and path[:2] == ('data', 'groups') and \
                isinstance(path[2], int):
            group = self.group_name(path[2])
            field_path = path[3:]
        self.errors.append(DocumentError(
            self.name, message, group=group, field=_field(field_path) or None,
            line=_line(self.lines, path)))


def _describe(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def _schema_errors(validator: jsonschema.Validator, document: Any,
                   errors: _Errors) -> None:
    seen = set()
    for error in validator.iter_errors(document):
        path = tuple(error.absolute_path)
        instance = error.instance
        kind = error.validator
        if kind == 'required':
            for name in error.validator_value:
                if isinstance(instance, Mapping) and name not in instance \
                        and (path, name) not in seen:
                    seen.add((path, name))
                    errors.add(path + (name,), 'missing required field')
        elif kind == 'additionalProperties':
            known = set(error.schema.get('properties', {}))
            for name in sorted(set(instance) - known, key=str):
                errors.add(path + (name,), 'unknown field')
        elif kind == 'type':
            wanted = error.validator_value
            wanted = wanted if isinstance(wanted, list) else [wanted]
            errors.add(path, 'must be %s, not %s' % (
                ' or '.join(_TYPE_NAMES.get(w, w) for w in wanted),
                _describe(instance)))
        elif kind == 'enum':
            errors.add(path, 'must be one of %s, not %s' % (
                ', '.join(error.validator_value), _describe(instance)))
        elif kind == 'minimum':
            errors.add(path, 'must be at least %s, not %s'
                       % (error.validator_value, _describe(instance)))
        elif kind == 'maximum':
            errors.add(path, 'must be at most %s, not %s'
                       % (error.validator_value, _describe(instance)))
        elif kind == 'minLength':
            errors.add(path, 'must not be empty')
        else:
            errors.add(path, error.message)


def _label_errors(selectors: Any, path: Path, errors: _Errors) -> None:
    if not isinstance(selectors, list):
        return
    for s_index, selector in enumerate(selectors):
        labels = selector.get('node_labels') \
            if isinstance(selector, Mapping) else None
        if not isinstance(labels, list):
            continue
        for l_index, label in enumerate(labels):
            if not isinstance(label, (str, Mapping)):
                continue
            try:
                parse_label(label)
            except LabelError as exc:
                errors.add(path + (s_index, 'node_labels', l_index),
                           str(exc))


def _names(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, str)]


def _dependency_graph(groups: list) -> nx.DiGraph:
    """Edges dependency → dependent, between groups that exist."""
    graph = nx.DiGraph()
    names = {g['name'] for g in groups if isinstance(g, Mapping) and
             isinstance(g.get('name'), str)}
    graph.add_nodes_from(sorted(names))
    for group in groups:
        if not isinstance(group, Mapping) or group.get('name') not in names:
            continue
        for dependency in _names(group.get('depends_on')):
            if dependency in names:
                graph.add_edge(dependency, group['name'])
        for dependent in _names(group.get('required_for')):
            if dependent in names:
                graph.add_edge(group['name'], dependent)
    return graph


def _semantic_errors(groups: list, errors: _Errors) -> None:
    first: dict[str, int] = {}
    for index, group in enumerate(groups):
        if not isinstance(group, Mapping):
            continue
        name = group.get('name')
        path = ('data', 'groups', index)
        if isinstance(name, str) and name:
            if name in first:
                errors.add(path + ('name',), 'duplicate group name; group '
                           '#%d has it too' % (first[name] + 1))
            else:
                first[name] = index
    for index, group in enumerate(groups):
        if not isinstance(group, Mapping):
            continue
        path = ('data', 'groups', index)
        for key, what in (('depends_on', 'depends on'),
                          ('required_for', 'is required for')):
            values = group.get(key)
            for v_index, other in enumerate(values if isinstance(
                    values, list) else []):
                if isinstance(other, str) and other not in first:
                    errors.add(path + (key, v_index),
                               '%s unknown group "%s"' % (what, other))
        _label_errors(group.get('selectors'), path + ('selectors',), errors)
        strategy = group.get('strategy')
        if isinstance(strategy, Mapping) and \
                strategy.get('type') == ONE_BY_ONE and 'amount' in strategy:
            errors.add(path + ('strategy', 'amount'),
                       'amount is only allowed with type parallel')
    graph = _dependency_graph(groups)
    for component in nx.strongly_connected_components(graph):
        if len(component) == 1:
            (single,) = component
            if not graph.has_edge(single, single):
                continue
        cycle = [edge[0] for edge in
                 nx.find_cycle(graph.subgraph(component))]
        start = min(cycle, key=lambda n: first[n])
        at = cycle.index(start)
        cycle = cycle[at:] + cycle[:at]
        errors.add(('data', 'groups', first[start], 'depends_on'),
                   'dependency cycle: %s' % ' -> '.join(cycle + [start]))


def check(document: Any, lines: Mapping[Path, int] | None = None,
          name: str = '<input>') -> list[DocumentError]:
    """Every problem of a parsed document; empty if it is valid."""
    errors = _Errors(document, _document_name(document, name), lines or {})
    _schema_errors(_VALIDATOR, document, errors)
    _semantic_errors(_groups(document), errors)
    return sorted(errors.errors, key=lambda e: (e.line or 0,))


def validate(source: str | Mapping[str, Any], name: str = '<input>'
             ) -> list[DocumentError]:
    """Every problem of a document given as text or mapping."""
    try:
        document, lines = read(source, name)
    except exception.InvalidStrategy as exc:
        return list(exc.errors)
    return check(document, lines, name)


def check_selectors(selectors: Any, name: str = 'node filter'
                    ) -> list[Selector]:
    """Selectors given on their own (the node filter API), validated."""
    wrapped = {'selectors': selectors}
    errors = _Errors(wrapped, name, {})
    _schema_errors(_SELECTORS_VALIDATOR, wrapped, errors)
    _label_errors(selectors, ('selectors',), errors)
    if errors.errors:
        raise exception.InvalidStrategy(errors.errors)
    return [Selector.from_dict(s) for s in selectors]


# The model

def _group(index: int, value: Mapping[str, Any],
           dependents_of: Mapping[str, list[str]]) -> Group:
    depends_on = list(dict.fromkeys(
        list(value['depends_on']) + dependents_of.get(value['name'], [])))
    strategy = value.get('strategy') or {}
    return Group(
        name=value['name'],
        critical=value['critical'],
        depends_on=tuple(depends_on),
        selectors=tuple(Selector.from_dict(s) for s in value['selectors']),
        success_criteria=SuccessCriteria.from_dict(
            value.get('success_criteria')),
        strategy=GroupStrategy(type=strategy.get('type', PARALLEL),
                               amount=strategy.get('amount')),
        deploy_steps=tuple(value.get('deploy_steps') or ()),
        deploy_templates=tuple(value.get('deploy_templates') or ()),
        index=index)


def build(document: Mapping[str, Any]) -> Strategy:
    """The model of a document that passed ``check``."""
    groups = document['data']['groups']
    dependents_of: dict[str, list[str]] = {}
    for group in groups:
        for dependent in group.get('required_for') or ():
            dependents_of.setdefault(dependent, []).append(group['name'])
    return Strategy(
        name=document['metadata']['name'], schema=document['schema'],
        groups=tuple(_group(i, g, dependents_of)
                     for i, g in enumerate(groups)),
        document=json.loads(json.dumps(document, default=str)))


def load(source: str | Mapping[str, Any], name: str = '<input>'
         ) -> Strategy:
    """Read and validate a document; InvalidStrategy lists every error."""
    document, lines = read(source, name)
    errors = check(document, lines, name)
    if errors:
        raise exception.InvalidStrategy(errors)
    return build(document)
