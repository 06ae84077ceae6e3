"""A deploy step added to the redfish type, acting on real hardware.

The redfish vendor interface has no steps of its own; this subclass adds
one that lights the server's identify LED through the BMC, so whoever
walks the racks sees which servers were just deployed. It reaches the
BMC through ``self.call``: the node's cached sushy connection, with the
redfish interfaces' retries and error messages.
"""

import sushy

from ironside.common import exception
from ironside.drivers import base
from ironside.drivers.modules.redfish import vendor

LED_STATES = {'lit': sushy.IndicatorLED.LIT,
              'blinking': sushy.IndicatorLED.BLINKING,
              'off': sushy.IndicatorLED.OFF}


class ExampleRedfishVendor(vendor.RedfishVendor):
    @base.deploy_step(priority=10, argsinfo={
        'state': {'description': 'LED state: "lit", "blinking" or "off". '
                                 'Default "blinking".',
                  'required': False},
    })
    def identify_deployed(self, task, state: str = 'blinking') -> None:
        """Runs last (after boot_instance, 20): set the identify LED."""
        if state not in LED_STATES:
            raise exception.InvalidParameterValue(
                err='identify_deployed: state must be one of %s, not %r'
                    % (', '.join(LED_STATES), state))
        self.call(task, 'set identify LED',
                  lambda system: system.set_indicator_led(
                      LED_STATES[state]))
        task.node.extra['identify_led'] = state
