"""Option listing for oslo-config-generator (no process imports it)."""

from collections.abc import Sequence

import oslo_messaging
from oslo_config import cfg
from oslo_db import options as db_options

from ironside.common.conf import agent
from ironside.common.conf import api
from ironside.common.conf import conductor
from ironside.common.conf import database
from ironside.common.conf import default
from ironside.common.conf import deploy
from ironside.common.conf import inspection_rules
from ironside.common.conf import ipmi
from ironside.common.conf import json_rpc
from ironside.common.conf import metrics
from ironside.common.conf import redeploy
from ironside.common.conf import redfish
from ironside.common.conf import site
from ironside.common.conf import ssh_tasks


def list_opts() -> list[tuple[str, Sequence[cfg.Opt]]]:
    # The sample shows Ironside's default for oslo.messaging's
    # [DEFAULT]control_exchange (its namespace is listed after this one).
    oslo_messaging.set_transport_defaults('ironside')
    # And for oslo.db's [database] options (its namespace comes later
    # too): on its option objects, which are what the generator lists.
    cfg.set_defaults(db_options.database_opts, **database.OSLO_DB_DEFAULTS)
    return [
        ('DEFAULT', default.opts),
        ('agent', agent.opts),
        ('api', api.opts),
        ('conductor', conductor.opts),
        ('database', database.opts),
        ('deploy', deploy.deploy_opts),
        ('inspection_rules', inspection_rules.opts),
        ('ipmi', ipmi.opts),
        ('json_rpc', json_rpc.opts),
        ('metrics', metrics.opts),
        ('pxe', deploy.pxe_opts),
        ('redeploy', redeploy.opts),
        ('redfish', redfish.opts),
        ('site', site.opts),
        ('ssh_tasks', ssh_tasks.opts),
    ]

