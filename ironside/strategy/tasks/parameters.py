"""Parameters of the node task types, as Fuel's task graphs write them.

One schema per type names the parameters a runner reads, their types and
Fuel's defaults (Astute's: ``cwd`` ``/``, shell 300 s, rsync 300 s, puppet
90 minutes, ``/etc/puppet/manifests/site.pp`` and ``/etc/puppet/modules``,
files ``0644`` in directories made ``0755``). Other parameters are kept
and ignored, as Fuel did. The document reader can check a graph's tasks
with the same schemas (:func:`check`) so that a bad parameter is found
when the design is validated, not when the task runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema

from ironside.common import exception

SHELL = 'shell'
UPLOAD_FILE = 'upload_file'
RSYNC = 'rsync'
PUPPET = 'puppet'

# Seconds a task may run when neither the task nor its parameters say.
DEFAULT_TIMEOUTS = {SHELL: 300.0, UPLOAD_FILE: 60.0, RSYNC: 300.0,
                    PUPPET: 5400.0}

_ABSOLUTE_PATH = {'type': 'string', 'pattern': '^/'}
_TIMEOUT = {'type': 'number', 'exclusiveMinimum': 0}
_MODE = {'type': 'string', 'pattern': '^0?[0-7]{3,4}$'}

SCHEMAS: dict[str, dict[str, Any]] = {
    SHELL: {
        'type': 'object',
        'required': ['cmd'],
        'properties': {
            'cmd': {'type': 'string', 'minLength': 1},
            'cwd': _ABSOLUTE_PATH,
            'timeout': _TIMEOUT,
        },
    },
    UPLOAD_FILE: {
        'type': 'object',
        'required': ['path', 'data'],
        'properties': {
            'path': _ABSOLUTE_PATH,
            'data': {'type': 'string'},
            'permissions': _MODE,
            'dir_permissions': _MODE,
            'timeout': _TIMEOUT,
        },
    },
    RSYNC: {
        'type': 'object',
        'required': ['src', 'dst'],
        'properties': {
            'src': _ABSOLUTE_PATH,
            'dst': _ABSOLUTE_PATH,
            'timeout': _TIMEOUT,
        },
    },
    PUPPET: {
        'type': 'object',
        'properties': {
            'puppet_manifest': _ABSOLUTE_PATH,
            # The spec's own example spells it so; Fuel ignored it and
            # applied site.pp, which is never what its author meant.
            'puppet_manifests': _ABSOLUTE_PATH,
            'puppet_modules': {'type': 'string', 'minLength': 1},
            'cwd': _ABSOLUTE_PATH,
            'timeout': _TIMEOUT,
        },
    },
}

_DEFAULTS: dict[str, dict[str, Any]] = {
    SHELL: {'cwd': '/'},
    UPLOAD_FILE: {'permissions': '0644', 'dir_permissions': '0755'},
    RSYNC: {},
    PUPPET: {'puppet_manifest': '/etc/puppet/manifests/site.pp',
             'puppet_modules': '/etc/puppet/modules', 'cwd': '/'},
}

_PATH_HINTS = {
    'cwd': 'an absolute path on the node',
    'path': 'an absolute path on the node',
    'dst': 'an absolute path on the node',
    'src': "an absolute path on the conductor's machine",
    'puppet_manifest': 'an absolute path on the node',
    'puppet_manifests': 'an absolute path on the node',
}


def check(task_type: str, parameters: Mapping[str, Any]) -> None:
    """Raise InvalidParameterValue naming the parameter that is wrong."""
    schema = SCHEMAS.get(task_type)
    if schema is None:
        raise exception.InvalidParameterValue(
            'unknown task type %r (known: %s)'
            % (task_type, ', '.join(sorted(SCHEMAS))))
    # Fuel dropped parameters set to null before reading them.
    given = {key: value for key, value in parameters.items()
             if value is not None}
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(given))
    if error is None:
        return
    if error.validator == 'required':
        missing = [name for name in schema['required']
                   if name not in given]
        raise exception.InvalidParameterValue(
            '%s task needs parameter %r' % (task_type, missing[0]))
    name = error.path[0] if error.path else '?'
    if error.validator == 'pattern' and name in _PATH_HINTS:
        message = 'must be %s' % _PATH_HINTS[name]
    elif error.validator == 'pattern':
        message = 'must be an octal mode such as 0644'
    else:
        message = error.message
    raise exception.InvalidParameterValue(
        '%s task parameter %r: %s' % (task_type, name, message))


def resolve(task_type: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters checked, with Fuel's defaults filled in."""
    check(task_type, parameters)
    values = dict(_DEFAULTS[task_type])
    values.update({key: value for key, value in parameters.items()
                   if value is not None})
    if (task_type == PUPPET and parameters.get('puppet_manifest') is None
            and parameters.get('puppet_manifests') is not None):
        values['puppet_manifest'] = parameters['puppet_manifests']
    return values


def timeout_of(task_type: str, parameters: Mapping[str, Any],
               task_timeout: float | None) -> float:
    """The task's own timeout, else its parameters', else the type's."""
    if task_timeout is not None:
        return float(task_timeout)
    if parameters.get('timeout') is not None:
        return float(parameters['timeout'])
    return DEFAULT_TIMEOUTS[task_type]
