"""The wake-up of a site action service in this process.

Set when an action is queued; a site action service in the same process
(the all-in-one) wakes at once instead of at its next check. A module of
its own so that the service needs nothing of the planning that queues
actions (:mod:`ironside.strategy.actions`: the readers, the design graph
and their libraries), which a conductor that only runs actions never
uses.
"""

from __future__ import annotations

import threading

queued = threading.Event()
