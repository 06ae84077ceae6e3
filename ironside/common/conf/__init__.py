"""Configuration: every option group, registered once on ``CONF``."""

from oslo_config import cfg

from ironside.common.conf import api
from ironside.common.conf import conductor
from ironside.common.conf import database
from ironside.common.conf import default
from ironside.common.conf import site

CONF = cfg.CONF

default.register_opts(CONF)
api.register_opts(CONF)
conductor.register_opts(CONF)
database.register_opts(CONF)
site.register_opts(CONF)
