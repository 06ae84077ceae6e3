"""Process start-up: what a service does once it has started."""

from __future__ import annotations

import gc

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

