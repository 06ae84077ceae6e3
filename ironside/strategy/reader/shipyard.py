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
``node_roles`` (in a selector)
    The node's roles (``extra.roles``), as a Fuel task graph's groups
    select nodes.

Validation reports every problem at once. Each error names the
document, the group and the field, and for YAML input the line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

import jsonschema

from ironside.common import exception
from ironside.strategy.core import item_graph
from ironside.strategy.core.criteria import SuccessCriteria
from ironside.strategy.core.model import ONE_BY_ONE
from ironside.strategy.core.model import PARALLEL
from ironside.strategy.core.model import Group
from ironside.strategy.core.model import GroupStrategy
from ironside.strategy.core.model import Reference
from ironside.strategy.core.model import Strategy
from ironside.strategy.core.paths import Path
from ironside.strategy.core.selectors import LabelError
from ironside.strategy.core.selectors import Selector
from ironside.strategy.core.selectors import parse_label
from ironside.strategy.expressions import fields as expression_fields
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.errors import Place
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.registry import STRATEGY
from ironside.strategy.reader.registry import Kind
from ironside.strategy.reader.schema import envelope
from ironside.strategy.reader.schema import schema_errors
from ironside.strategy.reader.source import SourceError
from ironside.strategy.reader.source import read_documents as source_read

SHIPYARD_SCHEMA = 'shipyard/DeploymentStrategy/v1'
IRONSIDE_SCHEMA = 'ironside/DeploymentStrategy/v1'
SCHEMAS = (SHIPYARD_SCHEMA, IRONSIDE_SCHEMA)

_STRINGS = {'type': 'array', 'items': {'type': 'string'}}

SELECTOR_SCHEMA = {
    'type': 'object',
    'properties': {
        'node_names': _STRINGS,
        'node_tags': _STRINGS,
        'node_labels': {'type': 'array',
                        'items': {'type': ['string', 'object']}},
        'rack_names': _STRINGS,
        'node_roles': _STRINGS,
    },
    'additionalProperties': False,
}

STEP_SCHEMA = {
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
        'deploy_steps': {'type': 'array', 'items': STEP_SCHEMA},
        'deploy_templates': {'type': 'array',
                             'items': {'type': 'string', 'minLength': 1}},
    },
    'additionalProperties': False,
}

DOCUMENT_SCHEMA = envelope(list(SCHEMAS), {
    'type': 'object',
    'required': ['groups'],
    'properties': {'groups': {'type': 'array', 'items': _GROUP_SCHEMA}},
    'additionalProperties': False,
})

_VALIDATOR = jsonschema.Draft202012Validator(DOCUMENT_SCHEMA)
_SELECTORS_VALIDATOR = jsonschema.Draft202012Validator({
    'type': 'object',
    'required': ['selectors'],
    'properties': {'selectors': {'type': 'array', 'items': SELECTOR_SCHEMA}},
})

# Reading

def read(source: str | Mapping[str, Any], name: str = '<input>'
         ) -> tuple[Any, Mapping[Path, int]]:
    """The strategy document in ``source`` and its line numbers.

    ``source`` is YAML or JSON text (a stream of several documents may
    hold other documents beside the one strategy), or a parsed mapping.
    Raises InvalidStrategy when the text does not parse, or does not hold
    exactly one strategy document.
    """
    if not isinstance(source, str):
        return source, {}
    try:
        documents = [(d.data, d.lines) for d in source_read(source)]
    except SourceError as exc:
        raise exception.InvalidStrategy([DocumentError(
            name, 'not valid YAML or JSON: %s' % exc.problem,
            line=exc.line)]) from None
    strategies = [(d, lines) for d, lines in documents if KIND.reads(d)]
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

def groups_of(document: Any) -> list[Any]:
    """The items of a strategy's ``data.groups``, as written."""
    data = document.get('data') if isinstance(document, Mapping) else None
    groups = data.get('groups') if isinstance(data, Mapping) else None
    return groups if isinstance(groups, list) else []


def _locate(groups: list[Any]) -> Callable[[Path], Place]:
    """Errors under ``data.groups[i]`` belong to that group."""
    def locate(path: Path) -> Place:
        if len(path) >= 3 and path[:2] == ('data', 'groups') and \
                isinstance(path[2], int):
            group = groups[path[2]] if path[2] < len(groups) else None
            name = group.get('name') if isinstance(group, Mapping) else None
            if not isinstance(name, str) or not name:
                name = '#%d' % (path[2] + 1)
            return Place(path[3:], group=name)
        return Place(path)
    return locate


def _label_errors(selectors: Any, path: Path, errors: ErrorCollector) -> None:
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


def _dependency_graph(groups: list[Any], first: Mapping[str, int]
                      ) -> item_graph.ItemGraph:
    """The groups (by the first of each name) and the dependencies
    between groups that exist, as an item graph."""
    graph = item_graph.ItemGraph()
    for name in sorted(first):
        graph.add_item(name, item_graph.GROUP, (0, first[name]))
    for index, group in enumerate(groups):
        # A name that is not a string (a list, an expression) is the
        # schema's error, and unhashable.
        if not isinstance(group, Mapping) or \
                not isinstance(group.get('name'), str) or \
                group['name'] not in first:
            continue
        path = ('data', 'groups', index)
        for field, verb in (('depends_on', 'requires'),
                            ('required_for', 'required_for')):
            for at, other in enumerate(_names(group.get(field))):
                graph.add_reference(Reference(group['name'], verb, other,
                                              path + (field, at)))
    return graph


def _semantic_errors(groups: list[Any], errors: ErrorCollector) -> None:
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
    for cycle in _dependency_graph(groups, first).cycles():
        errors.add(('data', 'groups', first[cycle.items[0]], 'depends_on'),
                   str(cycle))


def locator(document: Any) -> Callable[[Path], Place]:
    """Which group of the document a path belongs to."""
    return _locate(groups_of(document))


def check(document: Any, lines: Mapping[Path, int] | None = None,
          name: str = '<input>') -> list[DocumentError]:
    """Every problem of a parsed document; empty if it is valid."""
    groups = groups_of(document)
    errors = ErrorCollector(document_name(document, name), lines,
                            _locate(groups))
    for index, group in enumerate(groups):
        for problem in expression_fields.check_expressions(
                group, ('data', 'groups', index), ids=('name',)):
            errors.add(problem.path, problem.detail)
    schema_errors(_VALIDATOR, document, errors, computed=True)
    _semantic_errors(groups, errors)
    return errors.sorted()


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
    errors = ErrorCollector(name)
    schema_errors(_SELECTORS_VALIDATOR, wrapped, errors)
    _label_errors(selectors, ('selectors',), errors)
    if errors.errors:
        raise exception.InvalidStrategy(errors.errors)
    return [Selector.from_dict(s) for s in selectors]


# The model

def _group(index: int, value: Mapping[str, Any],
           dependents_of: Mapping[str, list[str]]) -> Group:
    depends_on = list(dict.fromkeys(
        list(value.get('depends_on', ())) +
        dependents_of.get(value['name'], [])))
    strategy = value.get('strategy') or {}
    return Group(
        name=value['name'],
        critical=value.get('critical', False),
        depends_on=tuple(depends_on),
        selectors=tuple(Selector.from_dict(s)
                        for s in value.get('selectors', ())),
        success_criteria=SuccessCriteria.from_dict(
            value.get('success_criteria')),
        strategy=GroupStrategy(type=strategy.get('type', PARALLEL),
                               amount=strategy.get('amount')),
        deploy_steps=tuple(value.get('deploy_steps') or ()),
        deploy_templates=tuple(value.get('deploy_templates') or ()),
        index=index)


def build(document: Mapping[str, Any]) -> Strategy:
    """The model of a document that passed ``check``; a group field
    still holding a ``yaql_exp`` expression is left out of the model
    (the plan computes the document's expressions first)."""
    groups = [expression_fields.without_expressions(g)
              for g in document['data']['groups']]
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


KIND = Kind('DeploymentStrategy', SCHEMAS, check, build,
            runs_as=STRATEGY)
