"""How long a node's lock is waited out before its request is given up."""

from __future__ import annotations

import datetime

from ironside.strategy.nodes import seam
from ironside.strategy.run import submission


def test_a_lock_is_waited_out_for_so_long(conf):
    conf.set('site', node_locked_timeout=30)
    locks = submission.LockWait()
    start = datetime.datetime(2026, 1, 1)
    error = seam.Locked('node n1 is locked by host other')
    assert locks.given_up('u', start, 'manage', error) is None
    assert locks.given_up('u', start + datetime.timedelta(seconds=29),
                          'manage', error) is None
    assert locks.given_up('u', start + datetime.timedelta(seconds=30),
                          'manage', error) == (
        'manage not made: the node is still locked after 30 seconds: '
        'node n1 is locked by host other')
    # A request made in between starts the wait afresh.
    locks.forget('u')
    assert locks.given_up('u', start + datetime.timedelta(seconds=40),
                          'manage', error) is None
