"""Freed memory handed back after large answers (common/heap.py)."""

from __future__ import annotations

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
