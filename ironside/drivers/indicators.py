"""Indicators (LEDs) of a machine's parts, as Ironic's management
interface exposes them (API 1.63).

Kept beside ``base`` so that module stays small; ``ManagementInterface``
inherits these methods. A driver that has indicators overrides all three.
"""

from __future__ import annotations

from typing import Any

from ironside.common import exception
from ironside.drivers.task import Task

# Components an indicator may belong to (Ironic's names).
SYSTEM = 'system'
CHASSIS = 'chassis'
DISK = 'disk'
POWER = 'power'
NIC = 'nic'

# Indicator states.
ON = 'ON'
OFF = 'OFF'
BLINKING = 'BLINKING'
UNKNOWN = 'UNKNOWN'


class IndicatorMethods:
    """The indicator part of the management interface."""

    def get_supported_indicators(self, task: Task
                                 ) -> dict[str, dict[str, Any]]:
        """``{component: {name: {'readonly': bool, 'states': [...]}}}``."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='indicators')

    def get_indicator_state(self, task: Task, component: str,
                            indicator: str) -> str:
        """ON, OFF, BLINKING or UNKNOWN."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='indicators')

    def set_indicator_state(self, task: Task, component: str,
                            indicator: str, state: str) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='indicators')


def check_known(supported: dict[str, dict[str, Any]], component: str,
                indicator: str, state: str | None = None) -> None:
    """404 for an indicator the machine does not have; 400 for a state
    it cannot take or a read-only indicator."""
    fields = supported.get(component, {}).get(indicator)
    if fields is None:
        raise exception.NotFound(
            'Indicator %s@%s not found' % (indicator, component))
    if state is None:
        return
    if fields.get('readonly'):
        raise exception.InvalidParameterValue(
            err='Indicator %s@%s is read-only' % (indicator, component))
    if state not in fields.get('states', ()):
        raise exception.InvalidParameterValue(
            err='Indicator %s@%s cannot be set to %s; it supports %s'
                % (indicator, component, state,
                   ', '.join(fields.get('states', ()))))
