"""The fake-hardware type: every interface fake, for tests and demos."""

from ironside.drivers import base
from ironside.drivers import generic
from ironside.drivers.modules import fake


class FakeHardware(base.HardwareType):
    supported_interfaces = generic.with_optional_defaults({
        'bios': [fake.FakeBIOS],
        'boot': [fake.FakeBoot],
        'console': [fake.FakeConsole],
        'deploy': [fake.FakeDeploy],
        'firmware': [fake.FakeFirmware],
        'inspect': [fake.FakeInspect],
        'management': [fake.FakeManagement],
        'power': [fake.FakePower],
        'raid': [fake.FakeRAID],
        'rescue': [fake.FakeRescue],
        'vendor': [fake.FakeVendor],
    })

    def get_properties(self) -> dict[str, str]:
        return dict(fake.PROPERTIES)
