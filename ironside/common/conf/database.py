"""[database] options: oslo.db's, with Ironside's defaults."""

from oslo_config import cfg
from oslo_db import options as db_options

DEFAULT_CONNECTION = 'sqlite:////var/lib/ironside/ironside.sqlite'

# Connections each process keeps open to a database server, and how many
# more it may open for a while (oslo.db's defaults: 5 and 50). A
# connection made beyond the pool is closed when it is returned: under a
# burst a conductor's and an API's threads hold 10 to 50 at once, so
# with 5 the fleet's every state change opened about two new PostgreSQL
# connections (a backend process started and ended each time). Only as
# many as were once in use at the same time stay open; the most a
# process may have open at once stays 55.
MAX_POOL_SIZE = 30
MAX_OVERFLOW = 25

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


# Ironside's defaults for oslo.db's [database] options.
OSLO_DB_DEFAULTS = {'connection': DEFAULT_CONNECTION,
                    'max_pool_size': MAX_POOL_SIZE,
                    'max_overflow': MAX_OVERFLOW}


def register_opts(conf: cfg.ConfigOpts) -> None:
    db_options.set_defaults(conf, **OSLO_DB_DEFAULTS)
    conf.register_opts(opts, group='database')
