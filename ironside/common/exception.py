"""Every error Ironside raises on purpose, under one name.

Each class carries the HTTP status the API answers with (``code``) and a
message template (``msg_fmt``) filled from keyword arguments. Classes whose
``failure_reason`` is set are the machine-readable reasons stored on a node
beside ``last_error`` when an operation on it fails.

By responsibility, the kinds every error derives from live in
:mod:`~ironside.common.exception_base` and the site layer's errors in
:mod:`~ironside.common.site_exceptions`; both are names of this module
too, so callers say ``exception.NodeNotFound`` and
``exception.InvalidDesign`` alike. The three modules are listed in
oslo.messaging's ``allowed_remote_exmods``, so an exception raised in a
conductor reaches the API as the same class.
"""

from __future__ import annotations

from http import HTTPStatus

# Names of this module too.
from ironside.common.exception_base import Conflict
from ironside.common.exception_base import Invalid
from ironside.common.exception_base import IronsideException
from ironside.common.exception_base import NotAcceptable  # noqa: F401
from ironside.common.exception_base import NotAuthorized
from ironside.common.exception_base import NotFound
from ironside.common.exception_base import TemporaryFailure
from ironside.common.site_exceptions import *  # noqa: F403

# 400

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
    failure_reason = 'BMCCredentialsRejected'


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


# 404

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


class SubscriptionNotFound(NotFound):
    msg_fmt = ("Event subscription %(id)s could not be found on the BMC of "
               "node %(node)s.")


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


# 403

class NodeProtected(NotAuthorized):
    msg_fmt = ("Node %(node)s is protected and cannot be undeployed, "
               "rebuilt or deleted")


# 409

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


class VendorPassthruException(IronsideException):
    """A vendor method failed with an error that is not Ironside's own
    (500, its message told, as Ironic answers)."""

    msg_fmt = "%(err)s"


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


# 400 and 408: a request body the API could not read whole

class UnreadableRequestBody(IronsideException):
    """The API gave up reading a request body (a malformed chunked
    coding, fewer bytes than its Content-Length announced): the answer
    closes the connection, since what follows on it is not a request."""
    msg_fmt = "The request body cannot be read: %(err)s"
    code = HTTPStatus.BAD_REQUEST
    failure_reason = 'InvalidInput'


class RequestBodyTimeout(UnreadableRequestBody):
    msg_fmt = "The request body did not arrive in time: %(err)s"
    code = HTTPStatus.REQUEST_TIMEOUT


# 503

class NoFreeConductorWorker(IronsideException):
    msg_fmt = 'Requested action cannot be performed due to lack of free '
    msg_fmt += 'conductor workers.'
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


class AgentConnectionFailed(IronsideException):
    """The agent on a machine could not be reached."""

    msg_fmt = ("The agent of node %(node)s at %(url)s could not be "
               "reached: %(reason)s")
    failure_reason = 'AgentUnreachable'


class AgentAPIError(IronsideException):
    """The agent answered a request with an error."""

    msg_fmt = ("The agent of node %(node)s refused %(command)s (HTTP "
               "%(status)s): %(error)s")
    failure_reason = 'AgentError'


class AgentInProgress(IronsideException):
    """The agent runs another command and takes no new one."""

    msg_fmt = ("The agent of node %(node)s is busy with another command "
               "and refused %(command)s: %(error)s")
    failure_reason = 'AgentBusy'


class AgentCommandFailed(IronsideException):
    """A command ended with an error on the agent; ``failure_reason`` is
    the agent's error type (ImageChecksumError, ImageDownloadError...)."""

    msg_fmt = "The agent of node %(node)s failed %(command)s: %(error)s"
    failure_reason = 'AgentCommandFailed'


class AgentTimeout(IronsideException):
    msg_fmt = "%(what)s"
    failure_reason = 'AgentTimeout'


class ImageInvalid(Invalid):
    msg_fmt = "Image %(image)s can not be used: %(reason)s"
    failure_reason = 'ImageInvalid'


class DriverLoadError(IronsideException):
    msg_fmt = ("Driver, hardware type or interface %(driver)s could not be "
               "loaded. Reason: %(reason)s.")


class ConfigInvalid(IronsideException):
    msg_fmt = "Invalid configuration: %(error_msg)s"
