"""The ipmi hardware type: power and boot device over IPMI (pyghmi); the
agent on the machine deploys, cleans, inspects and rescues."""

from ironside.drivers import base
from ironside.drivers import generic
from ironside.drivers.modules import fake
from ironside.drivers.modules import noop
from ironside.drivers.modules import pxe
from ironside.drivers.modules import ramdisk
from ironside.drivers.modules.agent import deploy as agent_deploy
from ironside.drivers.modules.agent import inspect as agent_inspect
from ironside.drivers.modules.agent import rescue as agent_rescue
from ironside.drivers.modules.ipmi import common
from ironside.drivers.modules.ipmi import management
from ironside.drivers.modules.ipmi import power


class IPMIHardware(base.HardwareType):
    supported_interfaces = generic.with_optional_defaults({
        'boot': [pxe.PXEBoot, pxe.IPXEBoot],
        # Ironic's generic types accept a fake console besides none.
        'console': [noop.NoConsole, fake.FakeConsole],
        'deploy': [ramdisk.RamdiskDeploy, agent_deploy.AgentDeploy],
        'inspect': [agent_inspect.AgentInspect],
        'management': [management.IPMIManagement],
        'power': [power.IPMIPower],
        'rescue': [agent_rescue.AgentRescue],
    })

    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)
