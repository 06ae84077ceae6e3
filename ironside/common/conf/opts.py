"""Option listing for oslo-config-generator."""

from ironside.common.conf import api
from ironside.common.conf import conductor
from ironside.common.conf import default
from ironside.common.conf import site


def list_opts():
    return [
        ('DEFAULT', default.opts),
        ('api', api.opts),
        ('conductor', conductor.opts),
        ('site', site.opts),
    ]

