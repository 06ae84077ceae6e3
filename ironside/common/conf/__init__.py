"""Configuration: every option group, registered once on ``CONF``."""

from oslo_config import cfg

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

# [DEFAULT]transport_url and control_exchange are oslo.messaging's:
# ironside.common.rpc registers them, in the processes that use it.
