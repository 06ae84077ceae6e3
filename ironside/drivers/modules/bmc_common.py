"""What the ipmi and redfish interfaces share: driver_info parsing,
waiting for a power state, and the power interface's reading side.

Parsing never touches the BMC; it turns ``driver_info`` into typed values
or raises one :class:`~ironside.common.exception.InvalidParameterValue`
(or ``MissingParameterValue``) naming the key and what is wrong, so a bad
enrolment is refused with a 400 and changes nothing. Passwords are never
part of a message.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import ClassVar
from typing import TypeVar
from typing import overload

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.drivers import base

T = TypeVar('T')


def required_str(info: Mapping[str, Any], key: str, node_uuid: str) -> str:
    value = info.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise exception.MissingParameterValue(
            err='Node %s: driver_info is missing %s' % (node_uuid, key))
    if not isinstance(value, str):
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info %s must be a string'
                % (node_uuid, key))
    return value.strip()


@overload
def optional_str(info: Mapping[str, Any], key: str, node_uuid: str,
                 default: str) -> str: ...


@overload
def optional_str(info: Mapping[str, Any], key: str, node_uuid: str,
                 default: None = None) -> str | None: ...


def optional_str(info: Mapping[str, Any], key: str, node_uuid: str,
                 default: str | None = None) -> str | None:
    value = info.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info %s must be a string'
                % (node_uuid, key))
    return value


def port(info: Mapping[str, Any], key: str, node_uuid: str,
         default: int) -> int:
    value = info.get(key, default)
    try:
        number = int(value)
        if isinstance(value, bool) or str(number) != str(value).strip():
            raise ValueError(value)
    except (TypeError, ValueError):
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info %s must be a port number (1-65535), '
                'not %r' % (node_uuid, key, value)) from None
    if not 0 < number < 65536:
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info %s must be between 1 and 65535, not '
                '%d' % (node_uuid, key, number))
    return number


def positive_number(info: Mapping[str, Any], key: str, node_uuid: str,
                    default: float) -> float:
    value = info.get(key, default)
    try:
        if isinstance(value, bool):
            raise ValueError(value)
        number = float(value)
    except (TypeError, ValueError):
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info %s must be a number of seconds, not '
                '%r' % (node_uuid, key, value)) from None
    if number <= 0:
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info %s must be more than 0 seconds'
                % (node_uuid, key))
    return number


_TRUE = ('true', '1', 'yes', 'on')
_FALSE = ('false', '0', 'no', 'off')


def bool_or_path(info: Mapping[str, Any], key: str, node_uuid: str,
                 default: bool = True) -> bool | str:
    """A boolean, or a string that is not one (a CA bundle path)."""
    value = info.get(key, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.strip().lower() in _TRUE:
            return True
        if value.strip().lower() in _FALSE:
            return False
        if value.strip():
            return value.strip()
    raise exception.InvalidParameterValue(
        err='Node %s: driver_info %s must be a boolean or a path to a CA '
            'bundle, not %r' % (node_uuid, key, value))


def choice(info: Mapping[str, Any], key: str, node_uuid: str,
           choices: tuple[T, ...], default: T) -> T:
    value: T = info.get(key, default)
    if value not in choices:
        raise exception.InvalidParameterValue(
            err='Node %s: driver_info %s must be one of %s, not %r'
                % (node_uuid, key, ', '.join(map(str, choices)), value))
    return value


def wait_for_power_state(read: Callable[[], str], target: str,
                         timeout: float | None, interval: float,
                         bmc: str) -> None:
    """Poll ``read`` until it returns ``target`` or ``timeout`` passes
    (none given: [conductor]power_state_change_timeout).

    Raises PowerStateFailure naming the BMC, the target and the state
    last seen.
    """
    timeout = timeout or CONF.conductor.power_state_change_timeout
    deadline = time.monotonic() + timeout
    while True:
        current = read()
        if current == target:
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise exception.PowerStateFailure(
                'BMC %s did not reach power state "%s" within %ss (last '
                'seen: "%s")'
                % (bmc, target, format_seconds(timeout), current))
        time.sleep(min(interval, remaining))


def format_seconds(value: float) -> str:
    """Seconds as errors name them: ``5``, or ``2.50`` when not whole."""
    return ('%d' % value) if float(value).is_integer() else ('%.2f' % value)


# What each requested power state ends in.
TARGET_OF = {
    states.POWER_ON: states.POWER_ON,
    states.POWER_OFF: states.POWER_OFF,
    states.SOFT_POWER_OFF: states.POWER_OFF,
    states.REBOOT: states.POWER_ON,
    states.SOFT_REBOOT: states.POWER_ON,
}


class BMCPower(base.PowerInterface):
    """A power interface that asks a BMC: its driver_info keys, their
    validation and the one read of the power state are the driver's own
    functions, named by the subclass; how a change is sent differs by
    protocol and stays there."""

    properties: ClassVar[Mapping[str, str]]

    @staticmethod
    @abc.abstractmethod
    def check_driver_info(task: base.Task) -> object:
        """Parse the node's driver_info or raise; never touches the BMC."""

    @staticmethod
    @abc.abstractmethod
    def read_power_state(task: base.Task) -> str:
        """The node's power state as the BMC reports it now."""

    def get_properties(self) -> dict[str, str]:
        return dict(self.properties)

    def validate(self, task: base.Task) -> None:
        self.check_driver_info(task)

    def get_power_state(self, task: base.Task) -> str:
        return self.read_power_state(task)
