"""Process start-up: what a service does once it has started."""

from __future__ import annotations

import gc
import os

import pytest

from ironside.common import service


@pytest.fixture
def gc_settings():
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_start_up_objects_are_frozen_out_of_collections(gc_settings):
    kept = [object() for _ in range(10)]
    service.freeze_start_up_objects()
    assert gc.get_freeze_count() > len(kept)
    assert gc.get_threshold()[0] == 50000



def _private_dirty_kib() -> int:
    with open('/proc/self/smaps_rollup') as rollup:
        for line in rollup:
            if line.startswith('Private_Dirty:'):
                return int(line.split()[1])
    raise AssertionError('no Private_Dirty in smaps_rollup')


def _copied_by_a_collection_in_a_child() -> int:
    """KiB of the parent's pages a forked child's full collection copies."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        before = _private_dirty_kib()
        gc.collect()
        os.write(write, b'%d' % (_private_dirty_kib() - before))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, 'rb') as answer:
        copied = int(answer.read())
    os.waitpid(child, 0)
    return copied


def test_objects_shared_before_a_fork_stay_shared(gc_settings):
    """A child's collection leaves the pages of the objects its parent
    froze before the fork alone (here 300,000 lists, about 30 MiB)."""
    inherited = [[index] for index in range(300_000)]
    copied_when_not_shared = _copied_by_a_collection_in_a_child()
    service.freeze_start_up_objects()
    copied_when_shared = _copied_by_a_collection_in_a_child()
    assert copied_when_not_shared > 20_000
    assert copied_when_shared < copied_when_not_shared / 4
    assert len(inherited) == 300_000
