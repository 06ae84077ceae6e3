"""Freed memory handed back after large answers (common/heap.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from ironside.common import heap
from tests.utils import wait_for


def test_asks_within_the_interval_are_one_trim():
    started = threading.Event()
    release = threading.Event()
    calls = []

    def trim(pad: int) -> int:
        calls.append(pad)
        started.set()
        release.wait(10)
        return 1

    trimmer = heap.Trimmer(trim, interval=0.05)
    trimmer.ask()
    assert started.wait(10)
    for _ in range(20):     # while the first trim runs
        trimmer.ask()
    release.set()
    wait_for(lambda: trimmer.trims == 2, what='the second trim')
    assert calls == [0, 0]
    trimmer.ask()
    wait_for(lambda: trimmer.trims == 3, what='a trim after the interval')


def test_a_trim_that_fails_does_not_stop_the_trimmer():
    def trim(pad: int) -> int:
        raise OSError('no')

    trimmer = heap.Trimmer(trim, interval=0)
    trimmer.ask()
    wait_for(lambda: trimmer.trims == 1)
    trimmer.ask()
    wait_for(lambda: trimmer.trims == 2)


def test_without_glibc_nothing_is_asked():
    trimmer = heap.Trimmer(None)
    trimmer.ask()
    assert trimmer.trims == 0


_SCATTERED = '''
import sys, time
from ironside.common import heap
def rss_mib():
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith('VmRSS'):
                return int(line.split()[1]) / 1024
made = [bytes(3000) for _ in range(60000)]     # past pymalloc: malloc(3)
kept = made[::7]                               # scattered survivors
del made
before = rss_mib()
heap.give_back_freed_memory()
deadline = time.monotonic() + 10
while heap._TRIMMER.trims == 0 and time.monotonic() < deadline:
    time.sleep(0.01)
print(before, rss_mib())
'''


def test_free_pages_between_survivors_go_back_to_the_system():
    """150 MiB made, one object in seven kept: glibc holds the rest
    until the heap is trimmed."""
    done = subprocess.run([sys.executable, '-c', _SCATTERED], check=True,
                          capture_output=True, text=True)
    before, after = map(float, done.stdout.split())
    assert before - after > 50, (before, after)


_ARENAS_SCRIPT = '''
import ctypes, sys, threading
from ironside.common import heap
count = int(sys.argv[1])
limited = heap.limit_arenas(count)
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
    """(whether limit_arenas limited them, the arenas glibc's
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
