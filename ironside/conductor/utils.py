"""What every failure path of the conductor does with a node.

A node that fails always ends with ``last_error`` saying what failed and
why, ``failure_reason`` holding a stable machine-readable reason, a
history record, and a state a client can act on.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec
from typing import Protocol
from typing import TypeVar

from ironside.common import exception
from ironside.common import rpc_base
from ironside.common import states
from ironside.db import history as history_db
from ironside.db import models
from ironside.db import session as db_session
from ironside.drivers.modules.agent import ramdisk as agent_ramdisk
from ironside.drivers.task import Task

LOG = logging.getLogger(__name__)


class FlowTask(Task, Protocol):
    """The conductor's task as the helpers below use it: a driver's view
    of it, what it is for, the node's state machine and history. The task
    manager is one; naming it here would import it back."""

    purpose: str
    fsm: states.NodeStateMachine

    def record(self, event: str, event_type: str,
               severity: str = ...) -> None: ...

    def save(self) -> None: ...

    def process_event(self, event: str, *,
                      target_state: str | None = None) -> None: ...

# Machine-readable failure reasons besides those of exception classes.
STEP_TIMEOUT = 'StepTimeout'
CONDUCTOR_DIED = 'ConductorDied'
ABORTED = 'Aborted'
INTERNAL_ERROR = 'InternalError'

# Ironic's fault values (node.fault is set with maintenance).
POWER_FAILURE = 'power failure'
CLEAN_FAILURE = 'clean failure'
# Ironside's own: the BMC reports the hardware's health as critical.
HARDWARE_FAILURE = 'hardware failure'

# The history event type of each working state.
EVENT_TYPES = {
    states.VERIFYING: 'verifying',
    states.DEPLOYING: 'deploying', states.DEPLOYWAIT: 'deploying',
    states.CLEANING: 'cleaning', states.CLEANWAIT: 'cleaning',
    states.DELETING: 'deleting',
    states.INSPECTING: 'inspecting', states.INSPECTWAIT: 'inspecting',
    states.ADOPTING: 'adopting',
    states.RESCUING: 'rescuing', states.RESCUEWAIT: 'rescuing',
    states.UNRESCUING: 'unrescuing',
    states.SERVICING: 'servicing', states.SERVICEWAIT: 'servicing',
}


def reason_of(exc: BaseException) -> str:
    return getattr(exc, 'failure_reason', None) or INTERNAL_ERROR


def describe(exc: BaseException) -> str:
    """A one-line message for last_error; never empty."""
    text = str(exc).strip()
    return text or exc.__class__.__name__


def set_failure(task: FlowTask, message: str, reason: str,
                event_type: str | None = None) -> None:
    """Record a failure on the node (not saved; the caller saves)."""
    node = task.node
    node.last_error = message or 'Unknown error'
    node.failure_reason = reason or INTERNAL_ERROR
    task.record(node.last_error,
                event_type or EVENT_TYPES.get(node.provision_state,
                                              'provisioning'),
                severity=history_db.ERROR)


def clear_failure(node: models.Node) -> None:
    node.last_error = None
    node.failure_reason = None


def fail_node(task: FlowTask, message: str, reason: str,
              target_state: str | None = None) -> None:
    """Fail the operation a node is in: 'fail' event, last_error, history.

    For a state without a 'fail' transition the node keeps its state and
    only the error is recorded.
    """
    set_failure(task, message, reason)
    node = task.node
    if target_state is None and node.target_provision_state == \
            states.MANAGEABLE and node.provision_state in (
                states.CLEANING, states.CLEANWAIT):
        target_state = states.MANAGEABLE  # manual cleaning
    if task.fsm.can('fail'):
        task.process_event('fail', target_state=target_state)
    else:
        task.save()


def power_off_after_failure(task: FlowTask) -> None:
    """Power a machine off whose operation failed, so that nothing
    half-written runs; a failure to do so is recorded, not raised."""
    node = task.node
    try:
        agent_ramdisk.power_off(task)
    except Exception as exc:
        LOG.warning('Could not power off node %s after its failure: %s',
                    node.uuid, describe(exc))
        task.record('Could not power the node off after the failure: %s'
                    % describe(exc), EVENT_TYPES.get(node.provision_state,
                                                     'provisioning'),
                    severity=history_db.ERROR)


def fail_unexpectedly(task: FlowTask, exc: BaseException) -> None:
    """A worker died of an error nobody handled: never leave it silent."""
    LOG.error('Unexpected error while %s on node %s', task.purpose,
              task.node.uuid, exc_info=exc)
    if task.shared:
        return
    try:
        fail_node(task, 'Unexpected error while %s: %s'
                  % (task.purpose, describe(exc)), reason_of(exc))
    except Exception:
        LOG.exception('Could not record the failure of node %s',
                      task.node.uuid)


def ensure_not_in_maintenance(task: FlowTask, operation: str) -> None:
    if task.node.maintenance:
        raise exception.NodeInMaintenance(op=operation,
                                          node=task.node.uuid)


_Params = ParamSpec('_Params')
_Result = TypeVar('_Result')


def rpc_endpoint(func: Callable[_Params, _Result]
                 ) -> Callable[_Params, _Result]:
    """Mark a conductor method called over RPC.

    Ironside's own errors go back to the caller as themselves (code and
    message). A database outage goes back as DatabaseUnavailable (503:
    the API asks the client to retry), not as a RemoteError wrapping
    SQLAlchemy's error, which the API could only answer with a 500.
    """
    @functools.wraps(func)
    def wrapper(*args: _Params.args, **kwargs: _Params.kwargs) -> _Result:
        try:
            return func(*args, **kwargs)
        except exception.IronsideException:
            raise
        except Exception as exc:
            if db_session.is_outage(exc):
                raise exception.DatabaseUnavailable() from exc
            raise
    marked: Callable[_Params, _Result] = rpc_base.expected_exceptions(
        exception.IronsideException)(wrapper)
    return marked
