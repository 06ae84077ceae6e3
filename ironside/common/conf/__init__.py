"""Configuration: every option group, registered once on ``CONF``."""

import oslo_messaging
from oslo_config import cfg
from oslo_messaging import transport as messaging_transport

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

CONF = cfg.CONF

default.register_opts(CONF)
agent.register_opts(CONF)
api.register_opts(CONF)
conductor.register_opts(CONF)
database.register_opts(CONF)
deploy.register_opts(CONF)
inspection_rules.register_opts(CONF)
ipmi.register_opts(CONF)
json_rpc.register_opts(CONF)
metrics.register_opts(CONF)
redeploy.register_opts(CONF)
redfish.register_opts(CONF)
site.register_opts(CONF)
ssh_tasks.register_opts(CONF)

# oslo.messaging registers transport_url and control_exchange only when a
# transport is first made; register them now so config files and tests can
# set them before that.
CONF.register_opts(messaging_transport._transport_opts)
oslo_messaging.set_transport_defaults('ironside')
