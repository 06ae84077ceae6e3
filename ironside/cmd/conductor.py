"""ironside-conductor: a conductor serving RPC over [DEFAULT]transport_url.

It also runs the site action service, which runs site actions
(deploy_site, update_site) and takes over those of dead conductors.
"""

import sys

from ironside.common import exception
from ironside.common import metrics
from ironside.common import service
from ironside.conductor import service as conductor_service
from ironside.strategy import service as site_service


def start_conductor(conductor: conductor_service.ConductorService) -> None:
    """Start it, or exit with one line when another live process holds
    its host name (a supervisor shows the reason, not a traceback)."""
    try:
        conductor.start()
    except exception.ConductorAlreadyRegistered as exc:
        sys.exit('ironside: %s Not starting.' % exc.message)


def main() -> None:
    service.prepare_service()
    conductor = conductor_service.ConductorService()
    try:
        metrics.serve_conductor()
    except exception.ConfigInvalid as exc:
        sys.exit(str(exc))
    start_conductor(conductor)
    site_actions = site_service.SiteActionService.for_manager(
        conductor.manager)
    site_actions.start()
    service.freeze_start_up_objects()
    conductor.run_until_signalled(before_stop=site_actions.stop)
