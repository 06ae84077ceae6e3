"""[database] options: oslo.db's, with Ironside's defaults."""

from oslo_config import cfg
from oslo_db import options as db_options

DEFAULT_CONNECTION = 'sqlite:////var/lib/ironside/ironside.sqlite'

opts = [
    cfg.IntOpt('outage_write_timeout', default=900, min=1,
               help='How long, in seconds, a conductor keeps retrying '
                    'the write that records what happened to a node (its '
                    'state, its failure, the release of its lock) while '
                    'the database cannot be reached. The write is retried '
                    'with backoff up to 5 s apart, so the true outcome is '
                    'recorded and the lock freed once the database is '
                    'back, instead of a node left locked.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)
    conf.register_opts(opts, group='database')
