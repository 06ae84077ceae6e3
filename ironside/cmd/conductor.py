"""ironside-conductor: a conductor serving RPC over [DEFAULT]transport_url."""

from ironside.common import service
from ironside.conductor import service as conductor_service


def main() -> None:
    service.prepare_service()
    conductor = conductor_service.ConductorService()
    conductor.start()
    conductor.run_until_signalled()
