"""Steps as drivers declare them: the step decorators, a step's record,
what a step returns when it goes on (:class:`Wait`), and the kinds of
step flow with their states.

Any interface method decorated with :func:`deploy_step`,
:func:`clean_step` or :func:`service_step` is a step: the conductor
collects the steps of all of a node's interfaces, orders them by priority
and runs them one at a time. A step returns ``None`` when it is done, or a
:class:`Wait` (from :func:`poll_later` or :func:`await_callback`) when it
goes on asynchronously.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import TypedDict
from typing import TypeVar

from ironside.common import exception
from ironside.common import states
from ironside.drivers.task import Task

# An interface method a decorator marks as a step.
StepMethod = Callable[..., Any]
# A step method, its type kept through the step decorators.
StepT = TypeVar('StepT', bound=StepMethod)

# Order of interfaces among steps of equal priority: the first runs first.
# Ironic's order, so steps contributed by the same interfaces run in the
# same order on both.
STEP_INTERFACE_ORDER = ('vendor', 'power', 'management', 'firmware',
                        'deploy', 'bios', 'raid')

DEPLOY = 'deploy'
CLEAN = 'clean'
SERVICE = 'service'
# Each kind of step flow: the state its steps run in and the one it
# waits in. The conductor's flows (conductor/step_flow.py) register the
# rest of what differs; this is what drivers need to know.
FLOW_STATES = {
    DEPLOY: (states.DEPLOYING, states.DEPLOYWAIT),
    CLEAN: (states.CLEANING, states.CLEANWAIT),
    SERVICE: (states.SERVICING, states.SERVICEWAIT),
}
# Kinds whose steps say whether an abort may interrupt them.
ABORTABLE_KINDS = (CLEAN, SERVICE)


class StepInfo(TypedDict, total=False):
    interface: str
    step: str
    priority: int
    argsinfo: dict[str, dict[str, Any]] | None
    abortable: bool
    args: dict[str, Any]


class _Mark(TypedDict):
    priority: int
    argsinfo: dict[str, dict[str, Any]] | None


class StepMark(_Mark, total=False):
    """What a step decorator records on its method (``_<kind>_step``)."""

    # Clean and service steps only.
    abortable: bool


def _check_argsinfo(func: StepMethod,
                    argsinfo: Mapping[str, Any] | None) -> None:
    if argsinfo is None:
        return
    if not isinstance(argsinfo, Mapping):
        raise exception.InvalidParameterValue(
            err='argsinfo of step %s must be a dict' % func.__name__)
    params = inspect.signature(func).parameters
    accepts_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
    for name, info in argsinfo.items():
        if not isinstance(info, Mapping) or \
                not isinstance(info.get('description'), str):
            raise exception.InvalidParameterValue(
                err='argsinfo of step %s: argument %s needs a '
                    '"description" string' % (func.__name__, name))
        unknown = set(info) - {'description', 'required'}
        if unknown:
            raise exception.InvalidParameterValue(
                err='argsinfo of step %s: argument %s has unknown keys %s'
                    % (func.__name__, name, sorted(unknown)))
        if not isinstance(info.get('required', False), bool):
            raise exception.InvalidParameterValue(
                err='argsinfo of step %s: "required" of argument %s must '
                    'be a boolean' % (func.__name__, name))
        if name not in params and not accepts_any:
            raise exception.InvalidParameterValue(
                err='step %s does not accept argument %s named in its '
                    'argsinfo' % (func.__name__, name))


def _check_priority(func: StepMethod, priority: Any) -> None:
    if isinstance(priority, bool) or not isinstance(priority, int) or \
            priority < 0:
        raise exception.InvalidParameterValue(
            err='priority of step %s must be a non-negative integer, not %r'
                % (func.__name__, priority))


def deploy_step(priority: int, argsinfo: dict[str, Any] | None = None
                ) -> Callable[[StepT], StepT]:
    """Mark an interface method as a deploy step.

    :param priority: steps run from the highest priority to the lowest;
        0 means the step runs only when a deploy template or the user asks
        for it with a priority.
    :param argsinfo: ``{argument: {'description': str, 'required': bool}}``
        for the keyword arguments the step takes.
    """
    def decorator(func: StepT) -> StepT:
        _check_priority(func, priority)
        _check_argsinfo(func, argsinfo)
        mark: StepMark = {
            'priority': priority,
            'argsinfo': dict(argsinfo) if argsinfo else None}
        setattr(func, '_%s_step' % DEPLOY, mark)
        return func
    return decorator


def clean_step(priority: int, abortable: bool = False,
               argsinfo: dict[str, Any] | None = None
               ) -> Callable[[StepT], StepT]:
    """Mark an interface method as a clean step.

    :param priority: steps with a priority above 0 run during automated
        cleaning, highest first; any step may be asked for in manual
        cleaning.
    :param abortable: whether an abort may interrupt the step while it
        runs asynchronously.
    :param argsinfo: as for :func:`deploy_step`.
    """
    return _abortable_step(CLEAN, priority, abortable, argsinfo)


def service_step(priority: int = 0, abortable: bool = False,
                 argsinfo: dict[str, Any] | None = None
                 ) -> Callable[[StepT], StepT]:
    """Mark an interface method as a service step: run on an ``active``
    node when a user asks for it (``service`` verb, API 1.87).

    :param priority: kept for the step listing; service steps only run
        when asked for.
    :param abortable: as for :func:`clean_step`.
    :param argsinfo: as for :func:`deploy_step`.
    """
    return _abortable_step(SERVICE, priority, abortable, argsinfo)


def _abortable_step(kind: str, priority: int, abortable: bool,
                    argsinfo: dict[str, Any] | None
                    ) -> Callable[[StepT], StepT]:
    """The decorator of a clean or service step (``_<kind>_step``)."""
    def decorator(func: StepT) -> StepT:
        _check_priority(func, priority)
        _check_argsinfo(func, argsinfo)
        if not isinstance(abortable, bool):
            raise exception.InvalidParameterValue(
                err='abortable of step %s must be a boolean'
                    % func.__name__)
        mark: StepMark = {
            'priority': priority, 'abortable': abortable,
            'argsinfo': dict(argsinfo) if argsinfo else None}
        setattr(func, '_%s_step' % kind, mark)
        return func
    return decorator


@dataclasses.dataclass(frozen=True)
class Wait:
    """What a step returns when it goes on after returning: the
    conductor releases the node and either polls the interface's
    ``poll_async_step`` every ``interval`` seconds (``poll``) or waits
    for a callback (an agent's ``continue_node_*``). A step that is done
    returns None. Steps say what they want; the conductor keeps the
    flow's state (``conductor/step_state.py``)."""

    poll: bool
    interval: float | None = None
    # Whether the step list is computed again once this step ends: the
    # agent's own steps are known only once it runs on the machine.
    refresh_steps: bool = False
    # A call the conductor makes outside the node's lock, again and
    # again, each time waiting at most the seconds it is given: True
    # when the step may have ended, and the conductor polls at once
    # (an agent's command is watched this way, so that nothing waits for
    # the next poll). Only a hint: polls decide.
    watch: Callable[[float], bool] | None = dataclasses.field(
        default=None, compare=False)


def poll_later(task: Task, interval: float | None = None) -> Wait:
    """Return value of a step that goes on asynchronously and is polled:
    ``poll_async_step`` is called every ``interval`` seconds
    ([conductor]async_step_poll_interval by default) until it returns
    True, then the next step runs. ``task`` is not used; it keeps the
    signature step plugins call."""
    return Wait(poll=True, interval=None if interval is None
                else float(interval))


def await_callback(task: Task) -> Wait:
    """Return value of a step that an external agent will finish: the
    node waits until the agent calls continue_node_deploy (or _clean,
    _service) or the callback timeout fails it."""
    return Wait(poll=False)


def flow_of(node: Any) -> str:
    """Which step flow a node is running: deploy, clean or service."""
    for kind, flow_states in FLOW_STATES.items():
        if node.provision_state in flow_states:
            return kind
    raise exception.InvalidStateRequested(
        action='wait for a step', node=node.uuid, state=node.provision_state)
