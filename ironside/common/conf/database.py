"""[database] options: oslo.db's, with Ironside's defaults."""

from oslo_db import options as db_options

DEFAULT_CONNECTION = 'sqlite:////var/lib/ironside/ironside.sqlite'


def register_opts(conf):
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)
