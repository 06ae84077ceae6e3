"""Process start-up shared by every command: configuration and logging."""

from __future__ import annotations

import sys

from oslo_log import log

from ironside.common.conf import CONF

_LOG_LEVELS = ['amqp=WARN', 'amqplib=WARN', 'kombu=WARN',
               'oslo_messaging=INFO', 'sqlalchemy=WARN', 'stevedore=INFO',
               'urllib3=WARN', 'cheroot=WARN', 'oslo.messaging=INFO',
               'futurist=INFO', 'sushy=INFO', 'pyghmi=INFO',
               'asyncssh=WARN']

log.register_options(CONF)


def prepare_service(argv: list[str] | None = None,
                    default_config_files: list[str] | None = None) -> None:
    """Parse the command line and config files, and set up logging."""
    argv = sys.argv[1:] if argv is None else argv
    log.set_defaults(default_log_levels=log.get_default_log_levels() +
                     _LOG_LEVELS)
    CONF(argv, project='ironside', version='0.1.0',
         default_config_files=default_config_files)
    log.setup(CONF, 'ironside')
