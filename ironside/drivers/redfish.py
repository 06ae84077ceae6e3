"""The redfish hardware type: power, boot, BIOS, RAID, inspection and
virtual media over Redfish (sushy)."""

from ironside.drivers import base
from ironside.drivers import generic
from ironside.drivers.modules import fake
from ironside.drivers.modules import noop
from ironside.drivers.modules import pxe
from ironside.drivers.modules import ramdisk
from ironside.drivers.modules.agent import deploy as agent_deploy
from ironside.drivers.modules.agent import inspect as agent_inspect
from ironside.drivers.modules.agent import rescue as agent_rescue
from ironside.drivers.modules.redfish import bios
from ironside.drivers.modules.redfish import boot
from ironside.drivers.modules.redfish import common
from ironside.drivers.modules.redfish import firmware
from ironside.drivers.modules.redfish import inspect
from ironside.drivers.modules.redfish import management
from ironside.drivers.modules.redfish import power
from ironside.drivers.modules.redfish import raid
from ironside.drivers.modules.redfish import vendor


class RedfishHardware(base.HardwareType):
    supported_interfaces = generic.with_optional_defaults({
        'bios': [bios.RedfishBIOS],
        'boot': [pxe.PXEBoot, boot.RedfishVirtualMediaBoot, pxe.IPXEBoot],
        # Ironic's generic types accept a fake console besides none.
        'console': [noop.NoConsole, fake.FakeConsole],
        'deploy': [ramdisk.RamdiskDeploy, agent_deploy.AgentDeploy],
        'firmware': [firmware.RedfishFirmware],
        'inspect': [inspect.RedfishInspect, agent_inspect.AgentInspect],
        'management': [management.RedfishManagement],
        'power': [power.RedfishPower],
        'raid': [raid.RedfishRAID],
        'rescue': [agent_rescue.AgentRescue],
        'vendor': [vendor.RedfishVendor],
    })

    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)
