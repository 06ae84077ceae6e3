"""Concurrent writers wait for each other instead of failing."""

from __future__ import annotations

import threading

from ironside.db import chassis as chassis_db


def test_read_then_write_transactions_in_parallel(db):
    row = chassis_db.create({'description': 'start'})
    errors = []

    def _writer(number: int) -> None:
        for step in range(50):
            try:
                chassis_db.update(row['id'], {'description': '%d-%d'
                                              % (number, step)})
            except Exception as exc:
                errors.append(exc)

    threads = [threading.Thread(target=_writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert chassis_db.get(row['id'])['description'].endswith('-49')
