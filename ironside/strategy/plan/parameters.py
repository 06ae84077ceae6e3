"""Parameters of site actions (``--param name=value``), by name.

Each parameter says which actions take it, whether it only makes sense
for an action that runs a design revision, and how its value is read (a
value from the command line is a string: "true", "3"). An action given a
parameter it does not take is refused, naming it. Another parameter is
one :func:`register` call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

from ironside.common import exception
from ironside.strategy.designs import versions

ALLOW_INTERMEDIATE_COMMITS = 'allow-intermediate-commits'
TARGET_REVISION = 'target-revision'


@dataclasses.dataclass(frozen=True)
class Parameter:
    name: str
    actions: frozenset[str]
    # The value as the action uses it; ValueError says what is wrong.
    read: Callable[[Any], Any]
    # Only for actions that run a design revision (not a stored strategy).
    design_only: bool = True


PARAMETERS: dict[str, Parameter] = {}


def register(parameter: Parameter) -> None:
    PARAMETERS[parameter.name] = parameter


def read_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ('true', 'yes', '1'):
        return True
    if text in ('false', 'no', '0'):
        return False
    raise ValueError('must be true or false')


def read_version(value: Any) -> versions.Version:
    """A version that names a committed revision (not the buffer)."""
    words = ValueError('must be committed, successful-site-action, '
                       'last-site-action or a revision number')
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise words
    try:
        version = versions.parse(value)
    except exception.InvalidDesignVersion:
        raise words from None
    if version == versions.BUFFER:
        raise words
    return version


def read_names(value: Any) -> list[str]:
    """Names, as a list or one comma-separated string (a command line's
    ``--param skip=a,b``)."""
    if isinstance(value, str):
        value = value.split(',')
    if not isinstance(value, (list, tuple)) or \
            not all(isinstance(v, str) for v in value):
        raise ValueError('must be a list of names')
    names = list(dict.fromkeys(v.strip() for v in value if v.strip()))
    if not names:
        raise ValueError('must name at least one')
    return names


def read_name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError('must be the name of a task, group or stage')
    return value.strip()


def read_seconds(value: Any) -> int:
    """A whole number of seconds (a command line's "600")."""
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError('must be a whole number of seconds')
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError('must be a whole number of seconds') from None
    if number < 0:
        raise ValueError('must not be negative')
    return number


def read_node(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError('must be the name of a node')
    return value.strip()


SITE_ACTIONS = frozenset(('deploy_site', 'update_site'))
REDEPLOY_SERVER = 'redeploy_server'
DESIGN_ACTIONS = SITE_ACTIONS | {REDEPLOY_SERVER}

NODE = 'node'
PRESERVE_LOCAL_STORAGE = 'preserve-local-storage'

register(Parameter(ALLOW_INTERMEDIATE_COMMITS, DESIGN_ACTIONS,
                   read_boolean))
register(Parameter(TARGET_REVISION, DESIGN_ACTIONS, read_version))
# redeploy_server (teardown spec): the node, its disks, the decommission's
# timeouts (ironside.strategy.decommission.sequence.DecommissionOptions).
_REDEPLOY = frozenset((REDEPLOY_SERVER,))
register(Parameter(NODE, _REDEPLOY, read_node))
register(Parameter(PRESERVE_LOCAL_STORAGE, _REDEPLOY, read_boolean))
for _name in ('drain-node-timeout', 'drain-node-grace-period',
              'clear-labels-timeout', 'remove-etcd-timeout',
              'etcd-ready-timeout'):
    register(Parameter(_name, _REDEPLOY, read_seconds))
# A partial run (ironside.strategy.reader.action_input.RunOptions): only these
# tasks, skip these, start at / end at a task, only these nodes.
for _name in ('tasks', 'skip', 'nodes'):
    register(Parameter(_name, SITE_ACTIONS, read_names, design_only=False))
for _name in ('start', 'end'):
    register(Parameter(_name, SITE_ACTIONS, read_name, design_only=False))


def read(action: str, given: Mapping[str, Any] | None,
         runs_design: bool) -> dict[str, Any]:
    """The parameters of an action, read; InvalidActionParameters names
    every one it does not take and every bad value."""
    given = dict(given or {})
    unknown = sorted(name for name in given
                     if name not in PARAMETERS or
                     action not in PARAMETERS[name].actions)
    if unknown:
        takes = sorted(name for name, p in PARAMETERS.items()
                       if action in p.actions)
        raise exception.InvalidActionParameters(
            err='Unknown parameters for %s: %s (it takes %s)' % (
                action, ', '.join(unknown), ', '.join(takes) or 'none'))
    if not runs_design:
        design_only = sorted(n for n in given if PARAMETERS[n].design_only)
        if design_only:
            raise exception.InvalidActionParameters(
                err='Parameters %s apply only to an action that runs a '
                    'design revision, not a stored strategy'
                    % ', '.join(design_only))
    values = {}
    problems = []
    for name, value in sorted(given.items()):
        try:
            values[name] = PARAMETERS[name].read(value)
        except ValueError as exc:
            problems.append('"%s" %s, not %s' % (name, exc, _shown(value)))
    if problems:
        raise exception.InvalidActionParameters(
            err='Invalid parameters: %s' % '; '.join(problems))
    return values


def _shown(value: Any) -> str:
    return '"%s"' % value if isinstance(value, str) else repr(value)
