"""driver_info of ipmi nodes, and the calls the ipmi interfaces make.

Calls go to the BMC's session process (see ``sessions``), bounded by the
node's retry budget.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any
from typing import TypeVar

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers.modules import bmc_common
from ironside.drivers.modules.ipmi import operations
from ironside.drivers.modules.ipmi import sessions

LOG = logging.getLogger(__name__)
T = TypeVar('T')

PROPERTIES = {
    'ipmi_address': 'IP address or host name of the BMC. Required.',
    'ipmi_port': 'UDP port of the BMC. Optional; default 623.',
    'ipmi_username': 'User name on the BMC. Optional; default none.',
    'ipmi_password': 'Password of that user. Optional; default none.',
    'ipmi_retry_timeout': 'Seconds to keep retrying a command to a BMC '
                          'that does not answer. Optional; default '
                          '[ipmi]command_retry_timeout.',
}


@dataclasses.dataclass(frozen=True)
class IPMIInfo:
    bmc: sessions.BMC
    retry_timeout: float

    @property
    def name(self) -> str:
        """How errors and logs name the BMC."""
        return self.bmc.name


def parse_driver_info(node: Any) -> IPMIInfo:
    """Typed driver_info; a clear 400 naming the key if it is wrong."""
    info = node.driver_info or {}
    uuid = node.uuid
    return IPMIInfo(
        bmc=sessions.BMC(
            address=bmc_common.required_str(info, 'ipmi_address', uuid),
            port=bmc_common.port(info, 'ipmi_port', uuid, 623),
            username=bmc_common.optional_str(info, 'ipmi_username', uuid,
                                             ''),
            password=bmc_common.optional_str(info, 'ipmi_password', uuid,
                                             '')),
        retry_timeout=bmc_common.positive_number(
            info, 'ipmi_retry_timeout', uuid,
            CONF.ipmi.command_retry_timeout))


def call(task: base.Task, action: str, operation: Callable[..., T],
         *args: Any) -> T:
    """Run ``operation(command, *args)`` (one of ``operations``) on the
    BMC of ``task.node``, within the node's retry budget."""
    info = parse_driver_info(task.node)
    return sessions.SESSIONS.call(info.bmc, action, info.retry_timeout,
                                  operation, *args,
                                  exclusive=not task.shared)


def validate(task: base.Task) -> IPMIInfo:
    """Check driver_info, and the credentials when the BMC answers.

    A BMC that does not answer within [ipmi]validate_timeout passes: it
    is not a credentials problem, and the action itself then fails with
    the BMC named. Credentials it refuses are a 400.
    """
    info = parse_driver_info(task.node)
    if sessions.SESSIONS.is_open(info.bmc):
        return info
    try:
        sessions.SESSIONS.call(info.bmc, 'log in',
                               CONF.ipmi.validate_timeout, operations.log_in,
                               exclusive=not task.shared)
    except (exception.BMCConnectionFailed, exception.BMCBusy) as exc:
        LOG.info('BMC %s did not answer while validating (not a '
                 'credentials problem): %s', info.name, exc)
    except exception.IPMIFailure as exc:
        LOG.info('BMC %s could not log in while validating: %s',
                 info.name, exc)
    return info
