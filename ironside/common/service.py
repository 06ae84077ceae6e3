"""Process start-up shared by every command: configuration and logging."""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

from oslo_log import log

from ironside.common import heap
from ironside.common import log_escaping
from ironside.common.conf import CONF

LOG = logging.getLogger(__name__)

_LOG_LEVELS = ['amqp=WARN', 'amqplib=WARN', 'kombu=WARN',
               'oslo_messaging=INFO', 'sqlalchemy=WARN', 'stevedore=INFO',
               'urllib3=WARN', 'cheroot=WARN', 'oslo.messaging=INFO',
               'futurist=INFO', 'sushy=INFO', 'pyghmi=INFO',
               'asyncssh=WARN']

log.register_options(CONF)


def prepare_service(argv: list[str] | None = None,
                    default_config_files: list[str] | None = None) -> None:
    """Parse the command line and config files, and set up logging
    (every line with its control characters escaped)."""
    argv = sys.argv[1:] if argv is None else argv
    log.set_defaults(default_log_levels=log.get_default_log_levels() +
                     _LOG_LEVELS)
    CONF(argv, project='ironside', version='0.1.0',
         default_config_files=default_config_files)
    log.setup(CONF, 'ironside')
    log_escaping.install()
    heap.limit_arenas(CONF.malloc_arena_max)


def freeze_start_up_objects() -> None:
    """Leave the objects start-up made out of later garbage collections,
    and collect the young ones less often.

    A started service holds a few hundred thousand long-lived objects
    (modules, SQLAlchemy's mappings and compiled statements, oslo.config,
    the drivers). Every full collection, which the garbage of a few big
    answers (a node list) sets off, walked all of them: a pause of about
    a hundred milliseconds for whichever request was running, most of the
    API's slowest answers. Frozen (:func:`gc.freeze`), they are never
    walked again. A page of a thousand nodes also makes tens of thousands
    of objects that live until it is sent: with the default threshold
    (700) they were walked, and promoted, many times over before they
    became garbage; 50,000 lets most of them die young. What the service
    makes afterwards is collected as before, only in bigger batches.

    Called before a fork as well (the all-in-one's), as the :mod:`gc`
    documentation advises for a forking server: a collection writes to
    every object it walks, so each process's first one would copy every
    page of what both inherited; frozen, those pages stay shared.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50000, 20, 20)


def wait_for_signal(alive: Callable[[], bool] = lambda: True,
                    gone: str = 'the process this one serves for ended'
                    ) -> None:
    """Block until SIGTERM or SIGINT, or until ``alive()`` is false
    (asked every half second; ``gone`` says why that stops this one)."""
    stop = threading.Event()

    def _handle(signum: int, _frame: FrameType | None) -> None:
        LOG.info('Signal %d received, stopping', signum)
        stop.set()

    signal.signal(signal.SIGTERM, _handle)
    signal.signal(signal.SIGINT, _handle)
    while not stop.wait(0.5):
        if not alive():
            LOG.warning('Stopping: %s', gone)
            return
