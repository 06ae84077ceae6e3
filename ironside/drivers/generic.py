"""Defaults every hardware type shares for its optional interfaces."""

from ironside.drivers import base
from ironside.drivers.modules import noop

OPTIONAL_DEFAULTS: dict[str, list[type[base.BaseInterface]]] = {
    'bios': [noop.NoBIOS],
    'console': [noop.NoConsole],
    'firmware': [noop.NoFirmware],
    'inspect': [noop.NoInspect],
    'network': [noop.NoopNetwork],
    'raid': [noop.NoRAID],
    'rescue': [noop.NoRescue],
    'storage': [noop.NoopStorage],
    'vendor': [noop.NoVendor],
}


def with_optional_defaults(supported: dict[str, list[type]]
                           ) -> dict[str, list[type]]:
    """``supported`` plus the no-op implementations, tried last."""
    merged = {key: list(value) for key, value in supported.items()}
    for iface, defaults in OPTIONAL_DEFAULTS.items():
        merged.setdefault(iface, [])
        merged[iface].extend(d for d in defaults if d not in merged[iface])
    return merged


class GenericHardware(base.HardwareType):
    supported_interfaces = with_optional_defaults({})
