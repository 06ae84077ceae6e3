"""Configuration: every option group, registered once on ``CONF``."""

import oslo_messaging
from oslo_config import cfg
from oslo_messaging import opts as messaging_opts

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
# transport is first made; register them now (from its public list of
# options, equal to the ones it registers later) so config files and tests
# can set them before that.
oslo_messaging.set_transport_defaults('ironside')
_TRANSPORT_OPTS = ('transport_url', 'control_exchange')
for _group, _opts in messaging_opts.list_opts():
    if _group is None:
        CONF.register_opts([opt for opt in _opts
                            if opt.name in _TRANSPORT_OPTS])
