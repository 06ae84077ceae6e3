"""Where a deploy's time went, read from the logs of one run
(benchmarks/agent_deploy.py).

Three logs share the host's clock: the simulated machine's console (its
firmware: power-on, the agent booted, powered off), the agent's own log
(ironic-python-agent: its lookups and first heartbeat, its
``write_image`` deploy step, the ``standby.power_off`` command) and the
server's (each deploy step's start, ``Server.deploy_step_line``). From
them each node's deploy, request to ``active``, splits into what the
server did, what the machine and the agent did, and the image write
itself.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from typing import Any

# ironic-python-agent's lines (local time).
AGENT_STAMP = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) ')
WRITE_STARTED = re.compile(r"Executing deploy step \{.*'step': "
                           r"'write_image'")
WRITE_ENDED = re.compile(r"Deploy step completed: \{.*'step': "
                         r"'write_image'")
LOOKUP = re.compile(r'Looking up node with addresses')
LOOKED_UP = re.compile(r'Lookup succeeded')
HEARTBEAT = re.compile(r'sleeping before next heartbeat')
POWER_OFF_COMMAND = re.compile(r'Executing command: standby\.power_off')
# The simulated firmware's console lines (HH:MM:SS.mmm, local time).
CONSOLE_STAMP = re.compile(r'^(\d\d:\d\d:\d\d\.\d{3}) (.*)$')

# The spans a node's deploy splits into, in order: key, label, whose.
SPLITS = (
    # With fast track the agent is already running: no boot, no lookup.
    ('fast_track_to_write', 'request → write starts, agent running '
     '(fast track)', 'server'),
    ('to_ramdisk_power_on', 'request → power-on into the ramdisk',
     'server'),
    ('boot_to_lookup', 'power-on → agent\'s first lookup', 'machine, agent'),
    # Lookups the server refuses (the node not yet waiting for its
    # agent) are retried by the agent after a while.
    ('lookup', 'first lookup → lookup answered', 'server'),
    ('lookup_to_heartbeat', 'lookup answered → first heartbeat', 'agent'),
    ('heartbeat_to_write', 'first heartbeat → write starts', 'server'),
    ('write', 'the image write', 'agent'),
    ('write_to_power_off_command', 'write ends → power-off command',
     'server'),
    ('agent_power_off', 'power-off command → machine off', 'agent'),
    ('off_to_disk_boot', 'machine off → power-on from disk', 'server'),
    ('disk_boot_to_active', 'power-on from disk → active', 'server'),
)
SERVER_SPLITS = tuple(key for key, _, whose in SPLITS if whose == 'server')
# The server's spans before the write when it boots the agent.
_BOOT_SERVER_SPLITS = ('to_ramdisk_power_on', 'lookup', 'heartbeat_to_write')


@dataclasses.dataclass
class Timeline:
    """When things happened on one machine (epoch seconds), from its
    logs; None for what was not seen."""

    ramdisk_power_on: float | None = None
    agent_started: float | None = None
    first_lookup: float | None = None
    looked_up: float | None = None
    first_heartbeat: float | None = None
    write_started: float | None = None
    write_ended: float | None = None
    power_off_command: float | None = None
    powered_off: float | None = None
    disk_power_on: float | None = None
    os_up: float | None = None


def log_time(stamp: str) -> float:
    """Epoch seconds of a ``YYYY-MM-DD HH:MM:SS.fff`` local log time."""
    return datetime.datetime.strptime(
        stamp[:26], '%Y-%m-%d %H:%M:%S.%f').timestamp()


def _console_time(clock: str, near: float) -> float:
    """An HH:MM:SS.mmm of the console, on the day that puts it nearest
    ``near`` (a run may cross midnight)."""
    day = datetime.datetime.fromtimestamp(near).date()
    candidates = [datetime.datetime.combine(
        day + datetime.timedelta(days=offset),
        datetime.time.fromisoformat(clock)).timestamp()
        for offset in (-1, 0, 1)]
    return min(candidates, key=lambda candidate: abs(candidate - near))


def read_timeline(agent_log: str, console_log: str,
                  since: float) -> Timeline:
    """The deploy's events on one machine after ``since`` (the request),
    from its agent's log and its console."""
    found = Timeline()
    for line in agent_log.splitlines():
        match = AGENT_STAMP.match(line)
        if match is None:
            continue
        stamp = log_time(match.group(1))
        if stamp < since:
            continue
        if LOOKUP.search(line) and found.first_lookup is None:
            found.first_lookup = stamp
        elif LOOKED_UP.search(line) and found.looked_up is None:
            found.looked_up = stamp
        elif HEARTBEAT.search(line) and found.first_heartbeat is None:
            found.first_heartbeat = stamp
        elif WRITE_STARTED.search(line) and found.write_started is None:
            found.write_started = stamp
        elif WRITE_ENDED.search(line) and found.write_ended is None:
            found.write_ended = stamp
        elif POWER_OFF_COMMAND.search(line) and \
                found.power_off_command is None:
            found.power_off_command = stamp
    for line in console_log.splitlines():
        match = CONSOLE_STAMP.match(line)
        if match is None:
            continue
        stamp = _console_time(match.group(1), since)
        text = match.group(2)
        if stamp < since:
            continue
        if text.startswith('POST: '):
            if found.powered_off is not None:
                if found.disk_power_on is None:
                    found.disk_power_on = stamp
            elif found.ramdisk_power_on is None:
                found.ramdisk_power_on = stamp
        elif text.startswith('booting agent'):
            if found.agent_started is None:
                found.agent_started = stamp
        elif text.startswith(('the system powers off', 'power off')):
            # The agent powering the machine off after the write (or the
            # BMC, when the agent did not).
            if found.powered_off is None and found.write_ended is not None \
                    and stamp >= found.write_ended:
                found.powered_off = stamp
        elif text.startswith('OS up') and found.os_up is None:
            found.os_up = stamp
    return found


def _span(start: float | None, end: float | None) -> float | None:
    if start is None or end is None:
        return None
    return round(end - start, 3)


def node_figures(requested: float, active: float | None,
                 timeline: Timeline) -> dict[str, Any]:
    """One node's times in seconds: the deploy (request to active), the
    agent's image write, the time beyond it, and that split."""
    t = timeline
    total = _span(requested, active)
    write = _span(t.write_started, t.write_ended)
    # The agent's power-off runs to the BMC's power-off when the agent
    # was not told (or did not take) the command.
    off_command = t.power_off_command or t.powered_off
    # No power-on into the ramdisk before the write: the running agent
    # was used (fast track).
    fast_track = t.ramdisk_power_on is None and t.write_started is not None
    split = {
        'fast_track_to_write': _span(requested, t.write_started)
        if fast_track else None,
        # A running agent's heartbeats during the deploy are not the
        # first of a boot.
        'to_ramdisk_power_on': _span(requested, t.ramdisk_power_on),
        'boot_to_lookup': _span(t.ramdisk_power_on, t.first_lookup),
        'lookup': _span(t.first_lookup, t.looked_up),
        'lookup_to_heartbeat': None if fast_track else _span(
            t.looked_up, t.first_heartbeat),
        'heartbeat_to_write': None if fast_track else _span(
            t.first_heartbeat, t.write_started),
        'write': write,
        'write_to_power_off_command': _span(t.write_ended, off_command),
        'agent_power_off': _span(off_command, t.powered_off),
        'off_to_disk_boot': _span(t.powered_off, t.disk_power_on),
        'disk_boot_to_active': _span(t.disk_power_on, active),
    }
    # The server's share: its spans on the way this deploy took.
    skipped = _BOOT_SERVER_SPLITS if fast_track else ('fast_track_to_write',)
    server = [split[key] for key in SERVER_SPLITS if key not in skipped]
    return {
        'deploy_to_active': total,
        'agent_write': write,
        'beyond_agent': round(total - write, 3)
        if total is not None and write is not None else None,
        'server_own': round(sum(server), 3) if None not in server else None,
        'split': split,
        'fast_track': fast_track,
        'timeline': dataclasses.asdict(timeline),
    }


def step_spans(server_log: str, pattern: re.Pattern, node: str,
               requested: float, active: float | None) -> dict[str, float]:
    """Seconds from the deploy request to the first deploy step, from
    each step's start to the next one's (the last: to ``active``), by
    step name, for ``node``, from the server's log."""
    starts = []
    for line in server_log.splitlines():
        match = pattern.match(line)
        if match is None or match.group('node') != node:
            continue
        stamp = log_time(match.group('time'))
        if stamp >= requested:
            starts.append((stamp, match.group('step')))
    if not starts:
        return {}
    spans = {'(request)': round(starts[0][0] - requested, 3)}
    ends = [stamp for stamp, _ in starts[1:]] + [active]
    for (start, step), end in zip(starts, ends, strict=True):
        if end is not None:
            spans[step] = round(end - start, 3)
    return spans
