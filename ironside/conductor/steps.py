"""Which steps run, in which order, with which arguments.

Deploy steps come from three places, later ones overriding earlier ones
for the same ``(interface, step)``:

1. the steps every interface of the node's hardware type declares, with
   the priorities of their decorators;
2. deploy templates whose name matches one of the node's traits — the
   traits in ``instance_info['traits']`` when the instance asks for some
   (as Nova does), otherwise the node's own traits;
3. the steps a user passes with the ``active`` verb (``deploy_steps``).

Steps with priority 0 are dropped; the rest run from the highest priority
to the lowest. Ties are broken by interface, in Ironic's order: vendor,
power, management, firmware, deploy, bios, raid, then any other interface
alphabetically.

Automated cleaning runs the clean steps with a priority above 0 in the
same order; manual cleaning runs exactly the steps the user gave, in the
order given.

User-given and template steps are checked before anything starts: an
unknown interface or step, an argument the step does not take, or a
missing required argument is an InvalidParameterValue naming the step.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any
from typing import cast

from ironside.common import exception
from ironside.conductor import reserved_steps
from ironside.db import deploy_templates as templates_db
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.drivers import base
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

# A step as the conductor keeps it (in a flow's step list, a node's
# deploy_step, a request): the fields of step_defs.StepInfo, as JSON.
Step = dict[str, Any]

DEPLOY = step_defs.DEPLOY
CLEAN = step_defs.CLEAN


def step_info(step: Step) -> base.StepInfo:
    """``step`` as the driver API types it: the same dict (its fields
    are StepInfo's, checked by validate_steps or made by the driver)."""
    return cast(base.StepInfo, step)


def step_name(step: Mapping[str, Any]) -> str:
    return '%s.%s' % (step.get('interface'), step.get('step'))


def _interface_rank(interface: str) -> tuple[int, str]:
    order = step_defs.STEP_INTERFACE_ORDER
    if interface in order:
        return (order.index(interface), '')
    return (len(order), interface)


def sort_key(step: Step) -> tuple[int, int, str]:
    """Sorts highest priority first, then by interface order."""
    return (-step['priority'],) + _interface_rank(step['interface'])


def sorted_steps(steps: Iterable[Step]) -> list[Step]:
    return sorted(steps, key=sort_key)


def driver_steps(task: TaskManager, kind: str
                 ) -> dict[tuple[str, str], Step]:
    """Every step of the node's interfaces, by (interface, step)."""
    found: dict[tuple[str, str], Step] = {}
    for iface in task.driver.interfaces.values():
        for step in iface.get_steps(task, kind):
            found[(step['interface'], step['step'])] = dict(step)
    return found


def _check_args(step: Step, known: Step) -> dict[str, Any]:
    args = step.get('args') or {}
    if not isinstance(args, dict):
        raise exception.InvalidParameterValue(
            err='Step %s: "args" must be an object' % step_name(step))
    argsinfo = known.get('argsinfo') or {}
    unknown = sorted(set(args) - set(argsinfo))
    if unknown:
        raise exception.InvalidParameterValue(
            err='Step %s does not take argument(s) %s' %
                (step_name(step), ', '.join(unknown)))
    missing = sorted(name for name, info in argsinfo.items()
                     if info.get('required') and name not in args)
    if missing:
        raise exception.InvalidParameterValue(
            err='Step %s is missing required argument(s) %s' %
                (step_name(step), ', '.join(missing)))
    return dict(args)


def validate_steps(task: TaskManager, kind: str, steps: Sequence[Step],
                   source: str = 'requested',
                   known: dict[tuple[str, str], Step] | None = None
                   ) -> list[Step]:
    """Check user or template steps against the node's; normalise them.

    Returns copies carrying the driver's metadata (argsinfo, abortable).
    """
    known = driver_steps(task, kind) if known is None else known
    result: list[Step] = []
    for step in steps:
        if not isinstance(step, dict) or not step.get('interface') or \
                not step.get('step'):
            raise exception.InvalidParameterValue(
                err='Each %s %s step needs "interface" and "step"; got %r'
                    % (source, kind, step))
        if step['interface'] not in base.INTERFACE_BASES:
            raise exception.InvalidParameterValue(
                err='Step %s: unknown interface "%s"'
                    % (step_name(step), step['interface']))
        key = (step['interface'], step['step'])
        if reserved_steps.is_reserved(step):
            normalised = {'interface': step['interface'],
                          'step': step['step'], 'priority': 0,
                          'args': reserved_steps.check(step)}
        elif key in known:
            normalised = dict(known[key])
            normalised['args'] = _check_args(step, known[key])
        elif _accepts_unknown(task, kind, step['interface']):
            # Checked again once the agent said which steps it has.
            normalised = {'interface': step['interface'],
                          'step': step['step'], 'priority': 0,
                          'args': _check_args(step, {'argsinfo': {
                              name: {} for name in step.get('args') or {}}})}
        else:
            raise exception.InvalidParameterValue(
                err='Node %s has no %s step %s (%s step)'
                    % (task.node.uuid, kind, step_name(step), source))
        if kind == DEPLOY or 'priority' in step:
            priority = step.get('priority', normalised['priority'])
            if isinstance(priority, bool) or not isinstance(priority, int) \
                    or priority < 0:
                raise exception.InvalidParameterValue(
                    err='Step %s: priority must be a non-negative integer'
                        % step_name(step))
            normalised['priority'] = priority
        result.append(normalised)
    return result


def _accepts_unknown(task: TaskManager, kind: str, interface: str) -> bool:
    iface = task.driver.interfaces.get(interface)
    return iface is not None and iface.accepts_unknown_steps(task, kind)


def matching_templates(task: TaskManager
                       ) -> list[models.DeployTemplate]:
    """Deploy templates that apply to this deploy (see module docstring)."""
    wanted = task.node.instance_info.get('traits')
    if not wanted:
        wanted = nodes_db.get_node_traits(task.node.id)
    return templates_db.by_names(wanted)


def deploy_steps_for(task: TaskManager,
                     user_steps: Sequence[Step] | None = None
                     ) -> list[Step]:
    """The ordered deploy steps for the node's next deploy."""
    known = driver_steps(task, DEPLOY)
    merged = {key: dict(step, args={}) for key, step in known.items()}
    seen_in_templates: dict[tuple[str, str], str] = {}
    for template in matching_templates(task):
        steps = validate_steps(task, DEPLOY,
                               [s.as_step() for s in template.steps],
                               source='deploy template %s' % template.name,
                               known=known)
        for step in steps:
            key = (step['interface'], step['step'])
            if key in seen_in_templates:
                raise exception.InvalidParameterValue(
                    err='Step %s is in deploy templates %s and %s of node '
                        '%s; a step may come from one template only'
                        % (step_name(step), seen_in_templates[key],
                           template.name, task.node.uuid))
            seen_in_templates[key] = template.name
            merged[key] = step
    for step in validate_steps(task, DEPLOY, user_steps or [],
                               source='requested', known=known):
        merged[(step['interface'], step['step'])] = step
    return sorted_steps(s for s in merged.values() if s['priority'] > 0)


def automated_clean_steps_for(task: TaskManager) -> list[Step]:
    known = driver_steps(task, CLEAN)
    return sorted_steps(dict(s, args={}) for s in known.values()
                        if s['priority'] > 0)


def manual_clean_steps_for(task: TaskManager, user_steps: Sequence[Step]
                          ) -> list[Step]:
    if not user_steps:
        raise exception.InvalidParameterValue(
            err='Manual cleaning needs clean_steps')
    return validate_steps(task, CLEAN, user_steps)


# Where the steps a user asked for are kept while their flow runs, so
# that the step list can be computed again (driver_internal_info).
USER_STEPS_KEY = 'user_%s_steps'


def user_steps(task: TaskManager, kind: str) -> list[Step] | None:
    steps: list[Step] | None = task.node.driver_internal_info.get(
        USER_STEPS_KEY % kind)
    return steps


def keep_user_steps(task: TaskManager, kind: str,
                    steps: Sequence[Step] | None) -> None:
    info = task.node.driver_internal_info
    if steps:
        info[USER_STEPS_KEY % kind] = [dict(step) for step in steps]
    else:
        info.pop(USER_STEPS_KEY % kind, None)
