"""Process start-up: what a service does once it has started."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

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


_ARENAS_SCRIPT = '''
import ctypes, sys, threading
from ironside.common import service
count = int(sys.argv[1])
limited = service.limit_malloc_arenas(count)
all_alive = threading.Barrier(8)
def allocate():
    kept = [bytes(1000) for _ in range(100)]   # past pymalloc: malloc(3)
    all_alive.wait()    # an ended thread's arena would go to the next
threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
stream = libc.fopen(sys.argv[2].encode(), b"w")
libc.malloc_info(0, ctypes.c_void_p(stream))
libc.fclose(ctypes.c_void_p(stream))
print(limited)
'''


def _arenas_after_eight_threads(tmp_path, count: int, **env: str
                                ) -> tuple[str, int]:
    """(whether limit_malloc_arenas limited them, the arenas glibc's
    malloc_info lists) in a new process whose 8 threads allocated."""
    report = tmp_path / 'malloc_info.xml'
    environment = {key: value for key, value in os.environ.items()
                   if key != 'MALLOC_ARENA_MAX'}
    environment.update(env)
    done = subprocess.run([sys.executable, '-c', _ARENAS_SCRIPT, str(count),
                           str(report)], capture_output=True, text=True,
                          env=environment, check=True)
    return done.stdout.strip(), report.read_text().count('<heap nr=')


def test_malloc_arenas_are_limited_before_threads_allocate(tmp_path):
    """Eight threads make glibc's malloc an arena each (up to 8 per core)
    unless the service limited them first."""
    assert _arenas_after_eight_threads(tmp_path, 2) == ('True', 2)
    limited, arenas = _arenas_after_eight_threads(tmp_path, 0)
    assert limited == 'False'
    assert arenas > 2


def test_malloc_arena_max_in_the_environment_wins(tmp_path):
    assert _arenas_after_eight_threads(tmp_path, 2, MALLOC_ARENA_MAX='3') \
        == ('False', 3)
