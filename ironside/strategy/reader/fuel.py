"""Fuel task graphs: reading, validation, and the model.

A task graph is Fuel's tasks.yaml as written: a list of items, each a
``group``, a ``stage`` or a deployment task. It is given either as that
plain list, or as a site design document that holds the list::

    schema: ironside/TaskGraph/v1
    metadata: {name: site-tasks}
    data:
      tasks: [...]

(``data`` is a mapping so that the document can grow fields besides its
tasks.) A plain list is named by whoever gives it (its file name).

Items:

``type: group``
    ``role`` (the roles of its nodes; a node with a role named as the
    group is a member too, as in Fuel, where groups were named after
    roles), ``requires``, ``required_for``, ``tasks``,
    ``parameters.strategy`` (``one_by_one``, or ``parallel`` with an
    optional ``amount``).
``type: stage``
    ``requires``, ``required_for``. ``pre_deployment``, ``deployment``
    (Fuel also writes ``deploy``) and ``post_deployment`` always exist.
deployment tasks
    ``shell``, ``upload_file``, ``rsync``, ``puppet`` (run on the node
    over SSH once it is deployed), ``step`` (a deploy step of the node's
    hardware interfaces: ``parameters`` ``interface``, ``step``, ``args``,
    ``priority``), ``skipped`` (Fuel's task that does nothing), and the
    types of installed task runners; with ``groups`` and/or ``role``
    (``'*'``: every node), ``stage``, ``requires``, ``required_for``,
    ``parameters``, ``condition`` (true or false; false leaves the task
    out) and Ironside's ``idempotent`` (see :class:`.model.Task`);
    Fuel's ``cross-depends`` and ``cross-depended-by`` (a list of
    ``{name: task, role: '*' | 'self' | roles, policy: all | any}``:
    this task's runs wait for those of ``name`` on the nodes of
    ``role``, or, for ``cross-depended-by``, the runs of ``name`` on the
    nodes of ``role`` wait for this task's), and ``strategy`` (as a
    group's: how many runs of the task go at once across its nodes).

Any field but ``id``, at any depth, may be a ``yaql_exp`` expression
(:mod:`ironside.strategy.expressions`): here its syntax and functions
are checked; what the schema says of its value is checked once the plan
has computed it.

What a document alone can tell is checked here: errors for what is
wrong whatever else the site design holds (the YAML, the fields and
their types, unknown task types, duplicate ids, references to an item of
the wrong kind, cycles); warnings for what only the rest of the design
can settle: a reference to a name the document does not define, and a
task without a type (an outline, as the spec's cross-reference example
says of itself). Such a document loads; the plan built from all of an
action's documents (:mod:`ironside.strategy.plan.action_plan`) refuses what is
still unresolved.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

import jsonschema

from ironside.common import exception
from ironside.strategy.core import item_graph
from ironside.strategy.core import model
from ironside.strategy.core.paths import Path
from ironside.strategy.core.selectors import Selector
from ironside.strategy.expressions import fields as expression_fields
from ironside.strategy.reader import shipyard
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.errors import Place
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.registry import TASK_GRAPH
from ironside.strategy.reader.registry import Kind
from ironside.strategy.reader.schema import envelope
from ironside.strategy.reader.schema import schema_errors
from ironside.strategy.reader.source import SourceError
from ironside.strategy.reader.source import read_documents as source_read
from ironside.strategy.tasks import parameters as task_parameters
from ironside.strategy.tasks import registry as task_registry

SCHEMA = 'ironside/TaskGraph/v1'

GROUP = 'group'
STAGE = 'stage'
STRUCTURE_TYPES = (GROUP, STAGE)
# Task types this module knows the parameters of.
BUILTIN_TASK_TYPES = tuple(task_parameters.SCHEMAS) + (model.STEP,
                                                       model.SKIPPED)

_NAMES = {'type': 'array', 'items': {'type': 'string', 'minLength': 1}}
_COMMON = {
    'id': {'type': 'string', 'minLength': 1},
    'type': {'type': 'string', 'minLength': 1},
    'requires': _NAMES,
    'required_for': _NAMES,
    'description': {'type': 'string'},
}

_STRATEGY = {
    'type': 'object',
    'required': ['type'],
    'properties': {
        'type': {'enum': [model.ONE_BY_ONE, model.PARALLEL]},
        'amount': {'type': 'integer', 'minimum': 1},
    },
    'additionalProperties': False,
}
_ROLES = {'type': ['string', 'array'],
          'items': {'type': 'string', 'minLength': 1}}
# Fuel's cross-node dependencies: runs of task ``name`` on the nodes of
# ``role`` ('*': every node, 'self': the task's own node).
_CROSS = {
    'type': 'array',
    'items': {
        'type': 'object',
        'required': ['name'],
        'properties': {
            'name': {'type': 'string', 'minLength': 1},
            'role': _ROLES,
            'policy': {'enum': [model.ALL, model.ANY]},
        },
        'additionalProperties': False,
    },
}

_GROUP_SCHEMA = {
    'type': 'object',
    'required': ['id'],
    'properties': dict(_COMMON, **{
        'role': _NAMES,
        'tasks': _NAMES,
        'parameters': {
            'type': 'object',
            'properties': {'strategy': _STRATEGY},
            'additionalProperties': False,
        },
    }),
    'additionalProperties': False,
}

_STAGE_SCHEMA = {
    'type': 'object',
    'required': ['id'],
    'properties': dict(_COMMON),
    'additionalProperties': False,
}

_TASK_SCHEMA = {
    'type': 'object',
    'required': ['id'],
    'properties': dict(_COMMON, **{
        'groups': _NAMES,
        'role': _ROLES,
        'stage': {'type': 'string', 'minLength': 1},
        'parameters': {'type': 'object'},
        'condition': {'type': 'boolean'},
        'idempotent': {'type': 'boolean'},
        model.CROSS_DEPENDS: _CROSS,
        model.CROSS_DEPENDED_BY: _CROSS,
        'strategy': _STRATEGY,
    }),
    'additionalProperties': False,
}

# A deploy step, as a strategy group's deploy_steps give it; the step's
# own priority when the task gives none.
STEP_SCHEMA = dict(shipyard.STEP_SCHEMA, required=['interface', 'step'])

_WRAPPER_SCHEMA = envelope([SCHEMA], {
    'type': 'object',
    'required': ['tasks'],
    'properties': {'tasks': {'type': 'array'}},
    'additionalProperties': False,
})

_VALIDATORS = {name: jsonschema.Draft202012Validator(schema) for name, schema
               in (('group', _GROUP_SCHEMA), ('stage', _STAGE_SCHEMA),
                   ('task', _TASK_SCHEMA), ('wrapper', _WRAPPER_SCHEMA))}
_PARAMETER_VALIDATORS = {
    name: jsonschema.Draft202012Validator(schema) for name, schema in
    list(task_parameters.SCHEMAS.items()) + [(model.STEP, STEP_SCHEMA)]}

# Fields holding names of other items, and what each must name.
_REFERENCE_FIELDS = {'requires': None, 'required_for': None,
                     'groups': GROUP, 'tasks': 'task', 'stage': STAGE,
                     model.CROSS_DEPENDS: 'task',
                     model.CROSS_DEPENDED_BY: 'task'}


def task_types() -> tuple[str, ...]:
    """Every task type a graph may use: Ironside's and its runners'."""
    return tuple(dict.fromkeys(BUILTIN_TASK_TYPES +
                               tuple(sorted(task_registry.runner_types()))))


# Reading

def read(source: str | Any, name: str = '<input>'
         ) -> tuple[Any, dict[Path, int]]:
    """The task graph in ``source`` (YAML or JSON text, or parsed) and
    its line numbers. Raises InvalidTaskGraph when the text does not
    parse or holds more than one document."""
    if not isinstance(source, str):
        return source, {}
    try:
        documents = source_read(source)
    except SourceError as exc:
        raise exception.InvalidTaskGraph([DocumentError(
            name, 'not valid YAML or JSON: %s' % exc.problem,
            line=exc.line)]) from None
    if len(documents) != 1:
        raise exception.InvalidTaskGraph([DocumentError(
            name, 'holds %d documents; give one task graph'
                  % len(documents))])
    return documents[0].data, dict(documents[0].lines)


def _items_path(document: Any) -> Path:
    return () if isinstance(document, list) else ('data', 'tasks')


def items_of(document: Any) -> list[Any]:
    """The items of a task graph document (wrapped or a plain list)."""
    if isinstance(document, list):
        return document
    data = document.get('data') if isinstance(document, Mapping) else None
    items = data.get('tasks') if isinstance(data, Mapping) else None
    return items if isinstance(items, list) else []


def _kind(item: Any) -> str:
    kind = item.get('type') if isinstance(item, Mapping) else None
    return kind if kind in STRUCTURE_TYPES else 'task'


def _item_id(item: Any) -> str | None:
    value = item.get('id') if isinstance(item, Mapping) else None
    if not isinstance(value, str) or not value:
        return None
    return model.stage_name(value) if _kind(item) == STAGE else value


def locator(document: Any) -> Callable[[Path], Place]:
    """Which item of the document a path belongs to."""
    prefix = _items_path(document)
    items = items_of(document)

    def locate(path: Path) -> Place:
        if len(path) > len(prefix) and path[:len(prefix)] == prefix and \
                isinstance(path[len(prefix)], int):
            index = path[len(prefix)]
            item = items[index] if index < len(items) else None
            name = _item_id(item) or '#%d' % (index + 1)
            rest = path[len(prefix) + 1:]
            if _kind(item) == GROUP:
                return Place(rest, group=name)
            return Place(rest, task=name)
        return Place(path)
    return locate


class _Prefixed:
    """An error collector seen from inside one value of the document."""

    def __init__(self, errors: ErrorCollector, prefix: Path) -> None:
        self.errors = errors
        self.prefix = prefix

    def add(self, path: Path, message: str) -> None:
        self.errors.add(self.prefix + tuple(path), message)


# Validation

def check(document: Any, lines: Mapping[Path, int] | None = None,
          name: str = '<input>', expressions: bool = True,
          elsewhere: Mapping[str, str] | None = None
          ) -> tuple[list[DocumentError], list[DocumentError]]:
    """Every error, and every warning, of a parsed task graph;
    ``expressions``: whether its ``yaql_exp`` expressions are checked
    too (not when the plan checks what they computed: those left are
    computed per node, and were checked at commit); ``elsewhere``: the
    items (name: kind) documents read with it define, which its
    references may name without a warning."""
    name = document_name(document, name)
    errors = ErrorCollector(name, lines, locator(document))
    warnings = ErrorCollector(name, lines, locator(document))
    if isinstance(document, Mapping):
        schema_errors(_VALIDATORS['wrapper'], document, errors)
    elif not isinstance(document, list):
        errors.add((), 'a task graph is a list of tasks, or a document '
                       'with schema %s' % SCHEMA)
        return errors.sorted(), []
    prefix = _items_path(document)
    items = items_of(document)
    known_types = task_types()
    for index, item in enumerate(items):
        _check_item(item, prefix + (index,), known_types, errors, warnings,
                    expressions)
    ids = _check_ids(items, prefix, errors)
    _check_references(items, prefix, {**(elsewhere or {}), **ids}, errors,
                      warnings)
    if not errors.errors:
        graph = build(document, lines, name)
        for cycle in item_graph.of_graphs([graph]).cycles():
            path = cycle.reference.path if cycle.reference else \
                graph.paths[cycle.items[0]]
            errors.add(path, str(cycle))
    return errors.sorted(), warnings.sorted()


def _check_item(item: Any, path: Path, known_types: tuple[str, ...],
                errors: ErrorCollector, warnings: ErrorCollector,
                expressions: bool = True) -> None:
    if not isinstance(item, Mapping):
        errors.add(path, 'must be a mapping (a group, a stage or a task)')
        return
    kind = _kind(item)
    for problem in expression_fields.check_expressions(item) \
            if expressions else ():
        errors.add(path + problem.path, problem.detail)
    schema_errors(_VALIDATORS[kind], item, _Prefixed(errors, path),
                  computed=True)
    if kind == GROUP:
        parameters = item.get('parameters')
        if isinstance(parameters, Mapping):
            _check_strategy(parameters.get('strategy'),
                            path + ('parameters', 'strategy'), errors)
        return
    if kind == STAGE:
        return
    task_type = item.get('type')
    if task_type is None:
        warnings.add(path, 'no type: an outline of a task, which can not '
                           'run until it has one')
    elif isinstance(task_type, str) and task_type not in known_types:
        errors.add(path + ('type',), 'unknown task type "%s" (known: %s)'
                   % (task_type, ', '.join(known_types)))
    _check_strategy(item.get('strategy'), path + ('strategy',), errors)
    role = item.get('role')
    if isinstance(role, str) and role != model.EVERY_NODE:
        errors.add(path + ('role',), 'must be a list of roles, or "*" '
                                     'for every node')
    parameters = item.get('parameters')
    # A type that is not a string is a schema error already.
    validator = _PARAMETER_VALIDATORS.get(task_type) \
        if isinstance(task_type, str) else None
    if validator is not None and isinstance(parameters, Mapping):
        given = {k: v for k, v in parameters.items() if v is not None}
        schema_errors(validator, given,
                      _Prefixed(errors, path + ('parameters',)),
                      computed=True)
    elif validator is not None and parameters is None and \
            validator.schema.get('required'):
        errors.add(path + ('parameters',), 'missing required field')


def _check_strategy(strategy: Any, path: Path,
                    errors: ErrorCollector) -> None:
    if isinstance(strategy, Mapping) and \
            strategy.get('type') == model.ONE_BY_ONE and 'amount' in strategy:
        errors.add(path + ('amount',),
                   'amount is only allowed with type parallel')


def parameter_errors(task_type: str, parameters: Mapping[str, Any]
                     ) -> list[str]:
    """What is wrong with a task's parameters computed for one node."""
    # A type that is not a string is a schema error already.
    validator = _PARAMETER_VALIDATORS.get(task_type) \
        if isinstance(task_type, str) else None
    if validator is None:
        return []
    collector = ErrorCollector('parameters')
    given = {k: v for k, v in parameters.items() if v is not None}
    schema_errors(validator, given, collector)
    return ['%s: %s' % (e.field, e.message) if e.field else e.message
            for e in collector.sorted()]


def _check_ids(items: list[Any], prefix: Path,
               errors: ErrorCollector) -> dict[str, str]:
    """Item id → kind; errors for duplicates and reserved names."""
    ids: dict[str, str] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        name = _item_id(item)
        if name is None:
            continue
        kind = _kind(item)
        path = prefix + (index, 'id')
        if kind != STAGE and (name in model.BUILTIN_STAGES or
                              name in model.STAGE_ALIASES):
            errors.add(path, '"%s" is the name of a stage' % name)
        elif name in first:
            errors.add(path, 'duplicate id; item #%d has it too'
                       % (first[name] + 1))
        else:
            first[name] = index
            ids[name] = kind
    return ids


def item_kinds(document: Any) -> dict[str, str]:
    """The groups, stages and tasks a task graph defines: name: kind."""
    return {name: _kind(item) for item in items_of(document)
            if (name := _item_id(item)) is not None}


def _targets(item: Mapping[str, Any], field: str) -> list[tuple[Path, str]]:
    """The names a field of an item gives, each with where it is
    written in the field."""
    value = item.get(field)
    if isinstance(value, str) and field == 'stage':
        return [((), model.stage_name(value))]
    if not isinstance(value, list):
        return []
    if field in (model.CROSS_DEPENDS, model.CROSS_DEPENDED_BY):
        return [((i, 'name'), v['name']) for i, v in enumerate(value)
                if isinstance(v, Mapping) and isinstance(v.get('name'), str)]
    return [((i,), model.stage_name(v) if field != 'tasks' and
             field != 'groups' else v)
            for i, v in enumerate(value) if isinstance(v, str)]


def _check_references(items: list[Any], prefix: Path, ids: Mapping[str, str],
                      errors: ErrorCollector,
                      warnings: ErrorCollector) -> None:
    known = dict(ids)
    known.update({stage: STAGE for stage in model.BUILTIN_STAGES})
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or _item_id(item) is None:
            continue
        for field, wanted in _REFERENCE_FIELDS.items():
            for at, target in _targets(item, field):
                path = prefix + (index, field) + at
                kind = known.get(target)
                if kind is None:
                    warnings.add(path, '%s "%s", which this document does '
                                       'not define: the site design must '
                                       'define it before it runs'
                                 % (VERBS[field], target))
                elif wanted is not None and kind != wanted:
                    errors.add(path, '"%s" is a %s, not a %s'
                               % (target, kind, wanted))


VERBS = {'requires': 'requires', 'required_for': 'is required for',
          'groups': 'is in group', 'tasks': 'has task',
          'stage': 'is in stage', model.CROSS_DEPENDS: 'cross-depends on',
          model.CROSS_DEPENDED_BY: 'is cross-depended on by'}


# The model

def build(document: Any, lines: Mapping[Path, int] | None = None,
          name: str = '<input>') -> model.TaskGraph:
    """The model of a document that passed ``check`` (warnings allowed).

    Fields still holding a ``yaql_exp`` expression are left out of the
    model (a condition is then true): the plan computes them first, and
    reads those computed per node from its evaluation.
    """
    prefix = _items_path(document)
    name = document_name(document, name)
    groups, stages, tasks, references = [], [], [], []
    paths: dict[str, Path] = {}
    for index, item in enumerate(items_of(document)):
        item = expression_fields.without_expressions(item)
        item_id = _item_id(item)
        if item_id is None:
            # check() refuses a document with an item without an id.
            raise ValueError('item %d of %s has no id' % (index, name))
        kind = _kind(item)
        path = prefix + (index,)
        paths[item_id] = path
        if kind == GROUP:
            groups.append(_group(index, item_id, item))
        elif kind == STAGE:
            stages.append(model.Stage(item_id, index))
        else:
            tasks.append(_task(index, item_id, item))
        for field in _REFERENCE_FIELDS:
            for at, target in _targets(item, field):
                references.append(model.Reference(
                    item_id, field, target, path + (field,) + at, name))
    schema = document.get('schema') if isinstance(document, Mapping) \
        else None
    return model.TaskGraph(
        name=name, schema=schema,
        groups=tuple(groups), stages=tuple(stages), tasks=tuple(tasks),
        references=tuple(references), paths=paths,
        document=document, lines=dict(lines or {}))


def _group(index: int, name: str, item: Mapping[str, Any]) -> model.Group:
    roles = tuple(item.get('role') or ())
    strategy = (item.get('parameters') or {}).get('strategy') or {}
    return model.Group(
        name=name, index=index, roles=roles,
        selectors=(Selector(node_roles=frozenset(roles + (name,))),),
        strategy=model.GroupStrategy.from_dict(strategy),
        serialised=False, kind=model.GRAPH_GROUP)


def _task(index: int, task_id: str, item: Mapping[str, Any]) -> model.Task:
    role = item.get('role')
    if role == model.EVERY_NODE or (isinstance(role, list) and
                                    model.EVERY_NODE in role):
        roles: tuple[str, ...] = (model.EVERY_NODE,)
    else:
        roles = tuple(role or ())
    stage = item.get('stage')
    return model.Task(
        id=task_id, type=item.get('type') or '',
        parameters=dict(item.get('parameters') or {}), roles=roles,
        stage=model.stage_name(stage) if stage else None,
        condition=item.get('condition', True),
        idempotent=item.get('idempotent'), index=index,
        cross_depends=tuple(model.CrossDependency.from_dict(c) for c in
                            item.get(model.CROSS_DEPENDS) or ()),
        cross_depended_by=tuple(model.CrossDependency.from_dict(c) for c in
                                item.get(model.CROSS_DEPENDED_BY) or ()),
        strategy=model.GroupStrategy.from_dict(item['strategy'])
        if item.get('strategy') else None)


def _check_alone(document: Any, lines: Mapping[Path, int], name: str
                 ) -> list[DocumentError]:
    """The errors of one graph; what only the rest of the design settles
    (its warnings here) is checked across the design."""
    errors, _warnings = check(document, lines, name)
    return errors


def _is_task_list(document: Any) -> bool:
    """A plain list of Fuel tasks (no schema) is a task graph too."""
    return isinstance(document, list)


KIND = Kind('TaskGraph', (SCHEMA,), _check_alone, build,
            recognises=_is_task_list, runs_as=TASK_GRAPH)


def load(source: str | Any, name: str = '<input>') -> model.TaskGraph:
    """Read and check a task graph; InvalidTaskGraph lists every error
    (warnings do not stop it)."""
    document, lines = read(source, name)
    errors, _warnings = check(document, lines, name)
    if errors:
        raise exception.InvalidTaskGraph(errors)
    return build(document, lines, name)
