"""What the ipmi interfaces ask of a BMC, as run in its session process.

Each operation takes the session's pyghmi ``Command`` and returns plain
values: it runs in the BMC's own process (see ``session_process``), and
its answer crosses back to the conductor pickled. The conductor names an
operation by the function itself (pickled by reference).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pyghmi import exceptions as pyghmi_exc


@dataclasses.dataclass(frozen=True)
class Reading:
    """One sensor reading, as pyghmi's SensorReading says it."""

    name: str
    kind: str | None
    value: Any
    units: str | None
    states: tuple[str, ...]
    health: int


def _reading(sensor: Any) -> Reading:
    return Reading(name=sensor.name, kind=getattr(sensor, 'type', None),
                   value=sensor.value, units=sensor.units,
                   states=tuple(sensor.states or ()),
                   health=int(sensor.health or 0))


def log_in(command: Any) -> None:
    """Nothing: opening the session was the check."""


def get_power(command: Any) -> str | None:
    """'on', 'off', or None when the BMC says something else."""
    state: str | None = command.get_power().get('powerstate')
    return state


def set_power(command: Any, state: str) -> None:
    """Ask for ``state`` (pyghmi's word) without waiting for it."""
    command.set_power(state)


def get_boot_device(command: Any) -> dict[str, Any]:
    """pyghmi's answer: bootdev, persistent, uefimode."""
    return dict(command.get_bootdev())


def set_boot_device(command: Any, device: str, persistent: bool,
                    uefi: bool) -> None:
    result = command.set_bootdev(device, persist=persistent, uefiboot=uefi)
    if isinstance(result, dict) and 'error' in result:
        raise pyghmi_exc.IpmiException(result['error'])


def reset_bmc(command: Any) -> None:
    command.reset_bmc()


def sensor_readings(command: Any) -> list[Reading]:
    return [_reading(sensor) for sensor in command.get_sensor_data()]


def health(command: Any) -> tuple[int, list[Reading]]:
    """pyghmi's health bits, and the readings that are not ok."""
    summary = command.get_health()
    return (int(summary.get('health', 0)),
            [_reading(sensor) for sensor in summary.get('badreadings', [])])
