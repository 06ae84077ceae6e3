"""The fleet's caps on deploys and cleanings (Ironic's
``[conductor]max_concurrent_deploy`` and ``max_concurrent_clean``).

A request that would move a node into one of a cap's states is refused
with ConcurrentActionLimit (HTTP 503) when the whole fleet already has
that many nodes there. The count and the node's move are one transaction
under the cap's row lock (:mod:`ironside.db.fleet`), so conductors
deciding at the same moment never pass the last slot twice.

As in Ironic, deploy and rebuild are checked against the deploy cap,
tear down and manual cleaning against the clean cap; provide is counted
but never refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

from ironside.common import states
from ironside.common.conf import CONF
from ironside.db import fleet as fleet_db

T = TypeVar('T')


@dataclasses.dataclass(frozen=True)
class Cap:
    name: str
    option: str
    states: tuple[str, ...]
    task_type: str

    @property
    def limit(self) -> int:
        limit: int = getattr(CONF.conductor, self.option)
        return limit

    def admit(self, write: Callable[[], T]) -> T:
        """``write`` if the fleet is under the cap; else refused."""
        return fleet_db.admit(self.name, self.states, self.limit,
                              self.task_type, write)


_DEPLOY_STATES = (states.DEPLOYING, states.DEPLOYWAIT)
_CLEAN_STATES = (states.DELETING, states.CLEANING, states.CLEANWAIT)

DEPLOY = Cap('deploy', 'max_concurrent_deploy', _DEPLOY_STATES,
             'provisioning')
TEAR_DOWN = Cap('clean', 'max_concurrent_clean', _CLEAN_STATES,
                'unprovisioning')
CLEAN = Cap('clean', 'max_concurrent_clean', _CLEAN_STATES, 'cleaning')
