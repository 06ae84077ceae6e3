"""Which process holds a registration, and whether it still runs.

A conductor restarted at once after a crash finds its own row still
"alive" (the heartbeat is recent), and used to be refused until the
heartbeat timed out, so a supervisor crash-looped it. The row now names
the process that registered it, as ``<boot id>/<pid>/<start time>``:
on the same machine a restart can tell that process is gone (no such
pid, or a pid reused by a process started at another time) and take the
registration back. A process on another machine cannot be checked; its
heartbeat decides, as before.
"""

from __future__ import annotations

import os

_BOOT_ID = '/proc/sys/kernel/random/boot_id'


def _boot_id() -> str:
    try:
        with open(_BOOT_ID) as source:
            return source.read().strip()
    except OSError:
        return 'unknown-boot'


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (None: gone)."""
    try:
        with open('/proc/%d/stat' % pid) as source:
            stat = source.read()
    except OSError:
        return None
    # Field 22; the command name (field 2) may hold spaces, so count
    # from the closing parenthesis.
    return stat.rsplit(')', 1)[1].split()[19]


def this_process() -> str:
    pid = os.getpid()
    return '%s/%d/%s' % (_boot_id(), pid, _start_time(pid) or '?')


def is_gone(identity: str | None) -> bool:
    """True only when ``identity`` is a process of this machine's current
    boot that no longer runs; unknown or remote processes are not gone."""
    if not identity:
        return False
    try:
        boot, pid, started = identity.split('/')
        pid_number = int(pid)
    except ValueError:
        return False
    if boot != _boot_id() or started == '?':
        return False
    return _start_time(pid_number) != started
