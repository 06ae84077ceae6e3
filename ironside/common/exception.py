"""Every error Ironside raises on purpose.

Each class carries the HTTP status the API answers with (``code``) and a
message template (``msg_fmt``) filled from keyword arguments. Classes whose
``failure_reason`` is set are the machine-readable reasons stored on a node
beside ``last_error`` when an operation on it fails.

The module is listed in oslo.messaging's ``allowed_remote_exmods`` so an
exception raised in a conductor reaches the API as the same class.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any


class IronsideException(Exception):
    msg_fmt = "An unknown error occurred."
    code = HTTPStatus.INTERNAL_SERVER_ERROR
    # Short, stable, CamelCase reason stored on a node that this error failed.
    failure_reason = 'InternalError'

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if 'code' in kwargs:
            self.code = kwargs.pop('code')
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                # A programming error in a caller must not hide the real one.
                message = self.msg_fmt
        super().__init__(message)

    @property
    def message(self) -> str:
        """The message as raised, and nothing more.

        An exception rebuilt from an RPC answer keeps its arguments, but
        oslo.messaging makes its ``str()`` append the conductor's
        traceback; what users and logs are shown is this property.
        """
        return str(self.args[0]) if self.args else self.msg_fmt


# 400

class Invalid(IronsideException):
    msg_fmt = "Unacceptable parameters."
    code = HTTPStatus.BAD_REQUEST
    failure_reason = 'InvalidInput'


class InvalidParameterValue(Invalid):
    msg_fmt = "%(err)s"


class MissingParameterValue(InvalidParameterValue):
    msg_fmt = "%(err)s"


class RedfishCredentialsRejected(InvalidParameterValue):
    msg_fmt = ('Redfish BMC %(bmc)s rejected the credentials of user '
               '"%(user)s"')


class RedfishSystemNotFound(InvalidParameterValue):
    msg_fmt = 'Redfish BMC %(bmc)s has no system %(system)s'


class IPMICredentialsRejected(InvalidParameterValue):
    msg_fmt = ('BMC %(bmc)s rejected the credentials of user "%(user)s": '
               '%(reason)s')


class InvalidIdentity(Invalid):
    msg_fmt = "Expected a UUID or logical name but received %(identity)s."


class NodeIsRetired(Invalid):
    msg_fmt = ("The %(op)s operation can't be performed on node %(node)s "
               "because it is retired.")


class InvalidStateRequested(Invalid):
    msg_fmt = ('The requested action "%(action)s" can not be performed on '
               'node "%(node)s" while it is in state "%(state)s".')


class InvalidTransition(IronsideException):
    """The state machine has no transition for this event (internal)."""

    msg_fmt = "No transition from %(state)r on %(event)r."

    def __init__(self, state: str, event: str) -> None:
        super().__init__(state=state, event=event)
        self.state = state
        self.event = event


class PatchError(Invalid):
    msg_fmt = "Couldn't apply patch '%(patch)s'. Reason: %(reason)s"


class NodeInMaintenance(Invalid):
    msg_fmt = ("The %(op)s operation can't be performed on node "
               "%(node)s because it's in maintenance mode.")


class UnsupportedDriverExtension(Invalid):
    msg_fmt = ('Driver %(driver)s does not support %(extension)s '
               '(disabled or not implemented).')


class InterfaceNotFoundInEntrypoint(InvalidParameterValue):
    msg_fmt = ("Could not find the following interface in the "
               "'%(entrypoint)s' entrypoint: %(iface)s. Valid interfaces "
               "are %(valid)s.")


class IncompatibleInterface(InvalidParameterValue):
    msg_fmt = ("%(interface_type)s interface implementation "
               "'%(interface_impl)s' is not supported by hardware type "
               "%(hardware_type)s.")


class InvalidDeployTemplate(Invalid):
    msg_fmt = "Deploy template invalid: %(err)s."


class VifNotAttached(Invalid):
    msg_fmt = "Unable to detach VIF %(vif)s from node %(node)s "
    msg_fmt += "because it is not attached to it."


class NoFreePhysicalPorts(Invalid):
    msg_fmt = "Unable to attach VIF %(vif)s, not enough free physical ports."


class NodeConsoleNotEnabled(Invalid):
    msg_fmt = "Console access is not enabled on node %(node)s"


class ChassisNotEmpty(Invalid):
    msg_fmt = ("Cannot complete the requested action because chassis "
               "%(chassis)s contains nodes.")


class AllocationFailed(IronsideException):
    msg_fmt = "Failed to process allocation %(uuid)s: %(error)s."


# 403

class NotAuthorized(IronsideException):
    msg_fmt = "Not authorized."
    code = HTTPStatus.FORBIDDEN


# 404

class NotFound(IronsideException):
    msg_fmt = "Resource could not be found."
    code = HTTPStatus.NOT_FOUND


class NodeNotFound(NotFound):
    msg_fmt = "Node %(node)s could not be found."


class PortNotFound(NotFound):
    msg_fmt = "Port %(port)s could not be found."


class PortgroupNotFound(NotFound):
    msg_fmt = "Portgroup %(portgroup)s could not be found."


class ConductorNotFound(NotFound):
    msg_fmt = "Conductor %(conductor)s could not be found."


class DriverNotFound(NotFound):
    msg_fmt = "Could not find the following driver(s) or hardware type(s): "
    msg_fmt += "%(driver_name)s."


class DeployTemplateNotFound(NotFound):
    msg_fmt = "Deploy template %(template)s could not be found."


class VolumeConnectorNotFound(NotFound):
    msg_fmt = "Volume connector %(connector)s could not be found."


class VolumeTargetNotFound(NotFound):
    msg_fmt = "Volume target %(target)s could not be found."


class RunbookNotFound(NotFound):
    msg_fmt = "Runbook with name or uuid %(runbook)s could not be found."


class NodeTraitNotFound(NotFound):
    msg_fmt = "Node %(node_id)s doesn't have a trait '%(trait)s'"


class NodeHistoryNotFound(NotFound):
    msg_fmt = "Node history record %(history)s could not be found."


class ChassisNotFound(NotFound):
    msg_fmt = "Chassis %(chassis)s could not be found."


class AllocationNotFound(NotFound):
    msg_fmt = "Allocation %(allocation)s could not be found."


class InspectionRuleNotFound(NotFound):
    msg_fmt = "Inspection rule %(rule)s could not be found."


# 406

class NotAcceptable(IronsideException):
    msg_fmt = "Request not acceptable."
    code = HTTPStatus.NOT_ACCEPTABLE


# 409

class Conflict(IronsideException):
    msg_fmt = "Conflict."
    code = HTTPStatus.CONFLICT


class NodeLocked(Conflict):
    msg_fmt = ("Node %(node)s is locked by host %(host)s, please retry "
               "after the current operation is completed.")
    failure_reason = 'NodeLocked'


class ChangedMeanwhile(Conflict):
    msg_fmt = ("%(kind)s %(ident)s was changed by another request while "
               "this one was being applied (fields: %(fields)s); nothing "
               "was changed, please retry.")
    failure_reason = 'ChangedMeanwhile'


class NodeAssociated(Conflict):
    msg_fmt = ("Node %(node)s is associated with instance %(instance)s.")


class NodeAlreadyExists(Conflict):
    msg_fmt = "A node with UUID %(uuid)s already exists."


class DuplicateName(Conflict):
    msg_fmt = "A node with name %(name)s already exists."


class InstanceAssociated(Conflict):
    msg_fmt = ("Instance %(instance_uuid)s is already associated with a "
               "node, it cannot be associated with this other node %(node)s")


class PortAlreadyExists(Conflict):
    msg_fmt = "A port with UUID %(uuid)s already exists."


class MACAlreadyExists(Conflict):
    msg_fmt = "A port with MAC address %(mac)s already exists."


class VifAlreadyAttached(Conflict):
    msg_fmt = "Unable to attach VIF because VIF %(vif)s is already attached"
    msg_fmt += " to %(object_type)s %(object_uuid)s"


class PortDuplicateName(Conflict):
    msg_fmt = "A port with name %(name)s already exists."


class PortgroupAlreadyExists(Conflict):
    msg_fmt = "A portgroup with UUID %(uuid)s already exists."


class PortgroupDuplicateName(Conflict):
    msg_fmt = "A portgroup with name %(name)s already exists."


class PortgroupMACAlreadyExists(Conflict):
    msg_fmt = "A portgroup with MAC address %(mac)s already exists."


class PortgroupNotEmpty(Conflict):
    msg_fmt = ("Cannot complete the requested action because portgroup "
               "%(portgroup)s contains ports.")


class ChassisAlreadyExists(Conflict):
    msg_fmt = "A chassis with UUID %(uuid)s already exists."


class AllocationAlreadyExists(Conflict):
    msg_fmt = "An allocation with UUID %(uuid)s already exists."


class AllocationDuplicateName(Conflict):
    msg_fmt = "An allocation with name %(name)s already exists."


class InvalidState(Conflict):
    msg_fmt = "Invalid resource state."


class DeployTemplateAlreadyExists(Conflict):
    msg_fmt = "A deploy template with UUID %(uuid)s already exists."


class DeployTemplateDuplicateName(Conflict):
    msg_fmt = "A deploy template with name %(name)s already exists."


class VolumeConnectorAlreadyExists(Conflict):
    msg_fmt = "A volume connector with UUID %(uuid)s already exists."


class VolumeConnectorTypeAndIdAlreadyExists(Conflict):
    msg_fmt = ("A volume connector with type %(type)s and connector ID "
               "%(connector_id)s already exists.")


class VolumeTargetAlreadyExists(Conflict):
    msg_fmt = "A volume target with UUID %(uuid)s already exists."


class VolumeTargetBootIndexAlreadyExists(Conflict):
    msg_fmt = ("A volume target with boot index '%(boot_index)s' for the "
               "same node already exists.")


class RunbookAlreadyExists(Conflict):
    msg_fmt = "A runbook with UUID %(uuid)s already exists."


class RunbookDuplicateName(Conflict):
    msg_fmt = "A runbook with name %(name)s already exists."


class ConductorAlreadyRegistered(Conflict):
    msg_fmt = ("Conductor %(conductor)s already registered: another "
               "running process uses this host name.")


class NodeNotLocked(IronsideException):
    msg_fmt = "Node %(node)s found not to be locked on release"


class ConcurrentActionLimit(IronsideException):
    # Ironic's words; like Ironic, the limit itself is not told.
    msg_fmt = ("Unable to process request at this time. The concurrent "
               "action limit for %(task_type)s has been reached. Please "
               "contact your administrator and try again later.")
    code = HTTPStatus.SERVICE_UNAVAILABLE


# 413

class RequestTooLarge(IronsideException):
    msg_fmt = "Request body is too large: %(err)s"
    code = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    failure_reason = 'InvalidInput'


# 503

class NoFreeConductorWorker(IronsideException):
    msg_fmt = 'Requested action cannot be performed due to lack of free '
    msg_fmt += 'conductor workers.'
    code = HTTPStatus.SERVICE_UNAVAILABLE


class TemporaryFailure(IronsideException):
    msg_fmt = "Resource temporarily unavailable, please retry."
    code = HTTPStatus.SERVICE_UNAVAILABLE


class ConductorUnreachable(TemporaryFailure):
    """A call to a conductor was not answered within its time: the broker
    or the conductor could not be reached, or the conductor did not
    answer. Raised by the caller's RPC client, never by a conductor."""

    msg_fmt = ('Conductor %(host)s can not be reached at %(address)s '
               '(%(reason)s); please retry.')


class DatabaseUnavailable(TemporaryFailure):
    msg_fmt = "The database cannot be reached; please retry."
    failure_reason = 'DatabaseUnavailable'


class NoValidHost(IronsideException):
    msg_fmt = "No valid host was found. Reason: %(reason)s"
    code = HTTPStatus.SERVICE_UNAVAILABLE


# Failures of operations on hardware. These end up in a node's last_error.

class HardwareInspectionFailure(IronsideException):
    msg_fmt = "Failed to inspect hardware. Reason: %(error)s"
    failure_reason = 'InspectionFailed'


class StepFailed(IronsideException):
    msg_fmt = "Step %(step)s failed: %(reason)s"
    failure_reason = 'StepFailed'


class PowerStateFailure(IronsideException):
    msg_fmt = "Failed to set node power state to %(pstate)s."
    failure_reason = 'PowerFailure'


class BMCError(IronsideException):
    """The BMC answered, but with an error."""

    msg_fmt = "BMC %(bmc)s reported an error: %(reason)s"
    failure_reason = 'BMCError'


class BMCConnectionFailed(BMCError):
    """The BMC did not answer within the retry budget."""

    msg_fmt = "BMC %(bmc)s did not answer: %(reason)s"
    failure_reason = 'BMCUnreachable'
    # Not the request's fault nor a server bug: ask again later.
    code = HTTPStatus.SERVICE_UNAVAILABLE


class BMCNotReached(BMCConnectionFailed):
    """No connection to the BMC could be made within the retry budget."""

    msg_fmt = "BMC %(bmc)s cannot be reached: %(reason)s"


class BMCBusy(TemporaryFailure):
    msg_fmt = ("BMC %(bmc)s is busy: too many calls are waiting for it "
               "(%(action)s refused); please retry.")
    failure_reason = 'BMCBusy'


class IPMIFailure(BMCError):
    msg_fmt = "IPMI call to %(bmc)s failed: %(reason)s"


class RedfishError(BMCError):
    msg_fmt = "Redfish call to %(bmc)s failed: %(reason)s"


class DriverLoadError(IronsideException):
    msg_fmt = ("Driver, hardware type or interface %(driver)s could not be "
               "loaded. Reason: %(reason)s.")


class ConfigInvalid(IronsideException):
    msg_fmt = "Invalid configuration: %(error_msg)s"


# The site layer's errors live in their own module, by responsibility;
# they are names of this one too.
from ironside.common.site_exceptions import *  # noqa: E402,F401,F403
