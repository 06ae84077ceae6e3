"""[site]max_nodes_in_flight held in the database across conductors."""

from __future__ import annotations

import datetime
import threading

import sqlalchemy as sa

from ironside.db import conductors as conductors_db
from ironside.db import models
from ironside.db import session as db_session
from ironside.strategy.run.in_flight import FleetInFlight
from tests.utils import wait_for


def _conductor(host: str, alive: bool = True) -> None:
    conductors_db.register_conductor(host, '', ['fake-hardware'], [], 60)
    if not alive:
        with db_session.writer() as session:
            session.execute(
                sa.update(models.Conductor)
                .where(models.Conductor.hostname == host)
                .values(heartbeat_at=models.utcnow() -
                        datetime.timedelta(hours=1)))


def test_cap_is_shared_by_conductors(db):
    _conductor('cond-a')
    _conductor('cond-b')
    a = FleetInFlight('cond-a', size=3)
    b = FleetInFlight('cond-b', size=3)
    assert a.try_acquire() and a.try_acquire()
    assert b.try_acquire()
    assert not b.try_acquire()
    assert not a.try_acquire()
    assert (a.used, b.used) == (2, 1)
    a.release()
    # b asks again once its pause after a refusal is over.
    wait_for(b.try_acquire, timeout=5, interval=0.01)
    assert (a.used, b.used) == (1, 2)


def test_a_dead_conductors_slots_come_back(db):
    _conductor('cond-a')
    _conductor('cond-dead')
    dead = FleetInFlight('cond-dead', size=2)
    assert dead.try_acquire() and dead.try_acquire()
    a = FleetInFlight('cond-a', size=2)
    assert not a.try_acquire()
    _conductor('cond-dead', alive=False)
    a.release(1)   # gives back nothing it held, but asks again at once
    assert a.try_acquire() and a.try_acquire()


def test_taking_over_counts_nodes_in_flight_beyond_the_cap(db):
    _conductor('cond-a')
    a = FleetInFlight('cond-a', size=2)
    a.force_acquire(3)
    assert a.used == 3
    assert not a.try_acquire()
    a.release(2)
    assert a.try_acquire()       # 1 held: one more fits under 2
    assert not a.try_acquire()
    assert a.used == 2
    a.reset()
    assert a.used == 0


def test_threads_of_several_conductors_never_exceed_the_cap(db):
    hosts = ['cond-%d' % i for i in range(3)]
    for host in hosts:
        _conductor(host)
    limits = [FleetInFlight(host, size=4) for host in hosts]
    granted = []
    start = threading.Barrier(12)

    def _try(limit):
        start.wait()
        if limit.try_acquire():
            granted.append(limit.host)

    threads = [threading.Thread(target=_try, args=(limits[i % 3],))
               for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(granted) == 4
    assert sum(limit.used for limit in limits) == 4
