"""A deploy step added to fake-hardware's deploy interface.

Subclassing an interface the hardware type already supports is all it
takes: the type accepts subclasses of the implementations it lists, and
the decorator makes the method a step. Every step of the parent class is
inherited, so the deploy still writes the image and boots it.
"""

from ironside.drivers import base
from ironside.drivers.modules import fake


class ExampleFakeDeploy(fake.FakeDeploy):
    @base.deploy_step(priority=70, argsinfo={
        'message': {'description': 'Text to leave in the node\'s '
                                   'extra["motd"].',
                    'required': False},
    })
    def write_motd(self, task, message: str = 'deployed by Ironside'):
        """Runs after write_image (80) and before prepare_instance_boot
        (60): leave a message of the day on the node."""
        task.node.extra['motd'] = message
